//! Full re-simulation of one route: places the vehicle's breaks, checks every constraint and
//! yields the timetable. Used for the final output and, on vehicles whose routes cannot be
//! checked from cached arrays (breaks, duration limits, set-up times), for every candidate.
//!
//! Timing rules (shared with the harness's checker): travel, then wait until a window opens;
//! the window bounds the start of service; set-up (when arriving from another location than
//! the previous one, the start location included; always at the first visit of an open-start
//! route) and service follow the start. A break has no
//! location: it is taken where the vehicle is, before it travels on.
//!
//! Feasibility is judged on the schedule that leaves as late as the shift allows (the least
//! duration, for `max_duration`). The timetable written out is VROOM's: the route reaches its
//! end as early as possible, leaves its start as late as that allows (no waiting that a later
//! departure avoids), and every visit is at the earliest time after that departure. Only when
//! that timetable breaks `max_duration` (possible with several windows per visit) is the
//! least-duration one written instead.

use super::instance::{earliest_in, latest_in, Instance, BREAK, INF};
use super::problem::{Time, TimeWindow};
use super::solution::{ScheduledStep, Step};

#[derive(Clone, Copy)]
struct Elem {
    /// Node index, or `!break_index` for a break.
    id: i64,
    leg: Time,
    busy: Time,
}

/// The route's start and end time when feasible.
pub(crate) struct Timing {
    pub start: Time,
    pub end: Time,
}

fn elem_windows<'a>(inst: &'a Instance, v: usize, e: &Elem) -> &'a [TimeWindow] {
    if e.id >= 0 {
        inst.windows(e.id as usize)
    } else {
        &inst.vehicles[v].breaks[!e.id as usize].windows
    }
}

