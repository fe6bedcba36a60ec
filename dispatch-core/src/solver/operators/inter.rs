//! Inter-route local search on granular neighbourhoods: each visit is tried against its
//! nearest visits on other routes by every [`InterMove`] (relocate, swap, 2-opt*), first
//! improvement; then SWAP* between each pair of routes whose visits are neighbours. Relocate,
//! swap and SWAP* decide feasibility from the routes' cached arrays ([`super::edit`]), 2-opt*
//! too where the caches decide ([`super::two_opt_star`]) and by re-simulation elsewhere. No
//! constraint (breaks, duration and travel limits, shipments, eligibility) is ever broken.

use super::{relocate::Relocate, swap::Swap, swap_star, two_opt_star::TwoOptStar};
use crate::solver::instance::{Instance, NONE};
use crate::solver::neighbours::Neighbours;
use crate::solver::state::State;

/// Nearest visits each visit is tried against.
pub(super) const GRANULAR: usize = 12;
/// Passes over the routes before giving up on further improvement.
const PASSES: usize = 3;

/// A visit `u` on route `a` and its neighbour `v` on another route `b`.
pub(super) struct Pair {
    pub a: usize,
    pub b: usize,
    pub u: u32,
    pub v: u32,
}

/// A feasible move: the new visit lists of the two routes and the change of routing cost.
#[derive(Debug)]
pub(super) struct Change {
    pub a: Vec<u32>,
    pub b: Vec<u32>,
    pub delta: i64,
}

/// One inter-route neighbourhood.
pub(super) trait InterMove {
    /// An improving (`delta < 0`) feasible move of `p.u` against `p.v`, if it finds one.
    fn candidate(&self, inst: &Instance, s: &State, p: &Pair) -> Option<Change>;

    /// True when the move depends on `v`'s route only, not on `v` (tried once per route).
    fn once_per_route(&self) -> bool {
        false
    }
}

/// True for a job's visit (swaps exchange jobs only).
pub(super) fn is_job(inst: &Instance, node: u32) -> bool {
    inst.tasks[inst.node_task[node as usize] as usize].second == NONE
}

fn route_of(inst: &Instance, s: &State, node: u32) -> Option<usize> {
    let r = s.route_of[inst.node_task[node as usize] as usize];
    (r != NONE).then_some(r as usize)
}

/// Improves the solution by moves between the listed routes and the routes of their visits'
/// neighbours; returns every route changed.
pub(crate) fn improve_between(
    inst: &Instance,
    nb: &Neighbours,
    s: &mut State,
    routes: &[usize],
    stop: &dyn Fn() -> bool,
) -> Vec<usize> {
    improve_with(
        inst,
        nb,
        s,
        routes,
        &[&Relocate, &Swap, &TwoOptStar],
        true,
        stop,
    )
}

/// [`improve_between`] with the given per-visit moves, and SWAP* when `star`.
pub(super) fn improve_with(
    inst: &Instance,
    nb: &Neighbours,
    s: &mut State,
    routes: &[usize],
    moves: &[&dyn InterMove],
    star: bool,
    stop: &dyn Fn() -> bool,
) -> Vec<usize> {
    let mut changed: Vec<usize> = Vec::new();
    let mut work: Vec<usize> = routes.to_vec();
    let note = |x: usize, next: &mut Vec<usize>, changed: &mut Vec<usize>| {
        for list in [next, changed] {
            if !list.contains(&x) {
                list.push(x);
            }
        }
    };
    for _ in 0..PASSES {
        let mut next: Vec<usize> = Vec::new();
        for &r in &work {
            if stop() {
                return changed;
            }
            let mut k = 0;
            while k < s.routes[r].nodes.len() {
                let u = s.routes[r].nodes[k];
                k += 1;
                if let Some((a, b)) = improve_visit(inst, nb, s, moves, u) {
                    note(a, &mut next, &mut changed);
                    note(b, &mut next, &mut changed);
                }
            }
            if star {
                for (a, b) in swap_star::improve_route(inst, nb, s, r) {
                    note(a, &mut next, &mut changed);
                    note(b, &mut next, &mut changed);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        work = next;
    }
    changed
}

/// Applies the first improving feasible move of `u` against one of its neighbours.
fn improve_visit(
    inst: &Instance,
    nb: &Neighbours,
    s: &mut State,
    moves: &[&dyn InterMove],
    u: u32,
) -> Option<(usize, usize)> {
    let mut seen: Vec<usize> = Vec::new();
    for &v in nb.of(u as usize).iter().take(GRANULAR) {
        let (Some(a), Some(b)) = (route_of(inst, s, u), route_of(inst, s, v)) else {
            continue;
        };
        if a == b {
            continue;
        }
        let first_of_route = !seen.contains(&b);
        if first_of_route {
            seen.push(b);
        }
        let p = Pair { a, b, u, v };
        for m in moves {
            if m.once_per_route() && !first_of_route {
                continue;
            }
            if let Some(change) = m.candidate(inst, s, &p) {
                apply(inst, s, a, b, change);
                return Some((a, b));
            }
        }
    }
    None
}

/// Writes a move's visit lists into its two routes.
pub(super) fn apply(inst: &Instance, s: &mut State, a: usize, b: usize, change: Change) {
    debug_assert!(change.delta < 0);
    for (r, nodes) in [(a, change.a), (b, change.b)] {
        debug_assert!(crate::solver::constraint::feasible(
            inst,
            s.routes[r].vehicle,
            &nodes
        ));
        for &x in &nodes {
            s.set_route(inst.node_task[x as usize] as usize, r as u32);
        }
        s.route_mut(r).nodes = nodes;
        s.refresh(inst, r);
    }
}
