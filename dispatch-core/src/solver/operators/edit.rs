//! Evaluating a few edits of one route (visits removed, visits inserted) from its cached arrays:
//! the prefix before the first edit is unchanged (its earliest times and load maxima are
//! cached), the span between the first and the last edit is walked element by element, and the
//! suffix after the last edit is decided by its cached latest departures and load maxima
//! ([`Route::fits_from`], `smax`). A single removal, an in-place exchange or an insertion next
//! to a removal is O(1); edits far apart cost the span between them. No full re-simulation,
//! except on vehicles the caches cannot decide (a duration limit, or several breaks that the
//! simulation may re-place), where an improving edit is confirmed by [`feasible`].

use crate::solver::constraint::windows::depart;
use crate::solver::constraint::{breaks, capacity, feasible, limits};
use crate::solver::instance::Instance;
use crate::solver::problem::Time;
use crate::solver::route::{is_break, Route};

/// One change of a route, by positions of its elements (visits and breaks, see [`Route`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Edit {
    /// The visit at this position is taken out.
    Remove(usize),
    /// The node is visited in the gap after this position (several insertions after one
    /// position go in their order in the list).
    Insert { after: usize, node: u32 },
}

impl Edit {
    /// Order of the edits along the route: an insertion after `k` comes before the removal of
    /// `k + 1`.
    fn key(&self) -> usize {
        match *self {
            Edit::Remove(k) => 2 * k,
            Edit::Insert { after, .. } => 2 * after + 1,
        }
    }

    /// The last position left as it was before this edit.
    fn anchor(&self) -> usize {
        match *self {
            Edit::Remove(k) => k - 1,
            Edit::Insert { after, .. } => after,
        }
    }
}

/// The change of routing cost when `edits` (sorted by [`Edit`] order, removals of visits only)
/// are applied to `r`, or `None` when the edited route breaks a constraint.
pub(super) fn evaluate(inst: &Instance, r: &Route, edits: &[Edit]) -> Option<i64> {
    debug_assert!(edits.windows(2).all(|w| w[0].key() <= w[1].key()));
    let first = edits.first()?;
    let vd = &inst.vehicles[r.vehicle];
    let dims = inst.dims;
    let m = r.elements();
    let removed = edits
        .iter()
        .filter(|e| matches!(e, Edit::Remove(_)))
        .count();
    let inserted = edits.len() - removed;
    if !limits::tasks_fit(vd, r.len() + inserted - removed) {
        return None;
    }
    // Load offset against the cached loads: before the first edit, the start load changes by
    // the inserted visits' start loads less the removed ones'.
    let mut offset = vec![0; dims];
    for e in edits {
        let (node, sign) = match *e {
            Edit::Remove(k) => (r.pnode[k] as usize, -1),
            Edit::Insert { node, .. } => (node as usize, 1),
        };
        let (start, _) = inst.loads(node);
        for (o, s) in offset.iter_mut().zip(start) {
            *o += sign * s;
        }
    }
    let cap = &vd.capacity;
    let over = |base: &[i64], off: &[i64]| !capacity::fits(base, off, cap);
    let start = first.anchor();
    if over(&r.pmax[start * dims..(start + 1) * dims], &offset) {
        return None;
    }
    let mut t: Time = r.es[start] + r.busy[start];
    let mut from = r.locs[start];
    let (mut old_cost, mut new_cost, mut old_tt, mut new_tt) = (0i64, 0i64, 0, 0);
    let mut old_from = r.locs[start];
    let mut load: Vec<i64> = (0..dims)
        .map(|d| r.loads[start * dims + d] + offset[d])
        .collect();
    let mut next = 0;
    let mut k = start + 1;
    loop {
        // Insertions in the gap before position k.
        while let Some(&Edit::Insert { after, node }) = edits.get(next) {
            if after != k - 1 {
                break;
            }
            next += 1;
            let x = node as usize;
            let l = inst.loc[x];
            new_cost += inst.cost(from, l);
            new_tt += inst.tt(from, l);
            t = depart(inst, x, from, t)?;
            from = l;
            let (_, delta) = inst.loads(x);
            for d in 0..dims {
                offset[d] += delta[d];
                load[d] += delta[d];
            }
            if !capacity::within(&load, cap) {
                return None;
            }
        }
        let removing = matches!(edits.get(next), Some(&Edit::Remove(x)) if x == k);
        if next == edits.len() {
            // Past the last edit: the cached suffix decides.
            let to = r.nloc[k];
            old_cost += inst.cost(old_from, to);
            old_tt += inst.tt(old_from, to);
            new_cost += inst.cost(from, to);
            new_tt += inst.tt(from, to);
            if k <= m && over(&r.smax[k * dims..(k + 1) * dims], &offset) {
                return None;
            }
            if !limits::travel_fits(vd, r.travel + new_tt - old_tt)
                || !r.fits_from(inst, k, t, from)
            {
                return None;
            }
            break;
        }
        let x = r.pnode[k];
        if is_break(x) {
            t = r.leave_break(inst, k, t)?;
        } else {
            let x = x as usize;
            let l = r.locs[k];
            old_cost += inst.cost(old_from, l);
            old_tt += inst.tt(old_from, l);
            old_from = l;
            let (_, delta) = inst.loads(x);
            if removing {
                next += 1;
                for (o, d) in offset.iter_mut().zip(delta) {
                    *o -= d;
                }
            } else {
                new_cost += inst.cost(from, l);
                new_tt += inst.tt(from, l);
                t = depart(inst, x, from, t)?;
                from = l;
                for d in 0..dims {
                    load[d] = r.loads[k * dims + d] + offset[d];
                }
                if !capacity::within(&load, cap) {
                    return None;
                }
            }
        }
        k += 1;
    }
    let delta = new_cost - old_cost;
    if !vd.fast || breaks::may_move(vd) {
        let nodes = edited(r, edits);
        if !feasible(inst, r.vehicle, &nodes) {
            return None;
        }
    }
    Some(delta)
}

/// The route's visits with `edits` applied.
pub(super) fn edited(r: &Route, edits: &[Edit]) -> Vec<u32> {
    let m = r.elements();
    let mut out = Vec::with_capacity(r.len() + edits.len());
    let mut next = 0;
    for k in 0..=m {
        if k > 0 {
            let removed = matches!(edits.get(next), Some(&Edit::Remove(x)) if x == k);
            if removed {
                next += 1;
            } else if !is_break(r.pnode[k]) {
                out.push(r.pnode[k]);
            }
        }
        while let Some(&Edit::Insert { after, node }) = edits.get(next) {
            if after != k {
                break;
            }
            out.push(node);
            next += 1;
        }
    }
    out
}

/// Position of visit `node` among the route's elements.
pub(super) fn position(r: &Route, node: u32) -> Option<usize> {
    r.pnode.iter().position(|&x| x == node)
}
