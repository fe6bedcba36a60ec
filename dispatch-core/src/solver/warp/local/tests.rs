use super::*;
use crate::solver::constraint::{feasible, violations, Kind, Violation};
use crate::solver::formats::{self, Format};
use crate::solver::precheck::precheck;
use crate::solver::problem::{Objective, Problem};

fn solomon(name: &str) -> Problem {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../instances/solomon")
        .join(format!("{name}.txt"));
    let text = std::fs::read_to_string(path).unwrap();
    formats::read(&text, Some(Format::Solomon), Objective::Distance)
        .unwrap()
        .problem
}

/// Random routes over all visits of `inst`, `count` vehicles used.
fn random_routes(inst: &Instance, rng: &mut Rng, count: usize, pen: &Penalties) -> Vec<WRoute> {
    let mut nodes: Vec<u32> = (0..inst.loc.len() as u32).collect();
    for i in (1..nodes.len()).rev() {
        nodes.swap(i, rng.below(i + 1));
    }
    let mut lists = vec![Vec::new(); inst.vehicles.len()];
    for x in nodes {
        lists[rng.below(count)].push(x);
    }
    lists
        .into_iter()
        .enumerate()
        .map(|(v, l)| WRoute::new(inst, v, l, pen))
        .collect()
}

fn total(routes: &[WRoute]) -> i64 {
    routes.iter().map(|r| r.pcost).sum()
}

#[test]
fn segments_judge_feasibility_and_measure_time_warp_and_load_as_the_constraints_do() {
    for name in ["R101", "C201", "RC105"] {
        let p = solomon(name);
        let mut inst = Instance::new(&p);
        precheck(&p, &mut inst);
        assert!(super::super::applies(&inst), "{name}");
        let nb = Neighbours::new(&inst, 40);
        let pen = Penalties::new(&inst, &nb);
        let mut rng = Rng::new(7, 0);
        let (mut kept, mut broken) = (0, 0);
        for _ in 0..400 {
            // Short runs of near visits, so that both verdicts occur.
            let start = rng.below(inst.loc.len());
            let len = 1 + rng.below(10);
            let mut nodes: Vec<u32> = std::iter::once(start as u32)
                .chain(nb.of(start).iter().copied())
                .take(len)
                .collect();
            let mut keyed: Vec<(i64, u32)> = nodes
                .iter()
                .map(|&x| match rng.below(2) {
                    0 => (inst.windows(x as usize)[0].start, x),
                    _ => (rng.below(1000) as i64, x),
                })
                .collect();
            keyed.sort_unstable();
            nodes = keyed.into_iter().map(|(_, x)| x).collect();
            let w = WRoute::new(&inst, 0, nodes.clone(), &pen);
            assert_eq!(w.feasible(), feasible(&inst, 0, &nodes), "{name} {nodes:?}");
            // The constraints measure what the segments price, by the same amounts.
            let measured = violations(&inst, 0, &nodes);
            let priced = w.whole().violations(inst.vehicles[0].capacity[0]);
            let amount =
                |vs: &[Violation], kind| vs.iter().find(|v| v.kind == kind).map(|v| v.amount);
            for kind in [Kind::TimeWarp, Kind::ExcessLoad(0)] {
                let expected = amount(&priced, kind).filter(|&a| a > 0);
                assert_eq!(
                    amount(&measured, kind),
                    expected,
                    "{name} {nodes:?} {kind:?}"
                );
            }
            assert!(measured
                .iter()
                .all(|v| matches!(v.kind, Kind::TimeWarp | Kind::ExcessLoad(0))));
            if w.feasible() {
                kept += 1;
            } else {
                broken += 1;
            }
        }
        assert!(
            kept > 20 && broken > 20,
            "{name}: {kept} feasible, {broken} not"
        );
    }
}

#[test]
fn move_prices_equal_the_change_of_the_recomputed_routes() {
    let p = solomon("RC101");
    let mut inst = Instance::new(&p);
    precheck(&p, &mut inst);
    let nb = Neighbours::new(&inst, 40);
    let pen = Penalties::new(&inst, &nb);
    let mut rng = Rng::new(3, 0);
    let mut routes = random_routes(&inst, &mut rng, 8, &pen);
    let mut checked = 0;
    for _ in 0..300 {
        let search = Search::new(&inst, &routes);
        let u = rng.below(inst.loc.len());
        let v = nb.of(u)[rng.below(10)] as usize;
        let ((ru, pu), (rv, pv)) = (search.at[u], search.at[v]);
        let before = total(&routes);
        let mut moves = vec![
            (
                relocate(&inst, &routes, &pen, (ru, pu), rv, pv),
                Move::Relocate {
                    from: (ru, pu),
                    to: rv,
                    q: pv,
                },
            ),
            (
                relocate(&inst, &routes, &pen, (ru, pu), rv, pv - 1),
                Move::Relocate {
                    from: (ru, pu),
                    to: rv,
                    q: pv - 1,
                },
            ),
            (
                swap(&inst, &routes, &pen, (ru, pu), (rv, pv)),
                Move::Swap {
                    a: (ru, pu),
                    b: (rv, pv),
                },
            ),
        ];
        if ru != rv {
            let d = two_opt_star(&inst, &routes, &pen, (ru, pu), (rv, pv));
            moves.push((
                d,
                Move::TwoOptStar {
                    a: (ru, pu),
                    b: (rv, pv),
                },
            ));
        }
        for (delta, m) in moves {
            let mut after = routes.clone();
            let mut s = Search::new(&inst, &after);
            s.apply(&inst, &mut after, &pen, m);
            assert_eq!(total(&after) - before, delta, "{u} {v}");
            checked += 1;
        }
        // Move on from a changed solution now and then.
        if rng.below(4) == 0 {
            let mut s = Search::new(&inst, &routes);
            s.apply(
                &inst,
                &mut routes,
                &pen,
                Move::Swap {
                    a: (ru, pu),
                    b: (rv, pv),
                },
            );
        }
    }
    assert!(checked > 900);
}

#[test]
fn the_search_lowers_the_penalised_cost_and_keeps_every_visit() {
    let p = solomon("R105");
    let mut inst = Instance::new(&p);
    precheck(&p, &mut inst);
    let nb = Neighbours::new(&inst, 40);
    let pen = Penalties::new(&inst, &nb);
    let mut rng = Rng::new(11, 0);
    let mut routes = random_routes(&inst, &mut rng, 12, &pen);
    let before = total(&routes);
    let mut search = Search::new(&inst, &routes);
    search.run(&inst, &nb, &mut routes, &pen, &mut rng);
    assert!(
        total(&routes) < before / 2,
        "{} -> {}",
        before,
        total(&routes)
    );
    let mut seen: Vec<u32> = routes
        .iter()
        .flat_map(|r| r.nodes.iter().copied())
        .collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..inst.loc.len() as u32).collect::<Vec<_>>());
    // Under far heavier weights the same search reaches a feasible solution.
    let heavy = pen.heavier(1000);
    for r in &mut routes {
        r.reprice(&heavy);
    }
    search.run(&inst, &nb, &mut routes, &heavy, &mut rng);
    assert!(routes.iter().all(|r| r.feasible()));
}
