//! Times a given sequence of visits for one vehicle of a built problem, with the solver's timing
//! rules (see [`crate::solver`]): travel from the matrix, waiting for a window to open, breaks
//! taken between visits. Strict mode reports the first constraint a sequence breaks; lenient
//! mode (for sequences a dispatcher fixed) times it anyway, starting late visits on arrival.
//!
//! Breaks are placed greedily: a pending break is taken before travelling on when waiting for
//! the next visit to finish would start it too late.

use super::BuiltDay;
use crate::solver::problem::{Place, Time, TimeWindow};
use crate::solver::solution::{Reason, Route, ScheduledStep, Step};

/// Whether broken constraints fail the timing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Any broken constraint is an error naming it.
    Strict,
    /// Late visits start on arrival; loads, skills and shift limits are not checked.
    Lenient,
}

/// The earliest start at or after `t` inside `windows` (any time when there are none).
fn earliest(windows: &[TimeWindow], t: Time) -> Option<Time> {
    if windows.is_empty() {
        return Some(t);
    }
    windows.iter().find(|w| w.end >= t).map(|w| w.start.max(t))
}

fn place(built: &BuiltDay, step: Step) -> &Place {
    let p = &built.problem;
    match step {
        Step::Job(i) => &p.jobs[i].place,
        Step::Pickup(i) => &p.shipments[i].pickup,
        Step::Delivery(i) => &p.shipments[i].delivery,
        Step::Break(_) => unreachable!("breaks are placed by the simulation"),
    }
}

/// Loads, skills and pinning of the visits on vehicle `v`.
fn check_assignment(built: &BuiltDay, v: usize, steps: &[Step]) -> Result<(), Reason> {
    let p = &built.problem;
    let vehicle = &p.vehicles[v];
    let mut load: Vec<i64> = vec![0; p.dimensions];
    for s in steps {
        let (skills, pinned) = match *s {
            Step::Job(i) => {
                for (l, d) in load.iter_mut().zip(&p.jobs[i].delivery) {
                    *l += d;
                }
                (&p.jobs[i].skills, p.jobs[i].pinned_vehicle)
            }
            Step::Pickup(i) | Step::Delivery(i) => {
                (&p.shipments[i].skills, p.shipments[i].pinned_vehicle)
            }
            Step::Break(_) => continue,
        };
        if pinned.is_some_and(|x| x != v) {
            return Err(Reason::NoVehicle);
        }
        if !skills.is_subset_of(&vehicle.skills) {
            return Err(Reason::Skills);
        }
    }
    let fits = |load: &[i64]| load.iter().zip(&vehicle.capacity).all(|(l, c)| l <= c);
    if !fits(&load) {
        return Err(Reason::Capacity);
    }
    for s in steps {
        let (minus, plus): (&[i64], &[i64]) = match *s {
            Step::Job(i) => (&p.jobs[i].delivery, &p.jobs[i].pickup),
            Step::Pickup(i) => (&[], &p.shipments[i].amount),
            Step::Delivery(i) => (&p.shipments[i].amount, &[]),
            Step::Break(_) => continue,
        };
        for (d, l) in load.iter_mut().enumerate() {
            *l += plus.get(d).copied().unwrap_or(0) - minus.get(d).copied().unwrap_or(0);
        }
        if !fits(&load) {
            return Err(Reason::Capacity);
        }
    }
    Ok(())
}

/// Times `steps` (visits only) on vehicle `v`, inserting its breaks.
pub(crate) fn simulate(
    built: &BuiltDay,
    v: usize,
    steps: &[Step],
    mode: Mode,
) -> Result<Route, Reason> {
    let p = &built.problem;
    let m = &p.matrix;
    let vehicle = &p.vehicles[v];
    if mode == Mode::Strict {
        check_assignment(built, v, steps)?;
        if vehicle.max_tasks.is_some_and(|n| steps.len() > n) {
            return Err(Reason::Shift);
        }
    }
    let shift = vehicle.shift;
    let break_windows = |i: usize| -> Vec<TimeWindow> {
        let w = &vehicle.breaks[i].time_windows;
        if w.is_empty() {
            vec![shift]
        } else {
            w.clone()
        }
    };
    let mut pending: Vec<usize> = (0..vehicle.breaks.len()).collect();
    let mut out: Vec<ScheduledStep> = Vec::with_capacity(steps.len() + pending.len());
    let mut t = shift.start;
    let mut prev = vehicle.start;
    let mut travel_total = 0;
    let take_break = |i: usize, t: &mut Time, out: &mut Vec<ScheduledStep>| {
        let start = match earliest(&break_windows(i), *t) {
            Some(s) => s,
            None if mode == Mode::Lenient => *t,
            None => return Err(Reason::Shift),
        };
        out.push(ScheduledStep {
            step: Step::Break(i),
            arrival: *t,
            service_start: start,
        });
        *t = start + vehicle.breaks[i].service;
        Ok(())
    };
    for &s in steps {
        let pl = place(built, s);
        let travel = prev.map_or(0, |a| m.duration(a, pl.location));
        let setup = if prev == Some(pl.location) {
            0
        } else {
            pl.setup
        };
        if prev.is_some() || !out.is_empty() {
            // Take a pending break now when it could not start after the next visit.
            let next_start = earliest(&pl.time_windows, t + travel).unwrap_or(t + travel);
            let next_done = next_start + setup + pl.service;
            let mut k = 0;
            while k < pending.len() {
                let i = pending[k];
                let latest = break_windows(i).last().map_or(Time::MAX, |w| w.end);
                if next_done > latest {
                    take_break(i, &mut t, &mut out)?;
                    pending.remove(k);
                } else {
                    k += 1;
                }
            }
        }
        let arrival = t + travel;
        let start = match earliest(&pl.time_windows, arrival) {
            Some(s) => s,
            None if mode == Mode::Lenient => arrival,
            None => return Err(Reason::TimeWindow),
        };
        out.push(ScheduledStep {
            step: s,
            arrival,
            service_start: start,
        });
        travel_total += travel;
        t = start + setup + pl.service;
        prev = Some(pl.location);
    }
    for i in pending {
        take_break(i, &mut t, &mut out)?;
    }
    let end_travel = match (prev, vehicle.end) {
        (Some(a), Some(b)) => m.duration(a, b),
        _ => 0,
    };
    travel_total += end_travel;
    let end_time = t + end_travel;
    // Leave as late as the first visit allows instead of waiting there.
    let mut start_time = shift.start;
    if let Some(first) = out.first_mut() {
        if vehicle.start.is_none() {
            start_time = first.service_start;
            first.arrival = first.service_start;
        } else if !matches!(first.step, Step::Break(_)) {
            start_time += first.service_start - first.arrival;
            first.arrival = first.service_start;
        }
    }
    if mode == Mode::Strict {
        let too_long = vehicle
            .max_duration
            .is_some_and(|d| end_time - start_time > d)
            || vehicle.max_travel_time.is_some_and(|d| travel_total > d);
        if end_time > shift.end || too_long {
            return Err(Reason::Shift);
        }
    }
    Ok(Route {
        vehicle: v,
        start_time,
        end_time,
        steps: out,
    })
}
