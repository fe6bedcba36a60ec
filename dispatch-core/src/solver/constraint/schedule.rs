//! Full re-simulation of one route: places the vehicle's breaks, checks every constraint of the
//! schedule and yields the timetable, or the first constraint broken and by how much. Used for
//! the final output and, on vehicles whose routes cannot be checked from cached arrays (breaks,
//! duration limits, set-up times), for every candidate.
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

use super::timing::{self, backward, elem_windows, elements, forward, legs, Elem};
use super::windows::{time_warp, warp_in};
use super::{breaks, limits, Violation};
use crate::solver::instance::{Instance, INF};
use crate::solver::problem::Time;
use crate::solver::solution::{ScheduledStep, Step};

/// The route's start and end time when feasible.
pub(crate) struct Timing {
    pub start: Time,
    pub end: Time,
}

/// The time warp where a forward pass from `depart` (earliest starts `es`) stopped: at the
/// element whose windows had all closed, else at the end, reached at `arrive` after the shift.
fn warp(
    inst: &Instance,
    v: usize,
    elems: &[Elem],
    es: &[Time],
    depart: Time,
    arrive: Time,
) -> Violation {
    match es.last() {
        Some(&s) if s >= INF => {
            let k = es.len() - 1;
            let t = if k == 0 {
                depart
            } else {
                es[k - 1] + elems[k - 1].busy
            };
            time_warp(warp_in(elem_windows(inst, v, &elems[k]), t + elems[k].leg))
        }
        _ => time_warp(arrive - inst.vehicles[v].shift.end),
    }
}

/// Every constraint of the schedule that `nodes` breaks on vehicle `v`, each with its amount,
/// into `out`; nothing when [`simulate`] accepts the route. The limits' excesses, each break
/// that fits no gap (the others taken where they fit), and the total time warp of the visits
/// and the shift; when none of these is broken, the one [`simulate`] found (the duration, or
/// a departure the windows rule out).
pub(crate) fn measure(inst: &Instance, v: usize, nodes: &[u32], out: &mut Vec<Violation>) {
    let Err(first) = simulate(inst, v, nodes, None) else {
        return;
    };
    let vd = &inst.vehicles[v];
    let found = out.len();
    out.extend(limits::excess_tasks(vd, nodes.len()));
    let (mut elems, end_leg, travel) = legs(inst, v, nodes);
    out.extend(limits::excess_travel(vd, travel));
    breaks::place_each(inst, v, &mut elems, end_leg, out);
    let warp = timing::time_warp(inst, v, &elems, end_leg);
    if warp > 0 {
        out.push(time_warp(warp));
    }
    if out.len() == found {
        out.push(first);
    }
}

