//! Route split: the cheapest run of consecutive visits of a random route leaves it for an
//! unused vehicle of the same class, as a route of its own, before an iteration's ruin and
//! recreate; the annealing then judges the whole iteration.
//!
//! Ruin and recreate empties short routes easily, but opens a route only when one visit alone
//! there is cheaper than every detour, which is rare. The route count then drifts below the
//! distance-optimal one (Homberger R2: 10 routes where the best solutions use 13). A whole run
//! moved at once opens a route at a small cost where the route passes near the depot, and gives
//! the recreate room in both routes.

use super::constraint::{eligibility, feasible, precedence};
use super::instance::Instance;
use super::rng::Rng;
use super::state::State;

/// Cheapest runs checked for feasibility before giving up on the route.
const TRIES: usize = 8;

/// Moves the cheapest feasible run of visits of a random used route (by the cost of the arcs
/// at its ends and of the new route's, plus the vehicle cost) to an unused vehicle of its class.
/// Returns false, changing nothing, when there is no such vehicle or none of the [`TRIES`]
/// cheapest runs keeps both routes feasible (a run never cuts a shipment in two).
pub(crate) fn split(inst: &Instance, s: &mut State, rng: &mut Rng) -> bool {
    let used: Vec<usize> = (0..s.routes.len())
        .filter(|&r| s.routes[r].len() >= 2)
        .collect();
    if used.is_empty() {
        return false;
    }
    let from = used[rng.below(used.len())];
    let (vf, class) = (
        s.routes[from].vehicle,
        inst.vehicles[s.routes[from].vehicle].class,
    );
    let Some(to) = (0..s.routes.len())
        .find(|&r| s.routes[r].is_empty() && inst.vehicles[s.routes[r].vehicle].class == class)
    else {
        return false;
    };
    let vt = s.routes[to].vehicle;
    let nodes = s.routes[from].nodes.clone();
    let runs = cheapest_runs(inst, vf, vt, &nodes);
    let task = |x: &u32| inst.node_task[*x as usize] as usize;
    for (a, b) in runs {
        let run = &nodes[a..b];
        let mut rest = nodes[..a].to_vec();
        rest.extend_from_slice(&nodes[b..]);
        if !precedence::whole(inst, run)
            || !eligibility::allowed(inst, vt, run)
            || !feasible(inst, vt, run)
            || !feasible(inst, vf, &rest)
        {
            continue;
        }
        for x in run {
            s.set_route(task(x), to as u32);
        }
        s.route_mut(from).nodes = rest;
        s.refresh(inst, from);
        s.route_mut(to).nodes = run.to_vec();
        s.refresh(inst, to);
        return true;
    }
    false
}

