//! Independent feasibility checker: re-simulates a solution from the problem alone.
//!
//! Written apart from the search engine on purpose (it shares only the problem and solution
//! types), so that tests and benchmarks do not trust the engine's own bookkeeping.
//!
//! The timing model it enforces, for every route:
//! - the vehicle leaves its start at `route.start_time`, no earlier than its shift start; with no
//!   start location the route begins at the first visit (no travel to it);
//! - at a task visit: arrival = previous departure + travel; the visit starts at the earliest time
//!   not before arrival inside one of its windows (waiting allowed; no windows means any time);
//!   set-up is spent when the previous location differs (always for the first visit), then the
//!   service; departure = visit start + set-up + service (VROOM's convention: the window bounds
//!   the start of the visit);
//! - a break is taken where the vehicle is, starting at the earliest time not before the
//!   previous departure inside one of its windows, and lasts its service time; travel to the next
//!   visit follows it;
//! - the end location is reached after the travel from the last visit (no end location: the
//!   route ends at the last departure), no later than the shift end;
//! - the reported `arrival` / `service_start` of each step and `end_time` equal the simulated ones;
//! - the timetable is the earliest (VROOM's): the route ends as early as any departure allows,
//!   and leaves as late as still ends then, so no waiting is left that a later departure avoids
//!   (unless that timetable would break `max_duration`, when any on-time departure is accepted).
//!
//! Loads: a route leaves with the sum of its jobs' deliveries; a job drops its delivery and
//! collects its pickup; a shipment is collected at its pickup and dropped at its delivery. The
//! load must stay within capacity in every dimension at the start and after every visit.
//!
//! [`plane`] re-checks Euclidean instances in double precision from the original coordinates.

pub mod plane;

use std::fmt;

use super::problem::{Distance, Problem, Time, TimeWindow};
use super::solution::{Route, ScheduledStep, Solution, Step};

/// Stable codes of the violations the checker reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// A route names a vehicle that does not exist.
    UnknownVehicle,
    /// Two routes use the same vehicle.
    VehicleReused,
    /// A route has no task visit.
    EmptyRoute,
    /// A step names a task or break that does not exist.
    UnknownTask,
    /// A task (or a shipment's pickup or delivery) is visited more than once.
    TaskRepeated,
    /// A task is neither served nor listed as unassigned.
    TaskMissing,
    /// A task is served and also listed as unassigned, or listed twice.
    BadUnassigned,
    /// A shipment's pickup and delivery are not both on the same route.
    ShipmentSplit,
    /// A shipment's delivery comes before its pickup.
    DeliveryBeforePickup,
    /// The vehicle lacks a skill the task requires.
    Skills,
    /// The task is pinned to another vehicle.
    PinnedVehicle,
    /// The load exceeds the capacity in some dimension.
    Capacity,
    /// A visit starts after the end of its last feasible window.
    TimeWindow,
    /// The route leaves before its shift starts.
    ShiftStart,
    /// The route reaches its end after its shift ends.
    ShiftEnd,
    /// A break cannot start inside any of its windows.
    BreakWindow,
    /// A used vehicle's break is not on its route.
    BreakMissing,
    /// A break is on the route more than once.
    BreakRepeated,
    /// More task visits than `max_tasks`.
    MaxTasks,
    /// The route lasts longer than `max_duration`.
    MaxDuration,
    /// The route travels longer than `max_travel_time`.
    MaxTravelTime,
    /// A reported time differs from the simulated one.
    ScheduleMismatch,
    /// The timetable is not the earliest: the route could end earlier, or leave later and
    /// still end as early (waiting that a later departure avoids).
    NotEarliest,
}

