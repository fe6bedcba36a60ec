//! The inter-route moves on hand-made two-route solutions: each finds its improvement, and
//! no move is applied that the routes cannot take.

use super::improve_between;
use crate::solver::instance::Instance;
use crate::solver::neighbours::Neighbours;
use crate::solver::precheck::precheck;
use crate::solver::problem::*;
use crate::solver::state::State;
use crate::solver::warm::initial;

/// Depot 0 at (0,0); visits at `points` (locations 1..); two vehicles of capacity `cap`.
fn problem(points: &[(i64, i64)], cap: i64) -> Problem {
    let mut pts = vec![(0i64, 0i64)];
    pts.extend_from_slice(points);
    let mut d = Vec::new();
    for a in &pts {
        for b in &pts {
            let (x, y) = ((a.0 - b.0) as f64, (a.1 - b.1) as f64);
            d.push((x * x + y * y).sqrt().round() as i64);
        }
    }
    let jobs = (1..pts.len())
        .map(|l| Job {
            id: l as u64,
            place: Place {
                location: l,
                setup: 0,
                service: 0,
                time_windows: vec![],
            },
            delivery: vec![1],
            pickup: vec![0],
            skills: Skills::default(),
            priority: 0,
            pinned_vehicle: None,
        })
        .collect();
    let vehicle = |id| Vehicle {
        id,
        start: Some(0),
        end: Some(0),
        capacity: vec![cap],
        skills: Skills::default(),
        shift: TimeWindow::ALWAYS,
        breaks: vec![],
        max_duration: None,
        max_travel_time: None,
        max_tasks: None,
    };
    Problem {
        name: "two routes".into(),
        matrix: Matrix::new(pts.len(), d.clone(), d).expect("square"),
        jobs,
        shipments: vec![],
        vehicles: vec![vehicle(1), vehicle(2)],
        dimensions: 1,
        objective: Objective::Distance,
    }
}

/// Runs the inter-route search from the two given routes (job indices); returns the routes
/// and the cost before and after.
fn run(p: &Problem, a: &[u32], b: &[u32]) -> (Vec<Vec<u32>>, i64, i64) {
    let mut inst = Instance::new(p);
    precheck(p, &mut inst);
    let tasks: Vec<u32> = (0..p.jobs.len() as u32).collect();
    let plan = vec![(0, a.to_vec()), (1, b.to_vec())];
    let (mut s, displaced): (State, _) = initial(&inst, &tasks, &plan);
    assert!(displaced.is_empty());
    let before = s.routing_cost();
    let nb = Neighbours::new(&inst, 10);
    improve_between(&inst, &nb, &mut s, &[0, 1], &|| false);
    for r in &s.routes {
        assert!(super::feasible(&inst, r.vehicle, &r.nodes), "{:?}", r.nodes);
    }
    let routes = s.routes.iter().map(|r| r.nodes.clone()).collect();
    (routes, before, s.routing_cost())
}

#[test]
fn relocate_moves_a_stray_visit_to_the_route_beside_it() {
    // Route 0 goes east and takes one visit far north; route 1 serves the north.
    let p = problem(&[(10, 0), (20, 0), (0, 30), (10, 30), (20, 30)], 10);
    let (routes, before, after) = run(&p, &[0, 1, 4], &[2, 3]);
    assert!(after < before);
    assert!(routes[1].contains(&4), "{routes:?}");
}

#[test]
fn full_routes_still_improve_by_exchanging_visits() {
    // Capacity 2: each route keeps two visits, so only an exchange helps.
    let p = problem(&[(10, 0), (0, 30), (10, 30), (20, 0)], 2);
    let (routes, before, after) = run(&p, &[0, 1], &[2, 3]);
    assert!(after < before, "{before} -> {after}");
    let mut east = routes
        .iter()
        .find(|r| r.contains(&0))
        .expect("east")
        .clone();
    east.sort_unstable();
    assert_eq!(east, vec![0, 3]);
}

#[test]
fn two_opt_star_exchanges_crossing_tails() {
    // Two routes that cross: 0 -> (10,0) -> (20,30) and 0 -> (10,30) -> (20,0).
    let p = problem(&[(10, 0), (20, 30), (10, 30), (20, 0)], 10);
    let (_, before, after) = run(&p, &[0, 1], &[2, 3]);
    assert!(after < before, "{before} -> {after}");
}

#[test]
fn no_move_overloads_a_route() {
    // Capacity 2 and both routes full: relocating would overload; the cost may only improve by
    // exchanges, and every route stays within capacity (checked in `run`).
    let p = problem(&[(10, 0), (0, 30), (10, 30), (20, 0)], 2);
    let (routes, _, _) = run(&p, &[0, 1], &[2, 3]);
    assert!(routes.iter().all(|r| r.len() <= 2), "{routes:?}");
}
