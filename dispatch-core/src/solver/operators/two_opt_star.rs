//! 2-opt*: exchange the tails of two routes, after visit `u` on one and its neighbour `v` on
//! the other, so that `u` is followed by what followed `v` and the reverse. Only between
//! vehicles ending at the same place, where the cost change is the four arcs at the cut.
//!
//! Between interchangeable vehicles (one class) without breaks, duration or travel limits —
//! the classic benchmarks — an exchange is decided in O(1) from the routes' caches: the head's
//! cached departure against the moved tail's latest times, and the loads from prefix and
//! suffix maxima shifted by the start loads each tail takes along (plus a scan of the tails
//! for shipments cut apart, on days with shipments). Elsewhere the caches cannot decide (a
//! tail's breaks and limits change with its vehicle), and both new routes are re-simulated.

use super::inter::{Change, InterMove, Pair};
use crate::solver::constraint::eligibility::allowed;
use crate::solver::constraint::precedence::whole_tail;
use crate::solver::constraint::{feasible, limits};
use crate::solver::instance::Instance;
use crate::solver::route::Route;
use crate::solver::state::State;

pub(super) struct TwoOptStar;

impl InterMove for TwoOptStar {
    fn candidate(&self, inst: &Instance, s: &State, p: &Pair) -> Option<Change> {
        let (ra, rb) = (&s.routes[p.a], &s.routes[p.b]);
        let i = ra.nodes.iter().position(|&x| x == p.u)?;
        let j = rb.nodes.iter().position(|&x| x == p.v)?;
        exchange(inst, ra, i + 1, rb, j + 1)
    }
}

/// The improving exchange of `ra`'s visits after its first `i` with `rb`'s after its first `j`
/// (0: the whole route, as when `rb` is unused), or `None` when it does not improve or breaks a
/// constraint.
pub(super) fn exchange(
    inst: &Instance,
    ra: &Route,
    i: usize,
    rb: &Route,
    j: usize,
) -> Option<Change> {
    let (ma, mb) = (ra.len(), rb.len());
    let (va, vb) = (&inst.vehicles[ra.vehicle], &inst.vehicles[rb.vehicle]);
    if va.end != vb.end || (i == ma && j == mb) {
        return None;
    }
    let c = |x: usize, y: usize| inst.cost(x, y);
    let (lu, na) = (last(inst, ra, i), next(inst, ra, i));
    let (lv, nb) = (last(inst, rb, j), next(inst, rb, j));
    let used = |n: usize| i64::from(n > 0);
    let vehicles = used(i + mb - j) + used(j + ma - i) - used(ma) - used(mb);
    let delta = c(lu, nb) + c(lv, na) - c(lu, na) - c(lv, nb) + inst.vehicle_cost * vehicles;
    if delta >= 0 {
        return None;
    }
    let ok = allows(inst, ra, i, rb, j);
    ok.then(|| Change {
        a: joined(ra, i, rb, j),
        b: joined(rb, j, ra, i),
        delta,
    })
}

/// Whether the exchange keeps both routes feasible: from the caches when they decide, else by
/// re-simulating both new routes.
pub(super) fn allows(inst: &Instance, ra: &Route, i: usize, rb: &Route, j: usize) -> bool {
    if decidable(inst, ra, rb) {
        fits(inst, ra, i, rb, j)
            && fits(inst, rb, j, ra, i)
            && (inst.n_jobs == inst.tasks.len()
                || (whole_tail(inst, &ra.nodes[i..]) && whole_tail(inst, &rb.nodes[j..])))
    } else {
        simulated(inst, ra, i, rb, j)
    }
}

/// [`allows`] by re-simulating both new routes (and checking their eligibility).
pub(super) fn simulated(inst: &Instance, ra: &Route, i: usize, rb: &Route, j: usize) -> bool {
    let (a, b) = (joined(ra, i, rb, j), joined(rb, j, ra, i));
    allowed(inst, ra.vehicle, &a)
        && allowed(inst, rb.vehicle, &b)
        && feasible(inst, ra.vehicle, &a)
        && feasible(inst, rb.vehicle, &b)
}

/// Decides every exchange between two used routes of `s`, from the caches when `cached` (they
/// must decide there) or by re-simulation; returns how many exchanges were decided and how
/// many were feasible. The micro-benchmarks time the two ways against each other.
pub(crate) fn decide_all(inst: &Instance, s: &State, cached: bool) -> (u64, u64) {
    let (mut decided, mut feasible) = (0, 0);
    let used: Vec<&Route> = s.routes.iter().filter(|r| !r.is_empty()).collect();
    for (a, ra) in used.iter().enumerate() {
        for rb in &used[a + 1..] {
            for i in 0..=ra.len() {
                for j in 0..=rb.len() {
                    let ok = if cached {
                        allows(inst, ra, i, rb, j)
                    } else {
                        simulated(inst, ra, i, rb, j)
                    };
                    decided += 1;
                    feasible += u64::from(ok);
                }
            }
        }
    }
    (decided, feasible)
}

/// Whether the routes' caches decide an exchange: one class of vehicles (so a tail's latest
/// times, loads and eligibility hold on either) with no breaks and no duration or travel limit.
pub(super) fn decidable(inst: &Instance, ra: &Route, rb: &Route) -> bool {
    let (va, vb) = (&inst.vehicles[ra.vehicle], &inst.vehicles[rb.vehicle]);
    va.class == vb.class && va.breaks.is_empty() && va.fast && limits::no_travel_limit(va)
}

/// Whether `ra`'s first `i` visits followed by `rb`'s after its first `j` fit on `ra`'s
/// vehicle, by the caches alone (see [`decidable`]: without breaks, position `k` of a route is
/// its `k`-th visit).
fn fits(inst: &Instance, ra: &Route, i: usize, rb: &Route, j: usize) -> bool {
    let vd = &inst.vehicles[ra.vehicle];
    let mb = rb.len();
    if !limits::tasks_fit(vd, i + mb - j)
        || !rb.fits_from(inst, j + 1, ra.es[i] + ra.busy[i], ra.locs[i])
    {
        return false;
    }
    ra.load_caches(inst)
        .fits_exchange(i, &rb.load_caches(inst), j)
}

/// Location of the `i`-th visit of `r` (the vehicle's start for 0).
fn last(inst: &Instance, r: &Route, i: usize) -> usize {
    match i {
        0 => inst.vehicles[r.vehicle].start,
        _ => inst.loc[r.nodes[i - 1] as usize],
    }
}

/// Location of the visit after the `i`-th of `r` (the vehicle's end after the last).
fn next(inst: &Instance, r: &Route, i: usize) -> usize {
    match r.nodes.get(i) {
        Some(&x) => inst.loc[x as usize],
        None => inst.vehicles[r.vehicle].end,
    }
}

/// `ra`'s first `i` visits followed by `rb`'s after its first `j`.
pub(super) fn joined(ra: &Route, i: usize, rb: &Route, j: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(i + rb.len() - j);
    out.extend_from_slice(&ra.nodes[..i]);
    out.extend_from_slice(&rb.nodes[j..]);
    out
}