impl Code {
    /// The stable code, e.g. `TIME_WINDOW`.
    pub fn as_str(self) -> &'static str {
        match self {
            Code::UnknownVehicle => "UNKNOWN_VEHICLE",
            Code::VehicleReused => "VEHICLE_REUSED",
            Code::EmptyRoute => "EMPTY_ROUTE",
            Code::UnknownTask => "UNKNOWN_TASK",
            Code::TaskRepeated => "TASK_REPEATED",
            Code::TaskMissing => "TASK_MISSING",
            Code::BadUnassigned => "BAD_UNASSIGNED",
            Code::ShipmentSplit => "SHIPMENT_SPLIT",
            Code::DeliveryBeforePickup => "DELIVERY_BEFORE_PICKUP",
            Code::Skills => "SKILLS",
            Code::PinnedVehicle => "PINNED_VEHICLE",
            Code::Capacity => "CAPACITY",
            Code::TimeWindow => "TIME_WINDOW",
            Code::ShiftStart => "SHIFT_START",
            Code::ShiftEnd => "SHIFT_END",
            Code::BreakWindow => "BREAK_WINDOW",
            Code::BreakMissing => "BREAK_MISSING",
            Code::BreakRepeated => "BREAK_REPEATED",
            Code::MaxTasks => "MAX_TASKS",
            Code::MaxDuration => "MAX_DURATION",
            Code::MaxTravelTime => "MAX_TRAVEL_TIME",
            Code::ScheduleMismatch => "SCHEDULE_MISMATCH",
            Code::NotEarliest => "NOT_EARLIEST",
        }
    }
}