/// The [`TRIES`] cheapest runs `a..b` of `nodes` (on vehicle `vf`) to move onto vehicle `vt`,
/// cheapest first; never the whole route.
fn cheapest_runs(inst: &Instance, vf: usize, vt: usize, nodes: &[u32]) -> Vec<(usize, usize)> {
    let n = nodes.len();
    let (from, to) = (&inst.vehicles[vf], &inst.vehicles[vt]);
    let loc = |k: usize| inst.loc[nodes[k] as usize];
    let before = |a: usize| if a == 0 { from.start } else { loc(a - 1) };
    let after = |b: usize| if b == n { from.end } else { loc(b) };
    let c = |x: usize, y: usize| inst.cost(x, y);
    let mut runs: Vec<(i64, usize, usize)> = Vec::with_capacity(n * (n + 1) / 2);
    for a in 0..n {
        for b in a + 1..=n {
            if a == 0 && b == n {
                continue;
            }
            let (first, last) = (loc(a), loc(b - 1));
            let delta = c(before(a), after(b)) - c(before(a), first) - c(last, after(b))
                + c(to.start, first)
                + c(last, to.end)
                + inst.vehicle_cost;
            runs.push((delta, a, b));
        }
    }
    runs.sort_unstable();
    runs.iter().take(TRIES).map(|&(_, a, b)| (a, b)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::checker;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::neighbours::Neighbours;
    use crate::solver::output::to_solution;
    use crate::solver::precheck::precheck;
    use crate::solver::problem::*;
    use crate::solver::search::Params;
    use crate::solver::warm::initial;

    /// The depot at 0 on a line, two visits on each side of it (jobs 1-4 at -10, -20, 20, 10).
    fn line(shipments: Vec<Shipment>, jobs: Vec<Job>) -> Problem {
        let pts = [(0, 0), (-10, 0), (-20, 0), (20, 0), (10, 0)];
        Problem {
            name: "line".into(),
            matrix: plane(&pts),
            jobs,
            shipments,
            vehicles: vec![vehicle(1, 10), vehicle(2, 10)],
            dimensions: 1,
            objective: Objective::Distance,
        }
    }

    /// Runs [`split`] on the one route `order` (nodes) for several seeds, checks each result
    /// with the independent checker and returns the node lists of the two routes (sorted) and
    /// whether a second split, with no unused vehicle left, was refused.
    fn split_all(p: &Problem, order: &[u32]) -> Vec<(Vec<Vec<u32>>, i64, bool)> {
        let mut inst = Instance::new(p);
        let reasons = precheck(p, &mut inst);
        let tasks: Vec<u32> = (0..inst.tasks.len() as u32).collect();
        (0..10)
            .map(|seed| {
                let (mut s, _) = initial(&inst, &tasks, &vec![(0, order.to_vec())]);
                let mut rng = Rng::new(seed, 3);
                assert!(split(&inst, &mut s, &mut rng));
                let report = checker::check(p, &to_solution(&inst, &s, &reasons));
                assert!(report.is_feasible(), "{:?}", report.violations);
                let mut parts: Vec<Vec<u32>> = s.routes.iter().map(|r| r.nodes.clone()).collect();
                parts.sort();
                let cost = s.routing_cost();
                (parts, cost, !split(&inst, &mut s, &mut rng))
            })
            .collect()
    }

    #[test]
    fn a_split_moves_the_cheapest_run_of_a_route_to_an_unused_vehicle() {
        let p = line(vec![], (1..5).map(|l| job(l as u64, l)).collect());
        // The route crosses the depot between -20 and 20: cutting it there costs nothing.
        for (parts, cost, refused) in split_all(&p, &[0, 1, 2, 3]) {
            assert_eq!(parts, vec![vec![0, 1], vec![2, 3]]);
            assert_eq!(cost, 80);
            assert!(refused, "no unused vehicle is left to split onto");
        }
    }

    #[test]
    fn a_split_never_cuts_a_shipment_in_two() {
        // Jobs at -10 and 10 (nodes 0 and 1), a shipment from -20 to 20 (nodes 2 and 3).
        let place = |location| Place {
            location,
            setup: 0,
            service: 0,
            time_windows: vec![],
        };
        let shipment = Shipment {
            pickup_id: 1,
            delivery_id: 2,
            pickup: place(2),
            delivery: place(3),
            amount: vec![1],
            skills: Skills::default(),
            priority: 0,
            pinned_vehicle: None,
        };
        let p = line(vec![shipment], vec![job(3, 1), job(4, 4)]);
        // The free cut at the depot would part the shipment: a job goes alone instead (+20).
        for (parts, cost, _) in split_all(&p, &[0, 2, 3, 1]) {
            assert!(
                parts.iter().any(|r| r.contains(&2) && r.contains(&3)),
                "{parts:?}"
            );
            assert!(parts.iter().any(|r| r.len() == 1), "{parts:?}");
            assert_eq!(cost, 100);
        }
    }

    #[test]
    fn splits_run_only_where_opening_a_vehicle_costs_nothing() {
        for (objective, on) in [
            (Objective::Distance, true),
            (Objective::VehiclesThenDistance, false),
        ] {
            let mut p = line(vec![], (1..5).map(|l| job(l as u64, l)).collect());
            p.objective = objective;
            let inst = Instance::new(&p);
            let nb = Neighbours::new(&inst, 4);
            assert_eq!(Params::for_instance(&inst, &nb).split > 0.0, on);
        }
    }
}
