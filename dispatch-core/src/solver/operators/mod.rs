//! Local search, applied to the routes a new best solution changed: between routes
//! ([`improve_between`]: relocate, swap, 2-opt* and SWAP* on granular neighbourhoods), then
//! within each route ([`improve`]: segment reversal (2-opt) and segment relocation (or-opt)).
//! Cost deltas come in O(1). Between routes, feasibility comes from the routes' cached arrays
//! ([`edit`], and [`two_opt_star`] between interchangeable vehicles without breaks or limits);
//! the intra-route moves, and 2-opt* elsewhere, confirm their improving moves by a full
//! re-simulation, so every constraint (breaks and limits included) is respected.

mod edit;
mod inter;
#[cfg(test)]
mod inter_tests;
mod or_opt;
mod relocate;
mod swap;
mod swap_star;
mod two_opt;
mod two_opt_star;

pub(crate) use inter::improve_between;
pub(crate) use two_opt_star::decide_all;

use super::instance::Instance;
use super::state::State;

/// Improves each listed route until neither operator finds an improving feasible move.
pub(crate) fn improve(inst: &Instance, s: &mut State, routes: &[usize]) {
    for &r in routes {
        if s.routes[r].len() < 3 {
            continue;
        }
        let v = s.routes[r].vehicle;
        let mut nodes = s.routes[r].nodes.clone();
        let mut changed = false;
        while two_opt::improve(inst, v, &mut nodes) || or_opt::improve(inst, v, &mut nodes) {
            changed = true;
        }
        if changed {
            s.route_mut(r).nodes = nodes;
            s.refresh(inst, r);
        }
    }
}

/// Locations of a visit sequence with the vehicle's start and end around it.
fn locations(inst: &Instance, v: usize, nodes: &[u32]) -> Vec<usize> {
    let vd = &inst.vehicles[v];
    let mut l = Vec::with_capacity(nodes.len() + 2);
    l.push(vd.start);
    l.extend(nodes.iter().map(|&x| inst.loc[x as usize]));
    l.push(vd.end);
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::constraint::feasible;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;

    /// Depot 0 at (0,0); visits 1 (0,10), 2 (10,10), 3 (10,0), 4 (5,20); travel = distance.
    fn square() -> Problem {
        let pts = [(0i64, 0i64), (0, 10), (10, 10), (10, 0), (5, 20)];
        Problem {
            name: "square".into(),
            matrix: plane(&pts),
            jobs: (1..5).map(|l| job(l as u64, l)).collect(),
            shipments: vec![],
            vehicles: vec![vehicle(1, 10)],
            dimensions: 1,
            objective: Objective::Distance,
        }
    }

    fn cost(inst: &Instance, nodes: &[u32]) -> i64 {
        let l = locations(inst, 0, nodes);
        l.windows(2).map(|w| inst.cost(w[0], w[1])).sum()
    }

    #[test]
    fn two_opt_uncrosses_a_route() {
        let p = square();
        let inst = Instance::new(&p);
        // Jobs are nodes 0..4 at locations 1..5: 0 -> (0,10) -> (10,0) -> (10,10) -> (5,20).
        let mut nodes = vec![0, 2, 1, 3];
        let before = cost(&inst, &nodes);
        assert!(two_opt::improve(&inst, 0, &mut nodes));
        assert!(cost(&inst, &nodes) < before);
    }

    #[test]
    fn or_opt_moves_a_misplaced_visit() {
        let p = square();
        let inst = Instance::new(&p);
        // (5,20) visited first, before (0,10): it belongs between (0,10) and (10,10).
        let mut nodes = vec![3, 0, 1, 2];
        let before = cost(&inst, &nodes);
        assert!(or_opt::improve(&inst, 0, &mut nodes));
        assert!(cost(&inst, &nodes) < before);
        assert_eq!(nodes, vec![0, 3, 1, 2]);
    }

    #[test]
    fn moves_that_break_capacity_order_are_refused() {
        let p = square();
        let inst = Instance::new(&p);
        // A sequence is infeasible when its start load exceeds the capacity.
        assert!(feasible(&inst, 0, &[0, 1, 2, 3]));
        let mut small = inst.clone();
        small.vehicles[0].capacity = vec![3];
        assert!(!feasible(&small, 0, &[0, 1, 2, 3]));
    }
}