/// One thing wrong with a solution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// What kind.
    pub code: Code,
    /// Position of the route in `Solution::routes`, when it concerns a route.
    pub route: Option<usize>,
    /// Position of the step in the route, when it concerns a step.
    pub step: Option<usize>,
    /// Details for people.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code.as_str())?;
        if let Some(r) = self.route {
            write!(f, " route {r}")?;
        }
        if let Some(s) = self.step {
            write!(f, " step {s}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The checker's verdict and the solution's figures recomputed from the problem.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Report {
    /// Everything found wrong; empty means feasible.
    pub violations: Vec<Violation>,
    /// Routes with at least one task visit.
    pub vehicles: usize,
    /// Total travel distance (matrix units).
    pub distance: Distance,
    /// Total travel time (matrix units).
    pub travel_time: Time,
    /// Tasks served (a shipment counts once).
    pub served: usize,
    /// Tasks listed as unassigned.
    pub unassigned: usize,
}

impl Report {
    /// True when no violation was found.
    pub fn is_feasible(&self) -> bool {
        self.violations.is_empty()
    }
}

/// The earliest start inside `windows` not before `t`, or `None` when every window has ended.
pub(crate) fn earliest_in(windows: &[TimeWindow], t: Time) -> Option<Time> {
    if windows.is_empty() {
        return Some(t);
    }
    windows.iter().find(|w| w.end >= t).map(|w| t.max(w.start))
}

/// Checks every constraint of `problem` on `solution`.
pub fn check(problem: &Problem, solution: &Solution) -> Report {
    let mut report = Report::default();
    let mut v = Vec::new();
    let mut vehicle_used = vec![false; problem.vehicles.len()];
    let mut job_visits = vec![0usize; problem.jobs.len()];
    let mut pickup_visits = vec![0usize; problem.shipments.len()];
    let mut delivery_visits = vec![0usize; problem.shipments.len()];
    for (r, route) in solution.routes.iter().enumerate() {
        let Some(used) = vehicle_used.get_mut(route.vehicle) else {
            v.push(violation(
                Code::UnknownVehicle,
                Some(r),
                None,
                format!("vehicle index {}", route.vehicle),
            ));
            continue;
        };
        if std::mem::replace(used, true) {
            v.push(violation(
                Code::VehicleReused,
                Some(r),
                None,
                format!("vehicle index {}", route.vehicle),
            ));
        }
        for s in &route.steps {
            let count = match s.step {
                Step::Job(i) => job_visits.get_mut(i),
                Step::Pickup(i) => pickup_visits.get_mut(i),
                Step::Delivery(i) => delivery_visits.get_mut(i),
                Step::Break(_) => None,
            };
            if let Some(c) = count {
                *c += 1;
            }
        }
        let figures = route::check(problem, r, route, &mut v);
        report.distance += figures.distance;
        report.travel_time += figures.travel_time;
        if figures.tasks > 0 {
            report.vehicles += 1;
        }
    }
    let mut unassigned_jobs = vec![0usize; problem.jobs.len()];
    let mut unassigned_shipments = vec![0usize; problem.shipments.len()];
    for u in &solution.unassigned {
        let slot = match u.task {
            Step::Job(i) => unassigned_jobs.get_mut(i),
            Step::Pickup(i) => unassigned_shipments.get_mut(i),
            Step::Delivery(_) | Step::Break(_) => None,
        };
        match slot {
            Some(c) => *c += 1,
            None => v.push(violation(
                Code::BadUnassigned,
                None,
                None,
                format!("{:?} is not a job or a shipment's pickup", u.task),
            )),
        }
    }
    report.unassigned = solution.unassigned.len();
    for (i, (&served, &left)) in job_visits.iter().zip(&unassigned_jobs).enumerate() {
        let id = problem.jobs[i].id;
        tally(&mut v, &mut report, served, left, || format!("job {id}"));
    }
    for (i, s) in problem.shipments.iter().enumerate() {
        let (p, d, left) = (
            pickup_visits[i],
            delivery_visits[i],
            unassigned_shipments[i],
        );
        if p != d {
            v.push(violation(
                Code::ShipmentSplit,
                None,
                None,
                format!(
                    "shipment {}/{} has {p} pickup and {d} delivery visits",
                    s.pickup_id, s.delivery_id
                ),
            ));
        }
        tally(&mut v, &mut report, p.max(d), left, || {
            format!("shipment {}/{}", s.pickup_id, s.delivery_id)
        });
    }
    report.violations = v;
    report
}

fn tally(
    v: &mut Vec<Violation>,
    report: &mut Report,
    served: usize,
    left: usize,
    name: impl Fn() -> String,
) {
    match (served, left) {
        (1, 0) => report.served += 1,
        (0, 1) => {}
        (0, 0) => v.push(violation(
            Code::TaskMissing,
            None,
            None,
            format!("{} is neither served nor unassigned", name()),
        )),
        (s, 0) => v.push(violation(
            Code::TaskRepeated,
            None,
            None,
            format!("{} is visited {s} times", name()),
        )),
        (s, l) => v.push(violation(
            Code::BadUnassigned,
            None,
            None,
            format!("{} is served {s} times and unassigned {l} times", name()),
        )),
    }
}

pub(crate) fn violation(
    code: Code,
    route: Option<usize>,
    step: Option<usize>,
    message: String,
) -> Violation {
    Violation {
        code,
        route,
        step,
        message,
    }
}

/// The earliest timetable of `steps` on `vehicle` (see the module's timing model): turns an
/// external route (e.g. a best-known solution file) into a [`Route`] that [`check`] can verify.
/// Steps naming nothing get time 0 and are left for [`check`] to report.
pub fn schedule(problem: &Problem, vehicle: usize, steps: &[Step]) -> Route {
    route::schedule(problem, vehicle, steps)
}

mod route;

/// The step a scheduled step list visits, for messages.
pub(crate) fn describe(problem: &Problem, vehicle: usize, s: &ScheduledStep) -> String {
    match s.step {
        Step::Job(i) => problem
            .jobs
            .get(i)
            .map_or(format!("job #{i}"), |j| format!("job {}", j.id)),
        Step::Pickup(i) => problem
            .shipments
            .get(i)
            .map_or(format!("pickup #{i}"), |x| {
                format!("pickup {}", x.pickup_id)
            }),
        Step::Delivery(i) => problem
            .shipments
            .get(i)
            .map_or(format!("delivery #{i}"), |x| {
                format!("delivery {}", x.delivery_id)
            }),
        Step::Break(i) => problem
            .vehicles
            .get(vehicle)
            .and_then(|v| v.breaks.get(i))
            .map_or(format!("break #{i}"), |b| format!("break {}", b.id)),
    }
}
