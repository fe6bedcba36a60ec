//! Solutions in VROOM's own output format, so that a VROOM user can swap the binary: `code`,
//! `summary`, `unassigned` and `routes` with `start` / `job` / `pickup` / `delivery` / `break` /
//! `end` steps, each with its arrival, waiting time, set-up, service, load after the step and
//! cumulated travel time (and distance where the problem's matrix has distances), and errors as
//! VROOM's `{code, error}`.
//!
//! The timetable is the solver's, which is VROOM's (each route ends as early as possible and
//! leaves as late as still ends then). Two differences remain, both documented: a break is taken
//! where the vehicle is, before it travels on (VROOM may also stop on the way), and every
//! unassigned entry carries the solver's `reason` and `reason_description` beside VROOM's keys.
//! A route's cost is its travel time times `per_hour / 3600` (VROOM's default costs: the travel
//! time itself).

use serde::Serialize;

use super::vroom::{Echo, Stop};
use super::Instance;
use crate::solver::problem::{Load, LocationIndex, Place, Problem, Time};
use crate::solver::solution::{Route, Solution, Step};

/// VROOM's error codes (the `code` of an answer; 0 is success).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// Something failed inside the solver or the service.
    Internal = 1,
    /// The problem is malformed or asks for something unsupported.
    Input = 2,
    /// Travel times could not be had.
    Routing = 3,
    /// The problem is larger than the service accepts.
    TooLarge = 4,
}

/// An error as VROOM writes it: `{"code": N, "error": "..."}`.
pub fn error(code: ErrorCode, message: &str) -> String {
    serde_json::json!({ "code": code as u8, "error": message }).to_string()
}

/// Milliseconds spent, as VROOM's `summary.computing_times` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ComputingTimes {
    /// Reading the problem.
    pub loading: u64,
    /// Searching.
    pub solving: u64,
}

#[derive(Serialize)]
struct Answer {
    code: u8,
    summary: Summary,
    unassigned: Vec<Unassigned>,
    routes: Vec<RouteOut>,
}

#[derive(Serialize)]
struct Summary {
    cost: i64,
    routes: usize,
    unassigned: usize,
    #[serde(flatten)]
    totals: Totals,
    violations: [(); 0],
    computing_times: Computing,
}

/// The figures VROOM gives per route and, summed over the routes, in the summary.
#[derive(Serialize)]
struct Totals {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    delivery: Vec<Load>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    amount: Vec<Load>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pickup: Vec<Load>,
    setup: Time,
    service: Time,
    duration: Time,
    waiting_time: Time,
    priority: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    distance: Option<i64>,
}

impl Totals {
    /// Nothing yet, in `dims` load dimensions; a distance only when the problem has distances.
    fn zero(dims: usize, distances: bool) -> Totals {
        Totals {
            delivery: vec![0; dims],
            amount: vec![0; dims],
            pickup: vec![0; dims],
            setup: 0,
            service: 0,
            duration: 0,
            waiting_time: 0,
            priority: 0,
            distance: distances.then_some(0),
        }
    }

    fn add(&mut self, other: &Totals) {
        add(&mut self.delivery, &other.delivery, 1);
        add(&mut self.amount, &other.amount, 1);
        add(&mut self.pickup, &other.pickup, 1);
        self.setup += other.setup;
        self.service += other.service;
        self.duration += other.duration;
        self.waiting_time += other.waiting_time;
        self.priority += other.priority;
        if let (Some(sum), Some(d)) = (&mut self.distance, other.distance) {
            *sum += d;
        }
    }
}

#[derive(Serialize)]
struct Computing {
    loading: u64,
    solving: u64,
}

#[derive(Serialize)]
struct Unassigned {
    id: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    location_index: Option<usize>,
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    reason: &'static str,
    reason_description: &'static str,
}

#[derive(Serialize)]
struct RouteOut {
    vehicle: u64,
    cost: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(flatten)]
    totals: Totals,
    steps: Vec<StepOut>,
    violations: [(); 0],
}

#[derive(Serialize)]
struct StepOut {
    #[serde(rename = "type")]
    kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    location: Option<[f64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    location_index: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<u64>,
    setup: Time,
    service: Time,
    waiting_time: Time,
    #[serde(skip_serializing_if = "Option::is_none")]
    job: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    load: Vec<Load>,
    arrival: Time,
    duration: Time,
    violations: [(); 0],
    #[serde(skip_serializing_if = "Option::is_none")]
    distance: Option<i64>,
}

/// The problem's places of a task step, with what the problem gave for them.
struct Echoed<'a> {
    instance: &'a Instance,
    problem: &'a Problem,
    echo: Option<&'a Echo>,
}

