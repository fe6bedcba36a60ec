//! Re-simulation of one route: times, loads, precedence, skills and route limits.

use super::{describe, earliest_in, violation, Code, Violation};
use crate::solver::problem::{Distance, Load, LocationIndex, Place, Problem, Time, Vehicle};
use crate::solver::solution::{Route, ScheduledStep, Step};

/// What one route contributes to the solution's figures.
#[derive(Default)]
pub(super) struct Figures {
    pub distance: Distance,
    pub travel_time: Time,
    pub tasks: usize,
}

/// The place of a task step, `None` for breaks and unknown indices.
fn place(problem: &Problem, step: Step) -> Option<&Place> {
    match step {
        Step::Job(i) => problem.jobs.get(i).map(|j| &j.place),
        Step::Pickup(i) => problem.shipments.get(i).map(|s| &s.pickup),
        Step::Delivery(i) => problem.shipments.get(i).map(|s| &s.delivery),
        Step::Break(_) => None,
    }
}

/// The simulated schedule of a step sequence.
struct Simulation {
    /// `(arrival, visit start)` per step.
    times: Vec<(Time, Time)>,
    end: Time,
    distance: Distance,
    travel_time: Time,
    /// `(step, code, message)` of every window missed.
    late: Vec<(Option<usize>, Code, String)>,
}

fn simulate(problem: &Problem, vehicle: &Vehicle, start_time: Time, steps: &[Step]) -> Simulation {
    let m = &problem.matrix;
    let mut sim = Simulation {
        times: Vec::with_capacity(steps.len()),
        end: start_time,
        distance: 0,
        travel_time: 0,
        late: Vec::new(),
    };
    let mut t = start_time;
    let mut at: Option<LocationIndex> = vehicle.start;
    for (k, &step) in steps.iter().enumerate() {
        if let Step::Break(b) = step {
            let Some(brk) = vehicle.breaks.get(b) else {
                sim.times.push((t, t));
                continue;
            };
            let start = earliest_in(&brk.time_windows, t).unwrap_or_else(|| {
                sim.late.push((
                    Some(k),
                    Code::BreakWindow,
                    format!(
                        "break {} cannot start at or after {t} inside its windows",
                        brk.id
                    ),
                ));
                t
            });
            sim.times.push((t, start));
            t = start + brk.service;
            continue;
        }
        let Some(p) = place(problem, step) else {
            sim.times.push((t, t));
            continue;
        };
        let arrival = match at {
            Some(from) => {
                sim.travel_time += m.duration(from, p.location);
                sim.distance += m.distance(from, p.location);
                t + m.duration(from, p.location)
            }
            None => t,
        };
        let start = earliest_in(&p.time_windows, arrival).unwrap_or_else(|| {
            let last = p.time_windows.last().map_or(0, |w| w.end);
            sim.late.push((
                Some(k),
                Code::TimeWindow,
                format!("arrives at {arrival}, after its last window ends at {last}"),
            ));
            arrival
        });
        let setup = if at == Some(p.location) { 0 } else { p.setup };
        sim.times.push((arrival, start));
        t = start + setup + p.service;
        at = Some(p.location);
    }
    if let (Some(from), Some(to)) = (at, vehicle.end) {
        sim.travel_time += m.duration(from, to);
        sim.distance += m.distance(from, to);
        t += m.duration(from, to);
    }
    sim.end = t;
    if t > vehicle.shift.end {
        sim.late.push((
            None,
            Code::ShiftEnd,
            format!("ends at {t}, after the shift end {}", vehicle.shift.end),
        ));
    }
    sim
}

