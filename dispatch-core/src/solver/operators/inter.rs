//! Inter-route local search on granular neighbourhoods: each visit is tried against its
//! nearest visits on other routes by every [`InterMove`] (relocate, swap, 2-opt*), first
//! improvement. Cost deltas are O(1) from the arcs a move changes; only improving candidates
//! are confirmed by [`feasible`] on the (at most two) routes they change, so no constraint
//! (breaks, duration and travel limits, shipments) is ever broken.

use super::{feasible, relocate::Relocate, swap::Swap, two_opt_star::TwoOptStar};
use crate::solver::instance::{Instance, NONE};
use crate::solver::neighbours::Neighbours;
use crate::solver::state::State;

/// Nearest visits each visit is tried against.
const GRANULAR: usize = 12;
/// Passes over the routes before giving up on further improvement.
const PASSES: usize = 3;

/// A visit `u` and its neighbour `v` on another route, located.
pub(super) struct Pair {
    /// Route (= vehicle) of `u`, and `u`'s index in its `nodes`.
    pub a: usize,
    pub i: usize,
    /// Route of `v`, and `v`'s index.
    pub b: usize,
    pub j: usize,
    pub u: u32,
    pub v: u32,
}

/// One inter-route neighbourhood.
pub(super) trait InterMove {
    /// The new visit lists of routes `a` and `b` when a move of `p.u` against `p.v` lowers the
    /// routing cost (checked for feasibility by the caller).
    fn candidate(&self, inst: &Instance, s: &State, p: &Pair) -> Option<(Vec<u32>, Vec<u32>)>;
}

/// Location before index `i` of a route's visits (the vehicle's start before the first).
pub(super) fn loc_before(inst: &Instance, s: &State, r: usize, i: usize) -> usize {
    match i {
        0 => inst.vehicles[r].start,
        _ => inst.loc[s.routes[r].nodes[i - 1] as usize],
    }
}

/// Location after index `i` of a route's visits (the vehicle's end after the last).
pub(super) fn loc_after(inst: &Instance, s: &State, r: usize, i: usize) -> usize {
    match s.routes[r].nodes.get(i + 1) {
        Some(&x) => inst.loc[x as usize],
        None => inst.vehicles[r].end,
    }
}

/// True for a job's visit (shipments move with the ruin-and-recreate only).
pub(super) fn is_job(inst: &Instance, node: u32) -> bool {
    inst.tasks[inst.node_task[node as usize] as usize].second == NONE
}

/// Whether every task of `nodes` may go on vehicle `v`.
fn allowed(inst: &Instance, v: usize, nodes: &[u32]) -> bool {
    nodes
        .iter()
        .all(|&x| inst.is_allowed(inst.node_task[x as usize] as usize, v))
}

fn locate(inst: &Instance, s: &State, node: u32) -> Option<(usize, usize)> {
    let r = s.route_of[inst.node_task[node as usize] as usize];
    if r == NONE {
        return None;
    }
    let r = r as usize;
    let i = s.routes[r].nodes.iter().position(|&x| x == node)?;
    Some((r, i))
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
    let moves: [&dyn InterMove; 3] = [&Relocate, &Swap, &TwoOptStar];
    let mut changed: Vec<usize> = Vec::new();
    let mut work: Vec<usize> = routes.to_vec();
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
                if let Some((a, b)) = improve_visit(inst, nb, s, &moves, u) {
                    for x in [a, b] {
                        if !next.contains(&x) {
                            next.push(x);
                        }
                        if !changed.contains(&x) {
                            changed.push(x);
                        }
                    }
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
    for &v in nb.of(u as usize).iter().take(GRANULAR) {
        let (Some((a, i)), Some((b, j))) = (locate(inst, s, u), locate(inst, s, v)) else {
            continue;
        };
        if a == b {
            continue;
        }
        let p = Pair { a, i, b, j, u, v };
        for m in moves {
            let Some((na, nb_)) = m.candidate(inst, s, &p) else {
                continue;
            };
            let (va, vb) = (s.routes[a].vehicle, s.routes[b].vehicle);
            if !allowed(inst, va, &na)
                || !allowed(inst, vb, &nb_)
                || !feasible(inst, va, &na)
                || !feasible(inst, vb, &nb_)
            {
                continue;
            }
            for (r, nodes) in [(a, na), (b, nb_)] {
                for &x in &nodes {
                    s.set_route(inst.node_task[x as usize] as usize, r as u32);
                }
                s.route_mut(r).nodes = nodes;
                s.refresh(inst, r);
            }
            return Some((a, b));
        }
    }
    None
}
