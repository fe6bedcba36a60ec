//! Seeded random days for the operator tests: a 40 x 40 plane, jobs with zero to two windows
//! and set-up times, two load dimensions, shipments, three vehicles with a break each (one
//! vehicle without), and random starting routes (repaired to feasible by the warm start).

use crate::solver::problem::*;
use crate::solver::rng::Rng;

const JOBS: usize = 18;
const SHIPMENTS: usize = 4;

fn place(location: usize, rng: &mut Rng) -> Place {
    let windows = match rng.below(3) {
        0 => vec![],
        1 => {
            let s = rng.below(300) as i64;
            vec![TimeWindow {
                start: s,
                end: s + 60 + rng.below(120) as i64,
            }]
        }
        _ => {
            let s = rng.below(150) as i64;
            vec![
                TimeWindow {
                    start: s,
                    end: s + 40,
                },
                TimeWindow {
                    start: s + 150,
                    end: s + 230,
                },
            ]
        }
    };
    Place {
        location,
        setup: rng.below(3) as i64,
        service: 2 + rng.below(6) as i64,
        time_windows: windows,
    }
}

/// A day with its matrix over the depot (location 0) and one location per visit.
pub(super) fn day(rng: &mut Rng) -> Problem {
    let visits = JOBS + 2 * SHIPMENTS;
    let mut pts = vec![(20i64, 20i64)];
    for _ in 0..visits {
        pts.push((rng.below(41) as i64, rng.below(41) as i64));
    }
    // Two visits share a location now and then (set-up is spent once there).
    pts[2] = pts[1];
    let points: Vec<(i64, i64)> = pts[1..].iter().map(|&(x, y)| (x - 20, y - 20)).collect();
    let matrix = super::plane(&points);
    let jobs = (0..JOBS)
        .map(|j| Job {
            id: j as u64 + 1,
            place: place(j + 1, rng),
            delivery: vec![rng.below(3) as i64, rng.below(2) as i64],
            pickup: vec![rng.below(2) as i64, rng.below(3) as i64],
            skills: Skills::default(),
            priority: 0,
            pinned_vehicle: None,
        })
        .collect();
    let shipments = (0..SHIPMENTS)
        .map(|s| Shipment {
            pickup_id: 100 + 2 * s as u64,
            delivery_id: 101 + 2 * s as u64,
            pickup: place(JOBS + 2 * s + 1, rng),
            delivery: place(JOBS + 2 * s + 2, rng),
            amount: vec![1 + rng.below(3) as i64, rng.below(2) as i64],
            skills: Skills::default(),
            priority: 0,
            pinned_vehicle: None,
        })
        .collect();
    let vehicles = (0..3)
        .map(|v| Vehicle {
            id: v as u64 + 1,
            start: Some(0),
            end: Some(0),
            capacity: vec![9, 8],
            skills: Skills::default(),
            shift: TimeWindow { start: 0, end: 480 },
            breaks: if v < 2 {
                vec![Break {
                    id: 50 + v as u64,
                    time_windows: vec![TimeWindow {
                        start: 120 + 40 * v as i64,
                        end: 200 + 40 * v as i64,
                    }],
                    service: 20,
                }]
            } else {
                vec![]
            },
            max_duration: None,
            max_travel_time: None,
            max_tasks: None,
        })
        .collect();
    Problem {
        name: "random day".into(),
        matrix,
        jobs,
        shipments,
        vehicles,
        dimensions: 2,
        objective: Objective::Duration,
    }
}

/// Random routes: each task on a random vehicle, visits in random order, every shipment's
/// pickup before its delivery.
pub(super) fn plan(p: &Problem, rng: &mut Rng) -> Vec<(usize, Vec<u32>)> {
    let nv = p.vehicles.len();
    let mut routes: Vec<Vec<u32>> = vec![Vec::new(); nv];
    for j in 0..p.jobs.len() {
        let r = &mut routes[rng.below(nv)];
        let at = rng.below(r.len() + 1);
        r.insert(at, j as u32);
    }
    for s in 0..p.shipments.len() {
        let first = (p.jobs.len() + 2 * s) as u32;
        let r = &mut routes[rng.below(nv)];
        let at = rng.below(r.len() + 1);
        r.insert(at, first);
        let later = at + 1 + rng.below(r.len() - at);
        r.insert(later, first + 1);
    }
    routes.into_iter().enumerate().collect()
}
