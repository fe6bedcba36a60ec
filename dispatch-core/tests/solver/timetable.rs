//! Timetables: every route ends as early as possible and leaves as late as still ends then
//! (VROOM's timetable), judged by the independent checker, which also refuses any other; and
//! progress counts the visits the solution will list as left out.

use std::sync::Mutex;

use dispatch_core::solver::checker::{self, Code};
use dispatch_core::solver::problem::{
    Job, Matrix, Objective, Place, Problem, Shipment, Skills, Time, TimeWindow, Vehicle,
};
use dispatch_core::solver::solution::{Solution, Step};
use dispatch_core::solver::{solve, Config, Control, Progress};

#[derive(Default)]
struct Recorder {
    progress: Mutex<Vec<Progress>>,
}

impl Control for Recorder {
    fn should_stop(&self) -> bool {
        false
    }
    fn on_improvement(&self, p: &Progress) {
        self.progress.lock().unwrap().push(p.clone());
    }
}

/// Depot 0 and customers 1..=3 on a line, 100 apart (travel time = distance).
fn line() -> Matrix {
    let d: Vec<i64> = (0..4i64)
        .flat_map(|a| (0..4i64).map(move |b| (a - b).abs() * 100))
        .collect();
    Matrix::from_durations(4, d).unwrap()
}

fn job(id: u64, location: usize, windows: Vec<TimeWindow>) -> Job {
    Job {
        id,
        place: Place {
            location,
            setup: 0,
            service: 10,
            time_windows: windows,
        },
        delivery: vec![1],
        pickup: vec![0],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    }
}

fn vehicle(shift: TimeWindow) -> Vehicle {
    Vehicle {
        shift,
        ..crate::solver_engine_common::vehicle(1, 0, 10)
    }
}

fn problem(jobs: Vec<Job>, vehicles: Vec<Vehicle>) -> Problem {
    Problem {
        name: "timetable".into(),
        matrix: line(),
        jobs,
        shipments: Vec::new(),
        vehicles,
        dimensions: 1,
        objective: Objective::Duration,
    }
}

fn tw(start: Time, end: Time) -> TimeWindow {
    TimeWindow { start, end }
}

fn solved(p: &Problem, control: &dyn Control) -> Solution {
    let config = Config {
        seed: 1,
        threads: 1,
        max_iterations: Some(200),
    };
    let s = solve(p, &config, control);
    let report = checker::check(p, &s);
    assert!(report.is_feasible(), "{:?}\n{s:#?}", report.violations);
    s
}

#[test]
fn a_vehicle_without_a_shift_window_leaves_at_time_zero() {
    let p = problem(
        vec![job(1, 1, vec![]), job(2, 2, vec![]), job(3, 3, vec![])],
        vec![vehicle(TimeWindow::ALWAYS)],
    );
    let s = solved(&p, &Recorder::default());
    let r = &s.routes[0];
    assert_eq!(r.start_time, 0);
    // Either direction along the line costs the same: time it from the order found.
    let (mut at, mut t, mut expected) = (0, 0, Vec::new());
    for step in &r.steps {
        let Step::Job(i) = step.step else {
            unreachable!("no breaks")
        };
        let to = p.jobs[i].place.location;
        t += p.matrix.duration(at, to);
        expected.push(t);
        t += 10;
        at = to;
    }
    let arrivals: Vec<Time> = r.steps.iter().map(|s| s.arrival).collect();
    assert_eq!(arrivals, expected);
    assert_eq!(r.end_time, t + p.matrix.duration(at, 0));
}

#[test]
fn a_route_leaves_as_late_as_still_reaches_its_first_window_without_waiting() {
    // Job 2 opens at 1 000: leaving at 0 would wait 690 there; the route leaves at 690 and
    // still ends as early as possible.
    let p = problem(
        vec![job(1, 1, vec![tw(0, 900)]), job(2, 3, vec![tw(1000, 1100)])],
        vec![vehicle(tw(0, 5000))],
    );
    let s = solved(&p, &Recorder::default());
    let r = &s.routes[0];
    let times: Vec<(Time, Time)> = r
        .steps
        .iter()
        .map(|s| (s.arrival, s.service_start))
        .collect();
    assert_eq!(r.start_time, 690);
    assert_eq!(times, [(790, 790), (1000, 1000)]);
    assert_eq!(r.end_time, 1010 + 300);
}

#[test]
fn waiting_that_no_later_departure_avoids_stays_where_it_is() {
    // Job 1 closes at 150, job 2 opens at 1 000: the vehicle must wait between them.
    let p = problem(
        vec![job(1, 1, vec![tw(0, 150)]), job(2, 2, vec![tw(1000, 1100)])],
        vec![vehicle(tw(0, 5000))],
    );
    let s = solved(&p, &Recorder::default());
    let r = &s.routes[0];
    assert_eq!(r.start_time, 50);
    assert_eq!((r.steps[0].arrival, r.steps[0].service_start), (150, 150));
    assert_eq!((r.steps[1].arrival, r.steps[1].service_start), (260, 1000));
}

#[test]
fn the_checker_refuses_timetables_that_end_late_or_wait_needlessly() {
    let p = problem(
        vec![job(1, 1, vec![]), job(2, 3, vec![tw(1000, 1100)])],
        vec![vehicle(tw(0, 5000))],
    );
    let steps = [Step::Job(0), Step::Job(1)];
    let earliest = checker::schedule(&p, 0, &steps);
    assert_eq!(earliest.start_time, 690);
    let one = |route| Solution {
        routes: vec![route],
        unassigned: Vec::new(),
    };
    assert!(checker::check(&p, &one(earliest.clone())).is_feasible());

    let codes = |route| -> Vec<Code> {
        checker::check(&p, &one(route))
            .violations
            .iter()
            .map(|v| v.code)
            .collect()
    };
    // Leaving at the shift start: on time everywhere, but waits 690 at job 2.
    let mut early = earliest.clone();
    early.start_time = 0;
    early.steps[0].arrival = 100;
    early.steps[0].service_start = 100;
    early.steps[1].arrival = 310;
    assert_eq!(codes(early), [Code::NotEarliest]);
    // Leaving later than needed: on time, but ends later than it could.
    let mut late = earliest.clone();
    late.start_time += 50;
    for s in &mut late.steps {
        s.arrival += 50;
        s.service_start += 50;
    }
    late.end_time += 50;
    assert_eq!(codes(late), [Code::NotEarliest]);
}

#[test]
fn progress_counts_the_visits_the_solution_lists_as_left_out() {
    let mut p = problem(
        vec![job(1, 1, vec![]), job(2, 2, vec![])],
        vec![vehicle(tw(0, 5000))],
    );
    // A skill no vehicle has, and a shipment heavier than any vehicle: refused by the pre-check.
    p.jobs[1].skills = Skills::from_indices([3]);
    let place = |location| Place {
        location,
        setup: 0,
        service: 0,
        time_windows: vec![],
    };
    p.shipments.push(Shipment {
        pickup_id: 7,
        delivery_id: 8,
        pickup: place(2),
        delivery: place(3),
        amount: vec![11],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    });
    let recorder = Recorder::default();
    let s = solved(&p, &recorder);
    assert_eq!(s.unassigned.len(), 2);
    let listed_visits = 1 + 2;
    let progress = recorder.progress.lock().unwrap();
    assert!(!progress.is_empty());
    for p in progress.iter() {
        assert_eq!(p.unassigned, listed_visits, "{p:?}");
    }
}
