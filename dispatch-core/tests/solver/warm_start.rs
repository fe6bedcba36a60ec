//! Warm start (`solve_from`): the answer passes the independent checker, is never worse than a
//! feasible start, is reproducible per seed; infeasible starts are repaired and malformed ones
//! refused.

use crate::solver_engine_common;

use dispatch_core::solver::checker;
use dispatch_core::solver::problem::*;
use dispatch_core::solver::solution::{Reason, Solution, Step, Unassigned};
use dispatch_core::solver::{solve_from, Config, StartError, StartRoute, WarmSolution};
use proptest::prelude::*;
use solver_engine_common::*;

fn config(seed: u64, iterations: u64) -> Config {
    Config {
        seed,
        threads: 1,
        max_iterations: Some(iterations),
    }
}

fn warm(p: &Problem, start: &[StartRoute], seed: u64, iterations: u64) -> WarmSolution {
    let out = solve_from(p, start, &config(seed, iterations), &Never).expect("well-formed start");
    let report = checker::check(p, &out.solution);
    assert!(
        report.is_feasible(),
        "checker: {:?}\nsolution: {:#?}",
        report.violations,
        out.solution
    );
    out
}

/// The start as a solution (earliest-start schedules), every other task listed as unassigned.
fn as_solution(p: &Problem, start: &[StartRoute]) -> Solution {
    let routes: Vec<_> = start
        .iter()
        .filter(|r| !r.steps.is_empty())
        .map(|r| checker::schedule(p, r.vehicle, &r.steps))
        .collect();
    let on_route = |t: Step| start.iter().any(|r| r.steps.contains(&t));
    let unassigned = (0..p.jobs.len())
        .map(Step::Job)
        .chain((0..p.shipments.len()).map(Step::Pickup))
        .filter(|&t| !on_route(t))
        .map(|task| Unassigned {
            task,
            reason: Reason::NotPlaced,
        })
        .collect();
    Solution { routes, unassigned }
}

/// Random points, jobs with windows, shipments and vehicles of several capacities.
fn instance(points: &[(i64, i64)], windows: &[Option<(i64, i64)>], ships: usize) -> Problem {
    let n = points.len();
    let jobs = windows
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let mut j = job(i as u64, 1 + i % (n - 1), 1 + (i as i64 % 3));
            j.place.service = 2;
            if let Some((a, len)) = *w {
                j.place.time_windows = vec![TimeWindow {
                    start: a,
                    end: a + len,
                }];
            }
            j
        })
        .collect();
    let shipments = (0..ships)
        .map(|i| {
            shipment(
                100 + 2 * i as u64,
                1 + (i * 3) % (n - 1),
                1 + (i * 5 + 2) % (n - 1),
                2,
            )
        })
        .collect();
    let vehicles = (0..3)
        .map(|v| {
            let mut veh = vehicle(v, 0, 6 + 2 * v as i64);
            veh.shift = TimeWindow { start: 0, end: 400 };
            veh
        })
        .collect();
    problem(plane(points), jobs, shipments, vehicles)
}

