//! The engine on small hand-made instances, one constraint kind each; every solution is verified
//! by the independent checker, and impossible tasks come back with their reasons.

use crate::solver_support;

use dispatch_core::solver::checker::{self, plane::check_plane};
use dispatch_core::solver::formats;
use dispatch_core::solver::problem::{
    Break, Job, Matrix, Objective, Place, Problem, Shipment, Skills, TimeWindow, Vehicle,
};
use dispatch_core::solver::solution::{Reason, Solution, Step};
use dispatch_core::solver::{solve, Config, Control};

struct Never;

impl Control for Never {
    fn should_stop(&self) -> bool {
        false
    }
}

/// Locations 0 (depot) .. 4 on a line, 10 apart; going right costs 10 per gap, going left 30
/// per gap except straight back to the depot, 10 per gap (asymmetric).
fn line() -> Matrix {
    let cost = |a: i64, b: i64| match b {
        _ if b >= a => (b - a) * 10,
        0 => a * 10,
        _ => (a - b) * 30,
    };
    let d: Vec<i64> = (0..5i64)
        .flat_map(|a| (0..5i64).map(move |b| cost(a, b)))
        .collect();
    Matrix::new(5, d.clone(), d).unwrap()
}

fn job(id: u64, location: usize) -> Job {
    Job {
        id,
        place: Place {
            location,
            setup: 0,
            service: 2,
            time_windows: Vec::new(),
        },
        delivery: vec![1],
        pickup: vec![0],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    }
}

fn vehicle(id: u64) -> Vehicle {
    Vehicle {
        shift: TimeWindow {
            start: 0,
            end: 1000,
        },
        ..crate::solver_engine_common::vehicle(id, 0, 10)
    }
}

fn problem(jobs: Vec<Job>, vehicles: Vec<Vehicle>) -> Problem {
    Problem {
        name: "hand-made".into(),
        matrix: line(),
        jobs,
        shipments: Vec::new(),
        vehicles,
        dimensions: 1,
        objective: Objective::VehiclesThenDistance,
    }
}

fn solved(p: &Problem) -> Solution {
    let s = solve(
        p,
        &Config {
            seed: 1,
            threads: 1,
            max_iterations: Some(300),
        },
        &Never,
    );
    let report = checker::check(p, &s);
    assert!(report.is_feasible(), "{:?}\n{s:#?}", report.violations);
    s
}

fn reason_of(s: &Solution, task: Step) -> Option<Reason> {
    s.unassigned
        .iter()
        .find(|u| u.task == task)
        .map(|u| u.reason)
}

fn vehicle_of(s: &Solution, step: Step) -> Option<usize> {
    s.routes
        .iter()
        .find(|r| r.steps.iter().any(|x| x.step == step))
        .map(|r| r.vehicle)
}

#[test]
fn impossible_tasks_come_back_with_their_reasons() {
    let mut skill = job(1, 1);
    skill.skills = Skills::from_indices([4]);
    let mut heavy = job(2, 2);
    heavy.delivery = vec![11];
    let mut late = job(3, 4);
    late.place.time_windows = vec![TimeWindow { start: 0, end: 39 }];
    let p = problem(vec![skill, heavy, late, job(4, 3)], vec![vehicle(1)]);
    let s = solved(&p);
    assert_eq!(reason_of(&s, Step::Job(0)), Some(Reason::Skills));
    assert_eq!(reason_of(&s, Step::Job(1)), Some(Reason::Capacity));
    assert_eq!(reason_of(&s, Step::Job(2)), Some(Reason::TimeWindow));
    assert_eq!(vehicle_of(&s, Step::Job(3)), Some(0));
}

#[test]
fn an_empty_fleet_leaves_everything_unassigned() {
    let p = problem(vec![job(1, 1)], Vec::new());
    let s = solved(&p);
    assert_eq!(s.unassigned.len(), 1);
    assert!(s.routes.is_empty());
}

