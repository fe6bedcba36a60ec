//! The edit evaluator and the break-route caches against a plain re-simulation: on random
//! days, every edit the cached arrays accept simulates, at the cost they predict; on the
//! vehicle without a break the two agree on every edit; and the breaks sit in the route's
//! elements exactly where the simulation takes them.

use super::random;
use crate::solver::constraint::feasible;
use crate::solver::constraint::schedule::simulate;
use crate::solver::instance::Instance;
use crate::solver::operators::edit::{edited, evaluate, Edit};
use crate::solver::precheck::precheck;
use crate::solver::rng::Rng;
use crate::solver::route::{is_break, Route};
use crate::solver::solution::Step;
use crate::solver::state::State;
use crate::solver::warm::initial;

/// Random edits of one route: a removal, an insertion, or both (an exchange or a move).
fn random_edits(r: &Route, jobs: usize, outside: &[u32], rng: &mut Rng) -> Vec<Edit> {
    let m = r.elements();
    // Job visits only: the operators move a shipment's two visits together.
    let visits: Vec<usize> = (1..=m)
        .filter(|&k| !is_break(r.pnode[k]) && (r.pnode[k] as usize) < jobs)
        .collect();
    let remove = (!visits.is_empty() && rng.below(3) > 0).then(|| visits[rng.below(visits.len())]);
    let insert =
        (!outside.is_empty() && (remove.is_none() || rng.below(2) == 0)).then(|| Edit::Insert {
            after: rng.below(m + 1),
            node: outside[rng.below(outside.len())],
        });
    let mut edits: Vec<Edit> = remove.map(Edit::Remove).into_iter().chain(insert).collect();
    edits.sort_by_key(|e| match *e {
        Edit::Remove(k) => 2 * k,
        Edit::Insert { after, .. } => 2 * after + 1,
    });
    edits
}

/// Runs `f` on 60 seeded random days, each with its random start repaired to feasible.
fn each_start(stream: u64, mut f: impl FnMut(u64, &Instance, &State, &mut Rng)) {
    for seed in 0..60 {
        let mut rng = Rng::new(seed, stream);
        let p = random::day(&mut rng);
        let plan = random::plan(&p, &mut rng);
        let mut inst = Instance::new(&p);
        let reasons = precheck(&p, &mut inst);
        let tasks: Vec<u32> = (0..inst.tasks.len() as u32)
            .filter(|&t| reasons[t as usize].is_none())
            .collect();
        let (s, _) = initial(&inst, &tasks, &plan);
        f(seed, &inst, &s, &mut rng);
    }
}

#[test]
fn edits_accepted_by_the_caches_simulate_at_the_predicted_cost() {
    let (mut accepted, mut exact) = (0, 0);
    each_start(11, |seed, inst, s, rng| {
        // Jobs off a route (a shipment's visits alone would break precedence).
        let outside: Vec<u32> = s
            .unassigned
            .iter()
            .filter(|&&t| (t as usize) < inst.n_jobs)
            .map(|&t| inst.tasks[t as usize].first)
            .collect();
        for r in &s.routes {
            for _ in 0..30 {
                let edits = random_edits(r, inst.n_jobs, &outside, rng);
                if edits.is_empty() {
                    continue;
                }
                let nodes = edited(r, &edits);
                let sim = feasible(inst, r.vehicle, &nodes);
                let got = evaluate(inst, r, &edits);
                if let Some(delta) = got {
                    assert!(sim, "seed {seed}: {edits:?} accepted, does not simulate");
                    let mut after = Route::new(inst, r.vehicle);
                    after.nodes = nodes;
                    after.update(inst);
                    assert_eq!(delta, after.cost - r.cost, "seed {seed}: {edits:?}");
                    accepted += 1;
                }
                if inst.vehicles[r.vehicle].breaks.is_empty() {
                    assert_eq!(
                        got.is_some(),
                        sim,
                        "seed {seed}: {edits:?} on {:?}",
                        r.nodes
                    );
                    exact += 1;
                }
            }
        }
    });
    assert!(
        accepted > 200 && exact > 200,
        "accepted {accepted}, exact {exact}"
    );
}

#[test]
fn break_routes_place_their_break_where_the_simulation_takes_it() {
    let mut compared = 0;
    each_start(13, |seed, inst, s, _| {
        for r in s.routes.iter().filter(|r| !r.is_empty()) {
            let mut steps = Vec::new();
            let timing = simulate(inst, r.vehicle, &r.nodes, Some(&mut steps));
            assert!(timing.is_ok(), "seed {seed}: a kept route must simulate");
            let sim_breaks: Vec<usize> = steps
                .iter()
                .enumerate()
                .filter(|(_, st)| matches!(st.step, Step::Break(_)))
                .map(|(k, _)| k + 1)
                .collect();
            let cached: Vec<usize> = (1..=r.elements())
                .filter(|&k| is_break(r.pnode[k]))
                .collect();
            assert_eq!(cached, sim_breaks, "seed {seed}");
            // Earliest starts from the shift start never pass the latest starts, and the
            // simulation's service starts lie between them.
            for (k, st) in steps.iter().enumerate() {
                let k = k + 1;
                assert!(
                    r.es[k] <= st.service_start && st.service_start <= r.ls[k],
                    "seed {seed} position {k}"
                );
            }
            compared += 1;
        }
    });
    assert!(compared > 60, "compared {compared}");
}
