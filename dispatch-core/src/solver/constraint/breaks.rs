//! Breaks: a used vehicle takes each of its breaks once, for its length, starting inside one
//! of its windows. A break has no location: it is taken where the vehicle is, before it travels
//! on, so it sits in a gap between two elements of the route.
//!
//! The simulation places the breaks one by one, in the order of their windows, each at the
//! first gap where it fits beside the elements placed so far ([`place`]); the route caches
//! keep them where the simulation takes them ([`arrange`]). With several breaks, a change of
//! the route may make the simulation place them differently ([`may_move`]).

use super::timing::{backward, elements, forward, Elem};
use super::windows::{earliest_in, warp_in};
use super::{Kind, Violation};
use crate::solver::instance::{Instance, VehicleData, BREAK, INF};

/// Whether a change of a route of this vehicle may move its breaks to other gaps than the
/// cached ones, so that only the simulation decides it.
#[inline]
pub(crate) fn may_move(vd: &VehicleData) -> bool {
    vd.breaks.len() > 1
}

/// Places the vehicle's breaks among `elems` (each at the first gap where it fits, in the
/// order of their windows); the first break that fits no gap, and by how much, otherwise.
pub(super) fn place(
    inst: &Instance,
    v: usize,
    elems: &mut Vec<Elem>,
    end_leg: i64,
    es: &mut Vec<i64>,
    ls: &mut Vec<i64>,
) -> Result<(), Violation> {
    if elems.is_empty() {
        return Ok(());
    }
    for b in order(&inst.vehicles[v]) {
        place_one(inst, v, elems, end_leg, b, es, ls)?;
    }
    Ok(())
}

/// [`place`] going on past a break that fits no gap: each such break is left out and
/// reported in `out`.
pub(super) fn place_each(
    inst: &Instance,
    v: usize,
    elems: &mut Vec<Elem>,
    end_leg: i64,
    out: &mut Vec<Violation>,
) {
    if elems.is_empty() {
        return;
    }
    let (mut es, mut ls) = (Vec::new(), Vec::new());
    for b in order(&inst.vehicles[v]) {
        if let Err(missed) = place_one(inst, v, elems, end_leg, b, &mut es, &mut ls) {
            out.push(missed);
        }
    }
}

/// The order in which the breaks are placed: by their first window's start.
fn order(vd: &VehicleData) -> Vec<usize> {
    let mut order: Vec<usize> = (0..vd.breaks.len()).collect();
    order.sort_by_key(|&b| (vd.breaks[b].windows.first().map(|w| w.start), b));
    order
}

/// The visits of `nodes` with the vehicle's breaks where the simulation takes them: a visit is
/// its node, break `b` is `BREAK | b`. Only the visits when a break fits nowhere or a route
/// limit is exceeded.
pub(crate) fn arrange(inst: &Instance, v: usize, nodes: &[u32], out: &mut Vec<u32>) {
    out.clear();
    let placed = elements(inst, v, nodes).and_then(|(mut elems, end_leg)| {
        let (mut es, mut ls) = (Vec::new(), Vec::new());
        place(inst, v, &mut elems, end_leg, &mut es, &mut ls)?;
        Ok(elems)
    });
    match placed {
        Ok(elems) => out.extend(elems.iter().map(|e| {
            if e.id >= 0 {
                e.id as u32
            } else {
                BREAK | !e.id as u32
            }
        })),
        Err(_) => out.extend_from_slice(nodes),
    }
}