fn forward(inst: &Instance, v: usize, elems: &[Elem], depart: Time, es: &mut Vec<Time>) -> Time {
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

/// Latest starts of the elements for a route that reaches its end by `end_by`.
fn backward(
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

/// The visits as schedule elements, and the last leg to the end; `None` beyond `max_tasks` or
/// `max_travel_time`.
fn elements(inst: &Instance, v: usize, nodes: &[u32]) -> Option<(Vec<Elem>, Time)> {
    let vd = &inst.vehicles[v];
    if nodes.len() > vd.max_tasks {
        return None;
    }
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
    travel += end_leg;
    (travel <= vd.max_travel).then_some((elems, end_leg))
}

/// Places the vehicle's breaks (each at the first gap where it fits, in the order of their
/// windows); `None` when one fits nowhere.
fn place_breaks(
    inst: &Instance,
    v: usize,
    elems: &mut Vec<Elem>,
    end_leg: Time,
    es: &mut Vec<Time>,
    ls: &mut Vec<Time>,
) -> Option<()> {
    let vd = &inst.vehicles[v];
    if elems.is_empty() {
        return Some(());
    }
    let mut order: Vec<usize> = (0..vd.breaks.len()).collect();
    order.sort_by_key(|&b| (vd.breaks[b].windows.first().map(|w| w.start), b));
    for b in order {
        place_break(inst, v, elems, end_leg, b, es, ls)?;
    }
    Some(())
}

/// The visits of `nodes` with the vehicle's breaks where [`simulate`] takes them: a visit is its
/// node, break `b` is `BREAK | b`. False (and `out` holds only the visits) when a break fits
/// nowhere or a route limit is exceeded.
pub(crate) fn arrange(inst: &Instance, v: usize, nodes: &[u32], out: &mut Vec<u32>) -> bool {
    out.clear();
    let placed = elements(inst, v, nodes).and_then(|(mut elems, end_leg)| {
        let (mut es, mut ls) = (Vec::new(), Vec::new());
        place_breaks(inst, v, &mut elems, end_leg, &mut es, &mut ls)?;
        Some(elems)
    });
    match placed {
        Some(elems) => {
            out.extend(elems.iter().map(|e| {
                if e.id >= 0 {
                    e.id as u32
                } else {
                    BREAK | !e.id as u32
                }
            }));
            true
        }
        None => {
            out.extend_from_slice(nodes);
            false
        }
    }
}

/// Simulates `nodes` on vehicle `v`; `None` when any constraint is violated. With `out`, the
/// scheduled steps (breaks included) are written there.
pub(crate) fn simulate(
    inst: &Instance,
    v: usize,
    nodes: &[u32],
    out: Option<&mut Vec<ScheduledStep>>,
) -> Option<Timing> {
    let vd = &inst.vehicles[v];
    let (mut elems, end_leg) = elements(inst, v, nodes)?;
    let (mut es, mut ls) = (Vec::new(), Vec::new());
    place_breaks(inst, v, &mut elems, end_leg, &mut es, &mut ls)?;
    let arrive = forward(inst, v, &elems, vd.shift.start, &mut es) + end_leg;
    if arrive > vd.shift.end {
        return None;
    }
    backward(inst, v, &elems, vd.shift.end, end_leg, &mut ls);
    let latest_departure = |ls: &[Time]| match elems.first() {
        Some(e) => (ls[0] - e.leg).min(vd.shift.end),
        None => vd.shift.start,
    };
    let mut depart = latest_departure(&ls);
    if depart < vd.shift.start {
        return None;
    }
    let mut end = forward(inst, v, &elems, depart, &mut es) + end_leg;
    let too_long = |depart: Time, end: Time| vd.max_duration.is_some_and(|d| end - depart > d);
    if end > vd.shift.end || too_long(depart, end) {
        return None;
    }
    if let Some(out) = out {
        // The earliest end is `arrive`; leave as late as still reaches it.
        backward(inst, v, &elems, arrive, end_leg, &mut ls);
        let early = latest_departure(&ls).max(vd.shift.start);
        let mut early_es = Vec::with_capacity(elems.len());
        let early_end = forward(inst, v, &elems, early, &mut early_es) + end_leg;
        if early_end <= vd.shift.end && !too_long(early, early_end) {
            (depart, end, es) = (early, early_end, early_es);
        }
        out.clear();
        let mut t = depart;
        for (e, &s) in elems.iter().zip(&es) {
            let step = if e.id >= 0 {
                let n = e.id as usize;
                let task = inst.node_task[n] as usize;
                if task < inst.n_jobs {
                    Step::Job(task)
                } else if inst.tasks[task].first as usize == n {
                    Step::Pickup(task - inst.n_jobs)
                } else {
                    Step::Delivery(task - inst.n_jobs)
                }
            } else {
                Step::Break(!e.id as usize)
            };
            out.push(ScheduledStep {
                step,
                arrival: t + e.leg,
                service_start: s,
            });
            t = s + e.busy;
        }
    }
    Some(Timing { start: depart, end })
}

/// Inserts break `b` at the first gap where it fits beside the elements placed so far.
fn place_break(
    inst: &Instance,
    v: usize,
    elems: &mut Vec<Elem>,
    end_leg: Time,
    b: usize,
    es: &mut Vec<Time>,
    ls: &mut Vec<Time>,
) -> Option<()> {
    let vd = &inst.vehicles[v];
    let br = &vd.breaks[b];
    forward(inst, v, elems, vd.shift.start, es);
    backward(inst, v, elems, vd.shift.end, end_leg, ls);
    let m = elems.len();
    for g in 0..=m {
        if g > 0 && es[g - 1] >= INF {
            return None;
        }
        let dep = if g == 0 {
            vd.shift.start
        } else {
            es[g - 1] + elems[g - 1].busy
        };
        let s = earliest_in(&br.windows, dep);
        if s >= INF {
            return None;
        }
        let ok = if g < m {
            s + br.service + elems[g].leg <= ls[g]
        } else {
            s + br.service + end_leg <= vd.shift.end
        };
        if ok {
            elems.insert(
                g,
                Elem {
                    id: !(b as i64),
                    leg: 0,
                    busy: br.service,
                },
            );
            return Some(());
        }
    }
    None
}