/// A start drawn from `genes`: each task's vehicle (3 = none) and its rank in the route.
fn start_of(p: &Problem, genes: &[(usize, u32)]) -> Vec<StartRoute> {
    let mut routes: Vec<Vec<(u32, usize, u32, Step)>> = vec![Vec::new(); 3];
    let tasks = p.jobs.len() + p.shipments.len();
    for t in 0..tasks {
        let (v, rank) = genes[t % genes.len()];
        if v >= 3 {
            continue;
        }
        if t < p.jobs.len() {
            routes[v].push((rank, t, 0, Step::Job(t)));
        } else {
            let s = t - p.jobs.len();
            routes[v].push((rank, t, 0, Step::Pickup(s)));
            routes[v].push((rank, t, 1, Step::Delivery(s)));
        }
    }
    routes
        .into_iter()
        .enumerate()
        .map(|(vehicle, mut steps)| {
            steps.sort_by_key(|&(rank, t, half, _)| (rank, t, half));
            StartRoute {
                vehicle,
                steps: steps.into_iter().map(|(_, _, _, s)| s).collect(),
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn a_warm_start_never_ends_worse_than_a_feasible_start_and_repeats_per_seed(
        points in prop::collection::vec((0i64..50, 0i64..50), 4..10),
        windows in prop::collection::vec(prop::option::of((0i64..200, 20i64..120)), 0..12),
        ships in 0usize..3,
        genes in prop::collection::vec((0usize..4, 0u32..20), 1..16),
        seed in 0u64..3,
    ) {
        let p = instance(&points, &windows, ships);
        let start = start_of(&p, &genes);
        let a = warm(&p, &start, seed, 60);
        let b = warm(&p, &start, seed, 60);
        prop_assert_eq!(&a, &b);
        let given = checker::check(&p, &as_solution(&p, &start));
        if given.is_feasible() {
            prop_assert!(a.displaced.is_empty(), "a feasible start was repaired: {:?}", a.displaced);
            let got = checker::check(&p, &a.solution);
            prop_assert!(got.served >= given.served);
            if got.served == given.served {
                prop_assert!(got.distance <= given.distance, "{} > {}", got.distance, given.distance);
            }
        }
    }
}

#[test]
fn a_start_that_misses_a_window_is_repaired_and_the_task_served_elsewhere() {
    // On a line: 1 at 10, 2 at 20, 3 at 30; job 3 must start by 35, so 3 -> ... -> 1 works but
    // serving 1, 2 first on the way out and back is too late for it on one vehicle.
    let points = [(0, 0), (10, 0), (20, 0), (30, 0), (0, 40)];
    let mut jobs: Vec<Job> = (1..=4).map(|i| job(i as u64, i, 1)).collect();
    jobs[2].place.time_windows = vec![TimeWindow { start: 0, end: 35 }];
    let p = problem(
        plane(&points),
        jobs,
        vec![],
        vec![vehicle(1, 0, 10), vehicle(2, 0, 10)],
    );
    let start = [StartRoute {
        vehicle: 0,
        steps: vec![Step::Job(3), Step::Job(0), Step::Job(1), Step::Job(2)],
    }];
    let out = warm(&p, &start, 1, 200);
    assert_eq!(out.displaced, vec![Step::Job(2)]);
    assert!(out.solution.unassigned.is_empty(), "{:?}", out.solution);
}

#[test]
fn a_route_as_good_as_it_gets_is_kept_as_given() {
    let points = [(0, 0), (10, 0), (20, 0), (30, 0)];
    let jobs: Vec<Job> = (1..=3).map(|i| job(i as u64, i, 1)).collect();
    let p = problem(plane(&points), jobs, vec![], vec![vehicle(1, 0, 10)]);
    let steps = vec![Step::Job(0), Step::Job(1), Step::Job(2)];
    let start = [StartRoute {
        vehicle: 0,
        steps: steps.clone(),
    }];
    let out = warm(&p, &start, 7, 50);
    assert!(out.displaced.is_empty());
    assert_eq!(routes(&out.solution), vec![(0, steps)]);
}

#[test]
fn malformed_starts_are_refused_with_what_is_wrong() {
    let points = [(0, 0), (10, 0), (20, 0)];
    let p = problem(
        plane(&points),
        vec![job(1, 1, 1)],
        vec![shipment(10, 1, 2, 1)],
        vec![vehicle(1, 0, 10), vehicle(2, 0, 10)],
    );
    let refused = |start: Vec<StartRoute>| {
        solve_from(&p, &start, &config(1, 10), &Never).expect_err("malformed start")
    };
    let route = |vehicle, steps: Vec<Step>| StartRoute { vehicle, steps };
    assert_eq!(
        refused(vec![route(2, vec![Step::Job(0)])]),
        StartError::UnknownVehicle {
            route: 0,
            vehicle: 2
        }
    );
    assert_eq!(
        refused(vec![route(0, vec![]), route(0, vec![Step::Job(0)])]),
        StartError::VehicleTwice { vehicle: 0 }
    );
    assert_eq!(
        refused(vec![route(0, vec![Step::Job(1)])]),
        StartError::UnknownStep {
            route: 0,
            step: Step::Job(1)
        }
    );
    assert_eq!(
        refused(vec![
            route(0, vec![Step::Job(0)]),
            route(1, vec![Step::Job(0)])
        ]),
        StartError::Repeated { step: Step::Job(0) }
    );
    assert_eq!(
        refused(vec![route(0, vec![Step::Delivery(0), Step::Pickup(0)])]),
        StartError::SplitShipment { shipment: 0 }
    );
    assert_eq!(
        refused(vec![
            route(0, vec![Step::Pickup(0)]),
            route(1, vec![Step::Delivery(0)])
        ]),
        StartError::SplitShipment { shipment: 0 }
    );
    let ok = solve_from(
        &p,
        &[route(
            0,
            vec![Step::Pickup(0), Step::Break(0), Step::Delivery(0)],
        )],
        &config(1, 10),
        &Never,
    );
    assert!(ok.is_ok(), "break steps are ignored: {ok:?}");
}