/// Inserts break `b` at the first gap where it fits beside the elements placed so far. When
/// none fits: a [`Kind::Break`] of the least time by which a gap misses it (how late the break
/// would start, or how much it would delay the next element past its latest start).
fn place_one(
    inst: &Instance,
    v: usize,
    elems: &mut Vec<Elem>,
    end_leg: i64,
    b: usize,
    es: &mut Vec<i64>,
    ls: &mut Vec<i64>,
) -> Result<(), Violation> {
    let vd = &inst.vehicles[v];
    let br = &vd.breaks[b];
    forward(inst, v, elems, vd.shift.start, es);
    backward(inst, v, elems, vd.shift.end, end_leg, ls);
    let m = elems.len();
    let mut missed = i64::MAX;
    let broken = |missed: i64| Violation {
        kind: Kind::Break(b),
        amount: missed,
    };
    for g in 0..=m {
        if g > 0 && es[g - 1] >= INF {
            return Err(broken(missed));
        }
        let dep = if g == 0 {
            vd.shift.start
        } else {
            es[g - 1] + elems[g - 1].busy
        };
        let s = earliest_in(&br.windows, dep);
        if s >= INF {
            return Err(broken(missed.min(warp_in(&br.windows, dep))));
        }
        let (done, by) = if g < m {
            (s + br.service + elems[g].leg, ls[g])
        } else {
            (s + br.service + end_leg, vd.shift.end)
        };
        if done <= by {
            elems.insert(
                g,
                Elem {
                    id: !(b as i64),
                    leg: 0,
                    busy: br.service,
                },
            );
            return Ok(());
        }
        missed = missed.min(done.saturating_sub(by));
    }
    Err(broken(missed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::constraint::schedule::simulate;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;

    /// A job 10 away with 10 of service; the shift is `shift`, the breaks `breaks`.
    fn day(shift: TimeWindow, breaks: Vec<Break>) -> Problem {
        let mut j = job(1, 1);
        j.place.service = 10;
        Problem {
            name: "break".into(),
            matrix: plane(&[(0, 0), (10, 0)]),
            jobs: vec![j],
            shipments: vec![],
            vehicles: vec![Vehicle {
                shift,
                breaks,
                ..vehicle(1, 5)
            }],
            dimensions: 1,
            objective: Objective::Duration,
        }
    }

    fn lunch(id: u64, start: Time, end: Time, service: Time) -> Break {
        Break {
            id,
            time_windows: vec![TimeWindow { start, end }],
            service,
        }
    }

    #[test]
    fn a_break_goes_in_the_first_gap_where_it_fits() {
        let p = day(
            TimeWindow { start: 0, end: 100 },
            vec![lunch(7, 15, 30, 10)],
        );
        let inst = Instance::new(&p);
        let mut out = Vec::new();
        arrange(&inst, 0, &[0], &mut out);
        // Taken at 15 before driving out: the job then starts at 35, well before 80.
        assert_eq!(out, vec![BREAK, 0]);
        // A job that must start at 10 leaves no room before it: the break follows it at 20.
        let mut fixed = p.clone();
        fixed.jobs[0].place.time_windows = vec![TimeWindow { start: 10, end: 10 }];
        let inst = Instance::new(&fixed);
        arrange(&inst, 0, &[0], &mut out);
        assert_eq!(out, vec![0, BREAK]);
        assert!(simulate(&inst, 0, &[0], None).is_ok());
    }

    #[test]
    fn a_break_that_fits_no_gap_is_measured_by_the_least_time_a_gap_misses_it() {
        // The break must start by 5 and lasts 15; the shift ends at 40. Before the job it
        // delays the job's latest start (20) to 25; after the job (at 20) it would start 15
        // late.
        let p = day(TimeWindow { start: 0, end: 40 }, vec![lunch(9, 0, 5, 15)]);
        let inst = Instance::new(&p);
        let broken = simulate(&inst, 0, &[0], None).err();
        assert_eq!(
            broken,
            Some(Violation {
                kind: Kind::Break(0),
                amount: 5
            })
        );
        let mut out = Vec::new();
        arrange(&inst, 0, &[0], &mut out);
        assert_eq!(out, vec![0]);
    }

    #[test]
    fn an_unused_vehicle_takes_no_break() {
        let p = day(TimeWindow { start: 0, end: 40 }, vec![lunch(9, 0, 5, 15)]);
        let inst = Instance::new(&p);
        assert!(simulate(&inst, 0, &[], None).is_ok());
    }

    #[test]
    fn only_several_breaks_may_move_when_a_route_changes() {
        let shift = TimeWindow { start: 0, end: 100 };
        let one = day(shift, vec![lunch(1, 15, 30, 10)]);
        let two = day(shift, vec![lunch(1, 15, 30, 10), lunch(2, 50, 60, 5)]);
        assert!(!may_move(&Instance::new(&one).vehicles[0]));
        assert!(may_move(&Instance::new(&two).vehicles[0]));
    }
}
