//! Builders of small hand-made problems for the engine's tests, and a solve-and-check helper
//! that verifies every solution with the independent checker.

#![allow(dead_code)]

use dispatch_core::solver::checker;
use dispatch_core::solver::problem::*;
use dispatch_core::solver::solution::Solution;
use dispatch_core::solver::{solve, Config, Control};

pub struct Never;

impl Control for Never {
    fn should_stop(&self) -> bool {
        false
    }
}

/// Points on a plane; travel time = distance = rounded Euclidean distance.
pub fn plane(points: &[(i64, i64)]) -> Matrix {
    let n = points.len();
    let mut m = Vec::with_capacity(n * n);
    for a in points {
        for b in points {
            let (dx, dy) = ((a.0 - b.0) as f64, (a.1 - b.1) as f64);
            m.push((dx * dx + dy * dy).sqrt().round() as i64);
        }
    }
    Matrix::new(n, m.clone(), m).expect("square")
}

pub fn place(location: usize, service: Time, windows: &[(Time, Time)]) -> Place {
    Place {
        location,
        setup: 0,
        service,
        time_windows: windows
            .iter()
            .map(|&(start, end)| TimeWindow { start, end })
            .collect(),
    }
}

pub fn job(id: u64, location: usize, delivery: Load) -> Job {
    Job {
        id,
        place: place(location, 0, &[]),
        delivery: vec![delivery],
        pickup: vec![0],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    }
}

pub fn shipment(id: u64, from: usize, to: usize, amount: Load) -> Shipment {
    Shipment {
        pickup_id: id,
        delivery_id: id + 1,
        pickup: place(from, 0, &[]),
        delivery: place(to, 0, &[]),
        amount: vec![amount],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    }
}

pub fn vehicle(id: u64, depot: usize, capacity: Load) -> Vehicle {
    Vehicle {
        id,
        start: Some(depot),
        end: Some(depot),
        capacity: vec![capacity],
        skills: Skills::default(),
        shift: TimeWindow::ALWAYS,
        breaks: vec![],
        max_duration: None,
        max_travel_time: None,
        max_tasks: None,
    }
}

pub fn problem(
    matrix: Matrix,
    jobs: Vec<Job>,
    shipments: Vec<Shipment>,
    vehicles: Vec<Vehicle>,
) -> Problem {
    Problem {
        name: "test".into(),
        matrix,
        jobs,
        shipments,
        vehicles,
        dimensions: 1,
        objective: Objective::Distance,
    }
}

/// Solves with a small iteration budget and asserts the independent checker finds nothing.
pub fn solve_checked(p: &Problem, seed: u64, threads: usize, iterations: u64) -> Solution {
    let config = Config {
        seed,
        threads,
        max_iterations: Some(iterations),
    };
    let sol = solve(p, &config, &Never);
    let report = checker::check(p, &sol);
    assert!(
        report.is_feasible(),
        "checker: {:?}\nsolution: {sol:#?}",
        report.violations
    );
    sol
}

/// Routes as lists of steps, for readable assertions.
pub fn routes(sol: &Solution) -> Vec<(usize, Vec<dispatch_core::solver::solution::Step>)> {
    sol.routes
        .iter()
        .map(|r| (r.vehicle, r.steps.iter().map(|s| s.step).collect()))
        .collect()
}
