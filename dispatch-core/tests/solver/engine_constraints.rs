//! Each constraint kind of the model on a small hand-made instance; every solution is verified
//! by the independent checker (`solve_checked`).

use crate::solver_engine_common;

use dispatch_core::solver::checker;
use dispatch_core::solver::problem::*;
use dispatch_core::solver::solution::{Reason, Step, Unassigned};
use solver_engine_common::*;

/// 0 depot (0,0); 1 (10,0); 2 (20,0); 3 (0,10); 4 (30,0).
fn line() -> Matrix {
    plane(&[(0, 0), (10, 0), (20, 0), (0, 10), (30, 0)])
}

#[test]
fn tasks_that_can_never_be_served_get_their_reason() {
    let mut skilled = job(2, 1, 1);
    skilled.skills = Skills::from_indices([5]);
    let heavy = job(3, 1, 100);
    let mut early = job(4, 2, 1);
    early.place.time_windows = vec![TimeWindow { start: 0, end: 5 }];
    let mut far = job(5, 4, 1);
    far.place.time_windows = vec![TimeWindow { start: 0, end: 40 }];
    let mut pinned = job(6, 1, 1);
    pinned.pinned_vehicle = Some(7);
    let mut v = vehicle(1, 0, 10);
    v.shift = TimeWindow { start: 0, end: 50 };
    let p = problem(
        line(),
        vec![job(1, 1, 1), skilled, heavy, early, far, pinned],
        vec![],
        vec![v],
    );
    let sol = solve_checked(&p, 1, 1, 50);
    assert_eq!(routes(&sol), vec![(0, vec![Step::Job(0)])]);
    let expected = [
        (1, Reason::Skills),
        (2, Reason::Capacity),
        (3, Reason::TimeWindow),
        (4, Reason::Shift),
        (5, Reason::NoVehicle),
    ];
    let got: Vec<(usize, Reason)> = sol
        .unassigned
        .iter()
        .map(|u| match u.task {
            Step::Job(j) => (j, u.reason),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn skilled_jobs_go_to_vehicles_with_the_skills() {
    let mut special = job(1, 2, 1);
    special.skills = Skills::from_indices([1]);
    let mut v1 = vehicle(2, 0, 10);
    v1.skills = Skills::from_indices([1, 3]);
    let p = problem(
        line(),
        vec![special, job(2, 1, 1)],
        vec![],
        vec![vehicle(1, 0, 10), v1],
    );
    let sol = solve_checked(&p, 1, 1, 100);
    let r = sol
        .routes
        .iter()
        .find(|r| r.steps.iter().any(|s| s.step == Step::Job(0)));
    assert_eq!(r.map(|r| r.vehicle), Some(1));
}

#[test]
fn pinned_jobs_stay_on_their_vehicle_even_when_sharing_would_be_cheaper() {
    let mut a = job(1, 2, 1);
    a.pinned_vehicle = Some(0);
    let mut b = job(2, 2, 1);
    b.pinned_vehicle = Some(1);
    let p = problem(
        line(),
        vec![a, b],
        vec![],
        vec![vehicle(1, 0, 10), vehicle(2, 0, 10)],
    );
    let sol = solve_checked(&p, 1, 1, 100);
    let mut got = routes(&sol);
    got.sort_by_key(|r| r.0);
    assert_eq!(got, vec![(0, vec![Step::Job(0)]), (1, vec![Step::Job(1)])]);
}

#[test]
fn a_task_pinned_to_a_later_vehicle_of_an_interchangeable_fleet_is_served() {
    // Three identical vehicles: the unpinned job opens vehicle 0, so the first unused vehicle
    // is 1, while the pinned job may only open vehicle 2.
    let mut pinned = job(2, 2, 1);
    pinned.pinned_vehicle = Some(2);
    let p = problem(
        line(),
        vec![job(1, 1, 1), pinned],
        vec![],
        vec![vehicle(1, 0, 10), vehicle(2, 0, 10), vehicle(3, 0, 10)],
    );
    for seed in 1..=4 {
        let sol = solve_checked(&p, seed, 1, 200);
        assert!(
            sol.unassigned.is_empty(),
            "seed {seed}: {:?}",
            sol.unassigned
        );
        let on = sol
            .routes
            .iter()
            .find(|r| r.steps.iter().any(|s| s.step == Step::Job(1)))
            .map(|r| r.vehicle);
        assert_eq!(on, Some(2), "seed {seed}");
    }
}

#[test]
fn a_used_vehicle_takes_its_break_inside_the_window() {
    let mut v = vehicle(1, 0, 10);
    v.breaks = vec![Break {
        id: 9,
        time_windows: vec![TimeWindow { start: 20, end: 25 }],
        service: 10,
    }];
    let mut jobs = vec![job(1, 1, 1), job(2, 2, 1), job(3, 4, 1)];
    for j in &mut jobs {
        j.place.service = 5;
    }
    let p = problem(line(), jobs, vec![], vec![v]);
    let sol = solve_checked(&p, 1, 1, 100);
    assert!(sol.unassigned.is_empty());
    let b = sol.routes[0]
        .steps
        .iter()
        .find(|s| s.step == Step::Break(0))
        .expect("break on the route");
    assert!((20..=25).contains(&b.service_start));
}

#[test]
fn shipments_are_picked_up_before_delivery_on_one_route_within_capacity() {
    let p = problem(
        line(),
        vec![],
        vec![shipment(1, 2, 1, 1), shipment(3, 4, 3, 1)],
        vec![vehicle(1, 0, 1)],
    );
    let sol = solve_checked(&p, 1, 1, 200);
    assert!(sol.unassigned.is_empty());
    let steps = &routes(&sol)[0].1;
    let at = |s: Step| steps.iter().position(|&x| x == s).expect("visited");
    for i in 0..2 {
        // Capacity 1: each delivery directly follows its own pickup.
        assert_eq!(at(Step::Delivery(i)), at(Step::Pickup(i)) + 1);
    }
}

#[test]
fn an_exchange_is_visited_after_the_delivery_that_makes_room_for_its_pickup() {
    // Leaves with 3 + 2 = 5 (full). Delivery first: 2 on board, then the exchange swaps 2 for 5.
    // Exchange first would carry 3 + 5 = 8.
    let mut exchange = job(2, 2, 2);
    exchange.pickup = vec![5];
    let p = problem(
        line(),
        vec![job(1, 1, 3), exchange],
        vec![],
        vec![vehicle(1, 0, 5)],
    );
    let sol = solve_checked(&p, 1, 1, 100);
    assert_eq!(routes(&sol), vec![(0, vec![Step::Job(0), Step::Job(1)])]);
}

#[test]
fn an_asymmetric_matrix_is_driven_in_its_cheap_direction() {
    let d = vec![0, 1, 100, 100, 0, 1, 1, 100, 0];
    let p = problem(
        Matrix::new(3, d.clone(), d).expect("square"),
        vec![job(1, 1, 1), job(2, 2, 1)],
        vec![],
        vec![vehicle(1, 0, 10)],
    );
    let sol = solve_checked(&p, 1, 1, 100);
    assert_eq!(routes(&sol), vec![(0, vec![Step::Job(0), Step::Job(1)])]);
    assert_eq!(checker::check(&p, &sol).distance, 3);
}

#[test]
fn a_visit_with_two_windows_uses_the_reachable_one() {
    let mut j = job(1, 2, 1);
    j.place.time_windows = vec![
        TimeWindow { start: 0, end: 5 },
        TimeWindow { start: 50, end: 60 },
    ];
    let p = problem(line(), vec![j], vec![], vec![vehicle(1, 0, 10)]);
    let sol = solve_checked(&p, 1, 1, 10);
    let s = sol.routes[0].steps[0];
    assert!((50..=60).contains(&s.service_start));
}

#[test]
fn open_routes_start_and_end_at_visits() {
    let mut v = vehicle(1, 0, 10);
    v.start = None;
    v.end = None;
    let p = problem(
        line(),
        vec![job(1, 1, 1), job(2, 2, 1), job(3, 4, 1)],
        vec![],
        vec![v],
    );
    let sol = solve_checked(&p, 1, 1, 100);
    assert_eq!(checker::check(&p, &sol).distance, 20);
}

#[test]
fn max_tasks_limits_each_route() {
    let mut v = vehicle(1, 0, 10);
    v.max_tasks = Some(2);
    let jobs = vec![job(1, 1, 1), job(2, 2, 1), job(3, 4, 1)];
    let one = problem(line(), jobs.clone(), vec![], vec![v.clone()]);
    let sol = solve_checked(&one, 1, 1, 100);
    assert_eq!(sol.routes[0].steps.len(), 2);
    assert_eq!(sol.unassigned.len(), 1);
    assert_eq!(sol.unassigned[0].reason, Reason::NotPlaced);
    let two = problem(line(), jobs, vec![], vec![v.clone(), v]);
    let sol = solve_checked(&two, 1, 1, 100);
    assert!(sol.unassigned.is_empty());
    assert_eq!(sol.routes.len(), 2);
}

/// Unit jobs at 1, 2 and 3 of [`line`] for the one vehicle `v`: the limits of 45 below let it
/// serve two of them.
fn three_jobs_for(v: Vehicle) -> Problem {
    problem(
        line(),
        vec![job(1, 1, 1), job(2, 2, 1), job(3, 3, 1)],
        vec![],
        vec![v],
    )
}

#[test]
fn max_duration_counts_from_a_late_departure_and_leaves_out_what_does_not_fit() {
    let mut late = job(1, 1, 1);
    late.place.time_windows = vec![TimeWindow {
        start: 100,
        end: 110,
    }];
    let mut v = vehicle(1, 0, 10);
    v.max_duration = Some(25);
    let p = problem(line(), vec![late], vec![], vec![v.clone()]);
    let sol = solve_checked(&p, 1, 1, 10);
    assert!(sol.unassigned.is_empty());
    assert_eq!(sol.routes[0].end_time - sol.routes[0].start_time, 20);
    v.max_duration = Some(45);
    let p = three_jobs_for(v);
    let sol = solve_checked(&p, 1, 1, 200);
    assert_eq!(sol.unassigned.len(), 1);
    assert_eq!(sol.unassigned[0].reason, Reason::NotPlaced);
}

#[test]
fn max_travel_time_limits_the_route() {
    let mut v = vehicle(1, 0, 10);
    v.max_travel_time = Some(45);
    let p = three_jobs_for(v);
    let sol = solve_checked(&p, 1, 1, 200);
    assert_eq!(sol.unassigned.len(), 1);
    assert!(checker::check(&p, &sol).travel_time <= 45);
}

#[test]
fn higher_priority_tasks_are_served_first_even_when_costlier() {
    let mut far = job(3, 4, 1);
    far.priority = 10;
    let p = problem(
        line(),
        vec![job(1, 1, 1), job(2, 1, 1), far],
        vec![],
        vec![vehicle(1, 0, 2)],
    );
    let sol = solve_checked(&p, 1, 1, 100);
    assert!(sol.routes[0].steps.iter().any(|s| s.step == Step::Job(2)));
    assert_eq!(sol.unassigned.len(), 1);
}

#[test]
fn a_full_fleet_takes_the_small_deliveries_that_count_more_tasks() {
    // One van of 10: the big delivery fills it alone, the five small ones fit together. The
    // objective counts tasks, so the construction alone (no search) must already pick the five.
    let mut jobs = vec![job(1, 1, 10)];
    jobs.extend((2..=6).map(|id| job(id, 2, 2)));
    let p = problem(line(), jobs, vec![], vec![vehicle(1, 0, 10)]);
    for seed in 1..=8 {
        let sol = solve_checked(&p, seed, 1, 0);
        assert_eq!(
            sol.unassigned,
            vec![Unassigned {
                task: Step::Job(0),
                reason: Reason::NotPlaced
            }],
            "seed {seed}"
        );
    }
}

#[test]
fn vehicles_first_uses_fewer_routes_than_distance_only() {
    let d = vec![0, 10, 10, 10, 0, 100, 10, 100, 0];
    let mut p = problem(
        Matrix::new(3, d.clone(), d).expect("square"),
        vec![job(1, 1, 1), job(2, 2, 1)],
        vec![],
        vec![vehicle(1, 0, 10), vehicle(2, 0, 10)],
    );
    assert_eq!(solve_checked(&p, 1, 1, 100).routes.len(), 2);
    p.objective = Objective::VehiclesThenDistance;
    assert_eq!(solve_checked(&p, 1, 1, 100).routes.len(), 1);
}

#[test]
fn set_up_is_spent_once_per_location() {
    let mut a = job(1, 1, 1);
    a.place.setup = 5;
    a.place.service = 2;
    let b = a.clone();
    let p = problem(line(), vec![a, b], vec![], vec![vehicle(1, 0, 10)]);
    let sol = solve_checked(&p, 1, 1, 50);
    let r = &sol.routes[0];
    assert_eq!(r.end_time - r.start_time, 10 + 5 + 2 + 2 + 10);
}

#[test]
fn an_empty_fleet_leaves_every_task_out_with_no_vehicle() {
    let p = problem(
        line(),
        vec![job(1, 1, 1)],
        vec![shipment(2, 1, 2, 1)],
        vec![],
    );
    let sol = solve_checked(&p, 1, 1, 10);
    assert_eq!(
        sol.unassigned,
        vec![
            Unassigned {
                task: Step::Job(0),
                reason: Reason::NoVehicle
            },
            Unassigned {
                task: Step::Pickup(0),
                reason: Reason::NoVehicle
            },
        ]
    );
}

#[test]
fn a_vehicle_whose_break_can_never_be_taken_is_not_used() {
    let mut broken = vehicle(1, 0, 10);
    broken.breaks = vec![Break {
        id: 1,
        time_windows: vec![TimeWindow { start: 50, end: 10 }],
        service: 5,
    }];
    let p = problem(
        line(),
        vec![job(1, 1, 1)],
        vec![],
        vec![broken, vehicle(2, 0, 10)],
    );
    let sol = solve_checked(&p, 1, 1, 20);
    assert_eq!(routes(&sol), vec![(1, vec![Step::Job(0)])]);
}

#[test]
fn a_search_stopped_at_once_still_returns_a_complete_feasible_solution() {
    struct Stop;
    impl dispatch_core::solver::Control for Stop {
        fn should_stop(&self) -> bool {
            true
        }
    }
    let p = problem(
        line(),
        vec![job(1, 1, 1), job(2, 2, 1), job(3, 4, 1)],
        vec![],
        vec![vehicle(1, 0, 10)],
    );
    let config = dispatch_core::solver::Config {
        seed: 1,
        threads: 2,
        max_iterations: None,
    };
    let sol = dispatch_core::solver::solve(&p, &config, &Stop);
    assert!(checker::check(&p, &sol).is_feasible());
    assert!(sol.unassigned.is_empty());
}