impl Echoed<'_> {
    fn place(&self, step: Step) -> &Place {
        let p = self.problem;
        match step {
            Step::Job(i) => &p.jobs[i].place,
            Step::Pickup(i) => &p.shipments[i].pickup,
            Step::Delivery(i) => &p.shipments[i].delivery,
            Step::Break(_) => unreachable!("breaks have no place"),
        }
    }

    /// Coordinates, index and description of a task step; without an echo (text formats), the
    /// matrix index.
    fn stop(&self, step: Step) -> Stop {
        let given = self.echo.map(|e| match step {
            Step::Job(i) => &e.jobs[i],
            Step::Pickup(i) => &e.pickups[i],
            Step::Delivery(i) => &e.deliveries[i],
            Step::Break(_) => unreachable!("breaks have no place"),
        });
        match given {
            Some(s) => s.clone(),
            None => Stop {
                location_index: Some(self.place(step).location),
                ..Stop::default()
            },
        }
    }

    fn vehicle_stop(&self, v: usize, start: bool) -> Stop {
        match self.echo {
            Some(e) if start => e.vehicles[v].start.clone(),
            Some(e) => e.vehicles[v].end.clone(),
            None => {
                let vehicle = &self.problem.vehicles[v];
                Stop {
                    location_index: if start { vehicle.start } else { vehicle.end },
                    ..Stop::default()
                }
            }
        }
    }
}

/// VROOM's `type` of a task or break step: `job`, `pickup`, `delivery` or `break`.
pub fn step_type(step: Step) -> &'static str {
    match step {
        Step::Job(_) => "job",
        Step::Pickup(_) => "pickup",
        Step::Delivery(_) => "delivery",
        Step::Break(_) => "break",
    }
}

fn add(to: &mut [Load], amount: &[Load], sign: Load) {
    for (t, a) in to.iter_mut().zip(amount) {
        *t += sign * a;
    }
}

/// `(delivered, collected, priority)` of a task step, VROOM's way: a shipment's amount is
/// collected at its pickup and delivered at its delivery, and both carry its priority.
fn task_figures(p: &Problem, step: Step) -> (&[Load], &[Load], u32) {
    match step {
        Step::Job(i) => (&p.jobs[i].delivery, &p.jobs[i].pickup, p.jobs[i].priority),
        Step::Pickup(i) => (&[], &p.shipments[i].amount, p.shipments[i].priority),
        Step::Delivery(i) => (&p.shipments[i].amount, &[], p.shipments[i].priority),
        Step::Break(_) => (&[], &[], 0),
    }
}

fn cost(echo: Option<&Echo>, travel: Time) -> i64 {
    let per_hour = echo.map_or(3600, |e| e.per_hour) as i128;
    ((travel as i128 * per_hour + 1800) / 3600) as i64
}