#[test]
fn skills_and_pins_choose_the_vehicle() {
    let mut needs = job(1, 1);
    needs.skills = Skills::from_indices([2]);
    let mut pinned = job(2, 2);
    pinned.pinned_vehicle = Some(0);
    let mut v2 = vehicle(2);
    v2.skills = Skills::from_indices([2, 3]);
    let p = problem(vec![needs, pinned], vec![vehicle(1), v2]);
    let s = solved(&p);
    assert_eq!(vehicle_of(&s, Step::Job(0)), Some(1));
    assert_eq!(vehicle_of(&s, Step::Job(1)), Some(0));
}

#[test]
fn shipments_and_exchanges_respect_capacity_along_the_route() {
    let mut exchange = job(1, 2);
    exchange.delivery = vec![6];
    exchange.pickup = vec![6];
    let mut p = problem(vec![exchange], vec![vehicle(1)]);
    p.shipments = vec![Shipment {
        pickup_id: 10,
        delivery_id: 11,
        pickup: Place {
            location: 1,
            setup: 0,
            service: 1,
            time_windows: Vec::new(),
        },
        delivery: Place {
            location: 3,
            setup: 0,
            service: 1,
            time_windows: Vec::new(),
        },
        amount: vec![4],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    }];
    let s = solved(&p);
    assert!(s.unassigned.is_empty(), "{s:#?}");
    let steps: Vec<Step> = s.routes[0].steps.iter().map(|x| x.step).collect();
    let pos = |t| steps.iter().position(|&x| x == t).unwrap();
    assert!(pos(Step::Pickup(0)) < pos(Step::Delivery(0)));
}

#[test]
fn a_break_is_placed_inside_its_window() {
    let mut v = vehicle(1);
    v.breaks = vec![Break {
        id: 7,
        time_windows: vec![TimeWindow { start: 25, end: 30 }],
        service: 10,
    }];
    let p = problem(vec![job(1, 1), job(2, 2), job(3, 3), job(4, 4)], vec![v]);
    let s = solved(&p);
    let b = s.routes[0]
        .steps
        .iter()
        .find(|x| x.step == Step::Break(0))
        .expect("the break is on the route");
    assert!((25..=30).contains(&b.service_start));
}

#[test]
fn open_routes_and_route_limits_hold() {
    let mut v = vehicle(1);
    v.start = None;
    v.end = None;
    v.max_tasks = Some(2);
    let mut w = vehicle(2);
    // 0 -> 1 -> 2 -> 0 travels 50; nothing further right fits.
    w.max_travel_time = Some(70);
    let p = problem(vec![job(1, 1), job(2, 2), job(3, 3), job(4, 4)], vec![v, w]);
    let s = solved(&p);
    assert!(s.unassigned.is_empty(), "{s:#?}");
}

#[test]
fn the_asymmetric_matrix_sets_the_direction() {
    // Going right is cheaper than going left: the only best tour visits 1, 2, 3, 4 in order.
    let mut p = problem(
        vec![job(1, 3), job(2, 1), job(3, 4), job(4, 2)],
        vec![vehicle(1)],
    );
    p.objective = Objective::Distance;
    let s = solved(&p);
    let ids: Vec<u64> = s.routes[0]
        .steps
        .iter()
        .map(|x| match x.step {
            Step::Job(i) => p.jobs[i].id,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(ids, vec![2, 4, 1, 3]);
    assert_eq!(checker::check(&p, &s).distance, 40 + 40);
}

#[test]
fn real_instances_solve_to_checked_solutions() {
    let dir = solver_support::instances();
    for file in [
        "solomon/RC105.txt",
        "homberger/r2_2_4.txt",
        "lilim/lrc104.txt",
    ] {
        let text = solver_support::read_text(&dir.join(file));
        let inst = formats::read(&text, None, Objective::VehiclesThenDistance).unwrap();
        let s = solved(&inst.problem);
        assert!(s.unassigned.is_empty(), "{file}: {:?}", s.unassigned);
        let exact = check_plane(&inst.problem, &s, inst.plane.as_ref().unwrap());
        assert!(exact.is_feasible(), "{file}: {:?}", exact.violations);
    }
}