/// The earliest timetable of `steps`: `(departure, end)` of the schedule that reaches the end
/// as early as possible and leaves as late as that allows; `None` when no departure is on time.
///
/// Later departures never end earlier, so the departures that reach the earliest end form an
/// interval starting at the shift start; its last point is found by bisection.
fn earliest_timetable(
    problem: &Problem,
    vehicle: &Vehicle,
    steps: &[Step],
) -> Option<(Time, Time)> {
    let first = simulate(problem, vehicle, vehicle.shift.start, steps);
    if !first.late.is_empty() {
        return None;
    }
    let end = first.end;
    let (mut lo, mut hi) = (vehicle.shift.start, end.max(vehicle.shift.start));
    while lo < hi {
        let mid = lo + (hi - lo + 1) / 2;
        let sim = simulate(problem, vehicle, mid, steps);
        if sim.late.is_empty() && sim.end == end {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some((lo, end))
}

pub(super) fn schedule(problem: &Problem, vehicle: usize, steps: &[Step]) -> Route {
    let (start_time, times, end_time) = match problem.vehicles.get(vehicle) {
        Some(v) => {
            let start = earliest_timetable(problem, v, steps).map_or(v.shift.start, |(s, _)| s);
            let sim = simulate(problem, v, start, steps);
            (start, sim.times, sim.end)
        }
        None => (0, vec![(0, 0); steps.len()], 0),
    };
    Route {
        vehicle,
        start_time,
        end_time,
        steps: steps
            .iter()
            .zip(times)
            .map(|(&step, (arrival, service_start))| ScheduledStep {
                step,
                arrival,
                service_start,
            })
            .collect(),
    }
}

/// Amounts a step changes: `(loaded at the start, dropped, collected)`.
fn amounts(problem: &Problem, step: Step) -> (&[Load], &[Load], &[Load]) {
    const NONE: &[Load] = &[];
    match step {
        Step::Job(i) => {
            let j = &problem.jobs[i];
            (&j.delivery, &j.delivery, &j.pickup)
        }
        Step::Pickup(i) => (NONE, NONE, &problem.shipments[i].amount),
        Step::Delivery(i) => (NONE, &problem.shipments[i].amount, NONE),
        Step::Break(_) => (NONE, NONE, NONE),
    }
}

fn exists(problem: &Problem, vehicle: &Vehicle, step: Step) -> bool {
    match step {
        Step::Break(b) => b < vehicle.breaks.len(),
        _ => place(problem, step).is_some(),
    }
}

pub(super) fn check(problem: &Problem, r: usize, route: &Route, v: &mut Vec<Violation>) -> Figures {
    let Some(vehicle) = problem.vehicles.get(route.vehicle) else {
        return Figures::default();
    };
    let at = |k: usize, code: Code, message: String| violation(code, Some(r), Some(k), message);
    let steps: Vec<Step> = route.steps.iter().map(|s| s.step).collect();
    if let Some(k) = steps.iter().position(|&s| !exists(problem, vehicle, s)) {
        v.push(at(
            k,
            Code::UnknownTask,
            format!("{:?} does not exist", steps[k]),
        ));
        return Figures::default();
    }
    let tasks = steps
        .iter()
        .filter(|s| !matches!(s, Step::Break(_)))
        .count();
    if tasks == 0 {
        v.push(violation(
            Code::EmptyRoute,
            Some(r),
            None,
            "the route visits no task".into(),
        ));
    }

    // Skills, pinning, precedence.
    for (k, &step) in steps.iter().enumerate() {
        let (skills, pinned) = match step {
            Step::Job(i) => (&problem.jobs[i].skills, problem.jobs[i].pinned_vehicle),
            Step::Pickup(i) | Step::Delivery(i) => (
                &problem.shipments[i].skills,
                problem.shipments[i].pinned_vehicle,
            ),
            Step::Break(_) => continue,
        };
        let name = describe(problem, route.vehicle, &route.steps[k]);
        if !skills.is_subset_of(&vehicle.skills) {
            v.push(at(
                k,
                Code::Skills,
                format!("vehicle {} lacks a skill {name} requires", vehicle.id),
            ));
        }
        if pinned.is_some_and(|p| p != route.vehicle) {
            v.push(at(
                k,
                Code::PinnedVehicle,
                format!("{name} is pinned to another vehicle"),
            ));
        }
        if let Step::Delivery(i) = step {
            match steps.iter().position(|&s| s == Step::Pickup(i)) {
                Some(pk) if pk > k => v.push(at(
                    k,
                    Code::DeliveryBeforePickup,
                    format!("{name} comes before its pickup at step {pk}"),
                )),
                Some(_) => {}
                None => v.push(at(
                    k,
                    Code::ShipmentSplit,
                    format!("{name} without its pickup on this route"),
                )),
            }
        }
        if let Step::Pickup(i) = step {
            if !steps.contains(&Step::Delivery(i)) {
                v.push(at(
                    k,
                    Code::ShipmentSplit,
                    format!("{name} without its delivery on this route"),
                ));
            }
        }
    }
    for b in 0..vehicle.breaks.len() {
        match steps.iter().filter(|&&s| s == Step::Break(b)).count() {
            0 if tasks > 0 => v.push(violation(
                Code::BreakMissing,
                Some(r),
                None,
                format!(
                    "break {} of vehicle {} is not taken",
                    vehicle.breaks[b].id, vehicle.id
                ),
            )),
            0 | 1 => {}
            n => v.push(violation(
                Code::BreakRepeated,
                Some(r),
                None,
                format!("break {} is taken {n} times", vehicle.breaks[b].id),
            )),
        }
    }

    // Load profile, per dimension.
    let dims = problem.dimensions;
    let mut load = vec![0 as Load; dims];
    for &s in &steps {
        for (d, a) in amounts(problem, s).0.iter().enumerate().take(dims) {
            load[d] += a;
        }
    }
    let over = |load: &[Load]| {
        (0..dims).find(|&d| load[d] > vehicle.capacity.get(d).copied().unwrap_or(0))
    };
    if let Some(d) = over(&load) {
        v.push(violation(
            Code::Capacity,
            Some(r),
            None,
            format!(
                "leaves with load {} in dimension {d}, capacity {}",
                load[d],
                vehicle.capacity.get(d).copied().unwrap_or(0)
            ),
        ));
    }
    for (k, &s) in steps.iter().enumerate() {
        let (_, dropped, collected) = amounts(problem, s);
        for (d, a) in dropped.iter().enumerate().take(dims) {
            load[d] -= a;
        }
        for (d, a) in collected.iter().enumerate().take(dims) {
            load[d] += a;
        }
        if let Some(d) = over(&load) {
            v.push(at(
                k,
                Code::Capacity,
                format!(
                    "load {} in dimension {d} after this visit, capacity {}",
                    load[d],
                    vehicle.capacity.get(d).copied().unwrap_or(0)
                ),
            ));
        }
    }

    // Times.
    if route.start_time < vehicle.shift.start {
        v.push(violation(
            Code::ShiftStart,
            Some(r),
            None,
            format!(
                "leaves at {}, before the shift start {}",
                route.start_time, vehicle.shift.start
            ),
        ));
    }
    let sim = simulate(problem, vehicle, route.start_time, &steps);
    let on_time = sim.late.is_empty();
    for (k, code, message) in sim.late {
        v.push(violation(code, Some(r), k, message));
    }
    let mismatch = route
        .steps
        .iter()
        .zip(&sim.times)
        .position(|(s, &(a, b))| (s.arrival, s.service_start) != (a, b));
    if let Some(k) = mismatch {
        let s = &route.steps[k];
        v.push(at(
            k,
            Code::ScheduleMismatch,
            format!(
                "reported arrival/start {}/{}, simulated {}/{}",
                s.arrival, s.service_start, sim.times[k].0, sim.times[k].1
            ),
        ));
    } else if route.end_time != sim.end {
        v.push(violation(
            Code::ScheduleMismatch,
            Some(r),
            None,
            format!("reported end {}, simulated {}", route.end_time, sim.end),
        ));
    }
    if on_time && route.start_time >= vehicle.shift.start {
        if let Some((start, end)) = earliest_timetable(problem, vehicle, &steps) {
            let too_long = vehicle.max_duration.is_some_and(|m| end - start > m);
            if (route.start_time, sim.end) != (start, end) && !too_long {
                v.push(violation(
                    Code::NotEarliest,
                    Some(r),
                    None,
                    format!(
                        "leaves at {} and ends at {}; the earliest timetable ends at {end} \
                         leaving at {start}",
                        route.start_time, sim.end
                    ),
                ));
            }
        }
    }
    if vehicle.max_tasks.is_some_and(|m| tasks > m) {
        v.push(violation(
            Code::MaxTasks,
            Some(r),
            None,
            format!("{tasks} tasks, at most {}", vehicle.max_tasks.unwrap_or(0)),
        ));
    }
    let duration = sim.end - route.start_time;
    if let Some(max) = vehicle.max_duration.filter(|&m| duration > m) {
        v.push(violation(
            Code::MaxDuration,
            Some(r),
            None,
            format!("lasts {duration}, at most {max}"),
        ));
    }
    if let Some(max) = vehicle.max_travel_time.filter(|&m| sim.travel_time > m) {
        v.push(violation(
            Code::MaxTravelTime,
            Some(r),
            None,
            format!("travels {}, at most {max}", sim.travel_time),
        ));
    }
    Figures {
        distance: sim.distance,
        travel_time: sim.travel_time,
        tasks,
    }
}
