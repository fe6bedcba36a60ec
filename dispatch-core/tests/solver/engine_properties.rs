//! Property tests: random small instances mixing every constraint kind always get solutions the
//! independent checker accepts; an iteration budget makes the search reproducible.

use crate::solver_engine_common;

use dispatch_core::solver::problem::*;
use proptest::prelude::*;
use solver_engine_common::*;

type Window = Option<(i64, i64)>;
/// Location, delivery, pickup, window, needs the skill, priority, set-up.
type JobSpec = (usize, i64, i64, Window, bool, u32, i64);
/// Pickup location, delivery location, amount, delivery window.
type ShipmentSpec = (usize, usize, i64, Window);
/// Open start, open end, capacity, has the skill, max duration, max tasks, shift end.
type VehicleSpec = (bool, bool, i64, bool, Option<i64>, Option<usize>, i64);

#[derive(Debug, Clone)]
struct Spec {
    points: Vec<(i64, i64)>,
    jobs: Vec<JobSpec>,
    shipments: Vec<ShipmentSpec>,
    vehicles: Vec<VehicleSpec>,
    second_window: bool,
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        prop::collection::vec((0i64..60, 0i64..60), 4..9),
        prop::collection::vec(
            (
                0usize..9,
                0i64..4,
                0i64..3,
                prop::option::of((0i64..150, 10i64..80)),
                any::<bool>(),
                0u32..3,
                0i64..6,
            ),
            0..9,
        ),
        prop::collection::vec(
            (
                0usize..9,
                0usize..9,
                1i64..4,
                prop::option::of((0i64..150, 10i64..80)),
            ),
            0..4,
        ),
        prop::collection::vec(
            (
                any::<bool>(),
                any::<bool>(),
                2i64..8,
                any::<bool>(),
                prop::option::of(60i64..300),
                prop::option::of(1usize..5),
                150i64..400,
            ),
            1..4,
        ),
        any::<bool>(),
    )
        .prop_map(|(points, jobs, shipments, vehicles, second_window)| Spec {
            points,
            jobs,
            shipments,
            vehicles,
            second_window,
        })
}

fn build(s: &Spec) -> Problem {
    let n = s.points.len();
    let window = |w: Option<(i64, i64)>| -> Vec<TimeWindow> {
        match w {
            None => vec![],
            Some((a, len)) if s.second_window => vec![
                TimeWindow {
                    start: a,
                    end: a + len,
                },
                TimeWindow {
                    start: a + len + 50,
                    end: a + 2 * len + 50,
                },
            ],
            Some((a, len)) => vec![TimeWindow {
                start: a,
                end: a + len,
            }],
        }
    };
    let jobs = s
        .jobs
        .iter()
        .enumerate()
        .map(|(i, &(loc, del, pick, w, skill, prio, setup))| {
            let mut j = job(i as u64, loc % n, del);
            j.pickup = vec![pick];
            j.place.time_windows = window(w);
            j.place.service = 3;
            j.place.setup = setup;
            j.priority = prio;
            if skill {
                j.skills = Skills::from_indices([0]);
            }
            j
        })
        .collect();
    let shipments = s
        .shipments
        .iter()
        .enumerate()
        .map(|(i, &(a, b, amount, w))| {
            let mut sh = shipment(100 + 2 * i as u64, a % n, b % n, amount);
            sh.delivery.time_windows = window(w);
            sh.pickup.service = 2;
            sh
        })
        .collect();
    let vehicles = s
        .vehicles
        .iter()
        .enumerate()
        .map(
            |(i, &(open_start, open_end, cap, skill, max_duration, max_tasks, shift_end))| {
                let mut v = vehicle(i as u64, 0, cap);
                if open_start {
                    v.start = None;
                }
                if open_end {
                    v.end = None;
                }
                if skill {
                    v.skills = Skills::from_indices([0]);
                }
                v.max_duration = max_duration;
                v.max_tasks = max_tasks;
                v.shift = TimeWindow {
                    start: 0,
                    end: shift_end,
                };
                if i == 0 {
                    v.breaks = vec![Break {
                        id: 1,
                        time_windows: vec![TimeWindow { start: 40, end: 90 }],
                        service: 15,
                    }];
                }
                v
            },
        )
        .collect();
    problem(plane(&s.points), jobs, shipments, vehicles)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_solution_of_a_random_instance_passes_the_checker(s in spec(), seed in 0u64..4) {
        let p = build(&s);
        solve_checked(&p, seed, 1, 150);
    }

    #[test]
    fn vehicles_first_solutions_pass_the_checker_too(s in spec()) {
        let mut p = build(&s);
        p.objective = Objective::VehiclesThenDuration;
        solve_checked(&p, 3, 2, 100);
    }
}

#[test]
fn the_same_seed_and_iteration_budget_give_the_same_solution() {
    let points: Vec<(i64, i64)> = (0..41).map(|i| ((i * 37) % 100, (i * 61) % 100)).collect();
    let jobs: Vec<Job> = (1..41)
        .map(|i| {
            let mut j = job(i as u64, i, 1 + (i as i64 % 3));
            j.place.time_windows = vec![TimeWindow {
                start: (i as i64 * 13) % 200,
                end: (i as i64 * 13) % 200 + 150,
            }];
            j.place.service = 5;
            j
        })
        .collect();
    let p = problem(
        plane(&points),
        jobs,
        vec![],
        (0..8).map(|v| vehicle(v, 0, 12)).collect(),
    );
    let a = solve_checked(&p, 42, 2, 3000);
    let b = solve_checked(&p, 42, 2, 3000);
    assert_eq!(a, b);
}