fn route(e: &Echoed, r: &Route, distances: bool) -> RouteOut {
    let p = e.problem;
    let m = &p.matrix;
    let vehicle = &p.vehicles[r.vehicle];
    let dims = p.dimensions;
    let mut load = vec![0; dims];
    for s in &r.steps {
        if let Step::Job(i) = s.step {
            add(&mut load, &p.jobs[i].delivery, 1);
        }
    }
    let (mut delivery, mut pickup) = (vec![0; dims], vec![0; dims]);
    let (mut travel, mut distance) = (0, 0);
    let (mut setup_sum, mut service_sum, mut waiting_sum, mut priority) = (0, 0, 0, 0u64);
    let dist = |d: i64| distances.then_some(d);
    let tasks: Vec<Step> = r
        .steps
        .iter()
        .map(|s| s.step)
        .filter(|s| !matches!(s, Step::Break(_)))
        .collect();
    let start = match (vehicle.start, tasks.first()) {
        (None, Some(&first)) => e.stop(first),
        _ => e.vehicle_stop(r.vehicle, true),
    };
    let mut steps = vec![StepOut {
        kind: "start",
        description: None,
        location: start.location,
        location_index: start.location_index,
        id: None,
        setup: 0,
        service: 0,
        waiting_time: 0,
        job: None,
        load: load.clone(),
        arrival: r.start_time,
        duration: 0,
        violations: [],
        distance: dist(0),
    }];
    let mut at: Option<LocationIndex> = vehicle.start;
    for s in &r.steps {
        let waiting = s.service_start - s.arrival;
        waiting_sum += waiting;
        if let Step::Break(b) = s.step {
            let brk = &vehicle.breaks[b];
            service_sum += brk.service;
            steps.push(StepOut {
                kind: "break",
                description: None,
                location: None,
                location_index: None,
                id: Some(brk.id),
                setup: 0,
                service: brk.service,
                waiting_time: waiting,
                job: None,
                load: load.clone(),
                arrival: s.arrival,
                duration: travel,
                violations: [],
                distance: dist(distance),
            });
            continue;
        }
        let place = e.place(s.step);
        if let Some(from) = at {
            travel += m.duration(from, place.location);
            distance += m.distance(from, place.location);
        }
        let setup = if at == Some(place.location) {
            0
        } else {
            place.setup
        };
        at = Some(place.location);
        let (dropped, collected, prio) = task_figures(p, s.step);
        add(&mut load, dropped, -1);
        add(&mut load, collected, 1);
        add(&mut delivery, dropped, 1);
        add(&mut pickup, collected, 1);
        priority += u64::from(prio);
        setup_sum += setup;
        service_sum += place.service;
        let stop = e.stop(s.step);
        let id = e.instance.step_id(r.vehicle, s.step);
        steps.push(StepOut {
            kind: step_type(s.step),
            description: stop.description,
            location: stop.location,
            location_index: stop.location_index,
            id: Some(id),
            setup,
            service: place.service,
            waiting_time: waiting,
            job: Some(id),
            load: load.clone(),
            arrival: s.arrival,
            duration: travel,
            violations: [],
            distance: dist(distance),
        });
    }
    if let (Some(from), Some(to)) = (at, vehicle.end) {
        travel += m.duration(from, to);
        distance += m.distance(from, to);
    }
    let end = match (vehicle.end, tasks.last()) {
        (None, Some(&last)) => e.stop(last),
        _ => e.vehicle_stop(r.vehicle, false),
    };
    steps.push(StepOut {
        kind: "end",
        description: None,
        location: end.location,
        location_index: end.location_index,
        id: None,
        setup: 0,
        service: 0,
        waiting_time: 0,
        job: None,
        load,
        arrival: r.end_time,
        duration: travel,
        violations: [],
        distance: dist(distance),
    });
    RouteOut {
        vehicle: vehicle.id,
        cost: cost(e.echo, travel),
        description: e
            .echo
            .and_then(|x| x.vehicles[r.vehicle].description.clone()),
        totals: Totals {
            amount: delivery.clone(),
            delivery,
            pickup,
            setup: setup_sum,
            service: service_sum,
            duration: travel,
            waiting_time: waiting_sum,
            priority,
            distance: dist(distance),
        },
        steps,
        violations: [],
    }
}

/// `solution` of `instance` in VROOM's output format (one JSON document, no newline).
pub fn write(instance: &Instance, solution: &Solution, times: ComputingTimes) -> String {
    let p = &instance.problem;
    let e = Echoed {
        instance,
        problem: p,
        echo: instance.vroom.as_ref(),
    };
    let distances = e.echo.is_some_and(|x| x.distances);
    let routes: Vec<RouteOut> = solution
        .routes
        .iter()
        .filter(|r| r.steps.iter().any(|s| !matches!(s.step, Step::Break(_))))
        .map(|r| route(&e, r, distances))
        .collect();
    let mut unassigned = Vec::new();
    for u in &solution.unassigned {
        for step in u.visits() {
            let stop = e.stop(step);
            unassigned.push(Unassigned {
                id: instance.step_id(0, step),
                location: stop.location,
                location_index: stop.location_index,
                kind: step_type(step),
                description: stop.description,
                reason: u.reason.code(),
                reason_description: u.reason.description(),
            });
        }
    }
    let mut totals = Totals::zero(p.dimensions, distances);
    for r in &routes {
        totals.add(&r.totals);
    }
    let summary = Summary {
        cost: routes.iter().map(|r| r.cost).sum(),
        routes: routes.len(),
        unassigned: unassigned.len(),
        totals,
        violations: [],
        computing_times: Computing {
            loading: times.loading,
            solving: times.solving,
        },
    };
    serde_json::to_string(&Answer {
        code: 0,
        summary,
        unassigned,
        routes,
    })
    .expect("the answer serialises")
}