/// Simulates `nodes` on vehicle `v`: its start and end, or the first constraint it breaks
/// (limits, then breaks, then windows and shift, then duration) and by how much. With `out`,
/// the scheduled steps (breaks included) are written there.
pub(crate) fn simulate(
    inst: &Instance,
    v: usize,
    nodes: &[u32],
    out: Option<&mut Vec<ScheduledStep>>,
) -> Result<Timing, Violation> {
    let vd = &inst.vehicles[v];
    let (mut elems, end_leg) = elements(inst, v, nodes)?;
    let (mut es, mut ls) = (Vec::new(), Vec::new());
    breaks::place(inst, v, &mut elems, end_leg, &mut es, &mut ls)?;
    let arrive = forward(inst, v, &elems, vd.shift.start, &mut es) + end_leg;
    if arrive > vd.shift.end {
        return Err(warp(inst, v, &elems, &es, vd.shift.start, arrive));
    }
    backward(inst, v, &elems, vd.shift.end, end_leg, &mut ls);
    let latest_departure = |ls: &[Time]| match elems.first() {
        Some(e) => (ls[0] - e.leg).min(vd.shift.end),
        None => vd.shift.start,
    };
    let mut depart = latest_departure(&ls);
    if depart < vd.shift.start {
        return Err(time_warp(vd.shift.start - depart));
    }
    let mut end = forward(inst, v, &elems, depart, &mut es) + end_leg;
    if end > vd.shift.end {
        return Err(warp(inst, v, &elems, &es, depart, end));
    }
    if let Some(excess) = limits::excess_duration(vd, depart, end) {
        return Err(excess);
    }
    if let Some(out) = out {
        // The earliest end is `arrive`; leave as late as still reaches it.
        backward(inst, v, &elems, arrive, end_leg, &mut ls);
        let early = latest_departure(&ls).max(vd.shift.start);
        let mut early_es = Vec::with_capacity(elems.len());
        let early_end = forward(inst, v, &elems, early, &mut early_es) + end_leg;
        if early_end <= vd.shift.end && limits::duration_fits(vd, early, early_end) {
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
    Ok(Timing { start: depart, end })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::constraint::Kind;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;

    /// Depot 0 at (0,0), jobs at (0,10) and (0,20) with no service; travel = distance.
    fn line(windows: Vec<TimeWindow>, v: Vehicle) -> Problem {
        let mut first = job(1, 1);
        first.place.time_windows = windows;
        Problem {
            name: "line".into(),
            matrix: plane(&[(0, 0), (0, 10), (0, 20)]),
            jobs: vec![first, job(2, 2)],
            shipments: vec![],
            vehicles: vec![v],
            dimensions: 1,
            objective: Objective::Duration,
        }
    }

    fn broken(p: &Problem, nodes: &[u32]) -> Option<Violation> {
        simulate(&Instance::new(p), 0, nodes, None).err()
    }

    fn violation(kind: Kind, amount: i64) -> Option<Violation> {
        Some(Violation { kind, amount })
    }

    #[test]
    fn a_route_that_keeps_every_constraint_gets_its_start_and_end() {
        let p = line(vec![], vehicle(1, 5));
        let t = simulate(&Instance::new(&p), 0, &[0, 1], None).expect("feasible");
        assert_eq!(t.end - t.start, 40);
    }

    #[test]
    fn a_visit_after_its_window_closed_is_late_by_the_time_warp() {
        // Job 1 closes at 5: reached at 10 first, at 30 after job 2.
        let p = line(vec![TimeWindow { start: 0, end: 5 }], vehicle(1, 5));
        assert_eq!(broken(&p, &[0, 1]), violation(Kind::TimeWarp, 5));
        assert_eq!(broken(&p, &[1, 0]), violation(Kind::TimeWarp, 25));
    }

    #[test]
    fn a_route_back_after_its_shift_is_late_by_the_overrun() {
        let v = Vehicle {
            shift: TimeWindow { start: 0, end: 35 },
            ..vehicle(1, 5)
        };
        assert_eq!(
            broken(&line(vec![], v), &[0, 1]),
            violation(Kind::TimeWarp, 5)
        );
    }

    #[test]
    fn each_route_limit_reports_its_excess() {
        let limited = |max_tasks, max_travel_time, max_duration| Vehicle {
            max_tasks,
            max_travel_time,
            max_duration,
            ..vehicle(1, 5)
        };
        let tasks = line(vec![], limited(Some(1), None, None));
        assert_eq!(broken(&tasks, &[0, 1]), violation(Kind::ExcessTasks, 1));
        let travel = line(vec![], limited(None, Some(35), None));
        assert_eq!(broken(&travel, &[0, 1]), violation(Kind::ExcessTravel, 5));
        // No waiting: the route lasts its 40 of driving.
        let duration = line(vec![], limited(None, None, Some(30)));
        assert_eq!(
            broken(&duration, &[0, 1]),
            violation(Kind::ExcessDuration, 10)
        );
    }

    fn measured(p: &Problem, nodes: &[u32]) -> Vec<(Kind, i64)> {
        let mut out = Vec::new();
        measure(&Instance::new(p), 0, nodes, &mut out);
        out.iter().map(|v| (v.kind, v.amount)).collect()
    }

    #[test]
    fn a_route_late_at_two_visits_is_measured_by_its_whole_time_warp() {
        // Job 2 closes at 15 and job 1 at 5: job 2 reached at 20 (5 late, back to 15), job 1
        // at 25 (20 late). The simulation stops at the first.
        let mut p = line(vec![TimeWindow { start: 0, end: 5 }], vehicle(1, 5));
        p.jobs[1].place.time_windows = vec![TimeWindow { start: 0, end: 15 }];
        assert_eq!(broken(&p, &[1, 0]), violation(Kind::TimeWarp, 5));
        assert_eq!(measured(&p, &[1, 0]), vec![(Kind::TimeWarp, 25)]);
        assert_eq!(measured(&p, &[]), vec![]);
    }

    #[test]
    fn every_broken_limit_is_measured_beside_the_time_warp() {
        let v = Vehicle {
            max_tasks: Some(1),
            max_travel_time: Some(35),
            ..vehicle(1, 5)
        };
        let p = line(vec![TimeWindow { start: 0, end: 5 }], v);
        assert_eq!(
            measured(&p, &[1, 0]),
            vec![
                (Kind::ExcessTasks, 1),
                (Kind::ExcessTravel, 5),
                (Kind::TimeWarp, 25)
            ]
        );
    }

    #[test]
    fn a_route_too_long_for_its_duration_limit_reports_the_excess() {
        let v = Vehicle {
            max_duration: Some(30),
            ..vehicle(1, 5)
        };
        assert_eq!(
            measured(&line(vec![], v), &[0, 1]),
            vec![(Kind::ExcessDuration, 10)]
        );
    }
}
