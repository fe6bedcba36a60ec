//! The elements of a route in time: its visits (and breaks, once placed) as legs and busy
//! times, and the passes over them that the simulation and the break placement share: earliest
//! starts forwards from a departure, latest starts backwards from an end.

use super::limits;
use super::windows::{earliest_in, latest_in, warp_in};
use super::Violation;
use crate::solver::instance::{Instance, INF};
use crate::solver::problem::{Time, TimeWindow};

/// A visit or a break of a route: the leg into it and the time it keeps the vehicle busy.
#[derive(Clone, Copy)]
pub(super) struct Elem {
    /// Node index, or `!break_index` for a break.
    pub id: i64,
    pub leg: Time,
    pub busy: Time,
}

/// The windows of an element.
pub(super) fn elem_windows<'a>(inst: &'a Instance, v: usize, e: &Elem) -> &'a [TimeWindow] {
    if e.id >= 0 {
        inst.windows(e.id as usize)
    } else {
        &inst.vehicles[v].breaks[!e.id as usize].windows
    }
}

/// Earliest starts of the elements leaving at `depart` (an element whose windows have all
/// closed gets [`INF`] and ends the pass); the departure from the last one, or [`INF`].
pub(super) fn forward(
    inst: &Instance,
    v: usize,
    elems: &[Elem],
    depart: Time,
    es: &mut Vec<Time>,
) -> Time {
    es.clear();
    let mut t = depart;
    for e in elems {
        let s = earliest_in(elem_windows(inst, v, e), t + e.leg);
        es.push(s);
        if s >= INF {
            return INF;
        }
        t = s + e.busy;
    }
    t
}

/// The least total time warp of the elements leaving at the shift's start: a vehicle that
/// reaches an element after its windows closed travels back to the last one's end, and one
/// that reaches its end after the shift travels back to the shift's end.
pub(super) fn time_warp(inst: &Instance, v: usize, elems: &[Elem], end_leg: Time) -> Time {
    let vd = &inst.vehicles[v];
    let (mut t, mut warp) = (vd.shift.start, 0);
    for e in elems {
        let w = elem_windows(inst, v, e);
        let s = earliest_in(w, t + e.leg);
        t = if s < INF {
            s
        } else {
            warp += warp_in(w, t + e.leg);
            w[w.len() - 1].end
        } + e.busy;
    }
    warp + (t + end_leg - vd.shift.end).max(0)
}

/// Latest starts of the elements for a route that reaches its end by `end_by`.
pub(super) fn backward(
    inst: &Instance,
    v: usize,
    elems: &[Elem],
    end_by: Time,
    end_leg: Time,
    ls: &mut Vec<Time>,
) {
    let m = elems.len();
    ls.clear();
    ls.resize(m, -INF);
    let mut bound = end_by - end_leg;
    for k in (0..m).rev() {
        let s = latest_in(elem_windows(inst, v, &elems[k]), bound - elems[k].busy);
        ls[k] = s;
        if s <= -INF {
            return;
        }
        bound = s - elems[k].leg;
    }
}

/// The visits as schedule elements, and the last leg to the end; the excess when the visits
/// break `max_tasks` or `max_travel_time`.
pub(super) fn elements(
    inst: &Instance,
    v: usize,
    nodes: &[u32],
) -> Result<(Vec<Elem>, Time), Violation> {
    let vd = &inst.vehicles[v];
    if let Some(excess) = limits::excess_tasks(vd, nodes.len()) {
        return Err(excess);
    }
    let (elems, end_leg, travel) = legs(inst, v, nodes);
    match limits::excess_travel(vd, travel) {
        Some(excess) => Err(excess),
        None => Ok((elems, end_leg)),
    }
}

/// The visits as schedule elements, the last leg to the end, and the route's travel time.
pub(super) fn legs(inst: &Instance, v: usize, nodes: &[u32]) -> (Vec<Elem>, Time, Time) {
    let vd = &inst.vehicles[v];
    let mut elems = Vec::with_capacity(nodes.len() + vd.breaks.len());
    let mut prev = vd.start;
    let mut travel = 0;
    for &n in nodes {
        let n = n as usize;
        let l = inst.loc[n];
        let leg = inst.tt(prev, l);
        let setup = if l != prev { inst.setup[n] } else { 0 };
        elems.push(Elem {
            id: n as i64,
            leg,
            busy: setup + inst.service[n],
        });
        travel += leg;
        prev = l;
    }
    let end_leg = inst.tt(prev, vd.end);
    (elems, end_leg, travel + end_leg)
}
