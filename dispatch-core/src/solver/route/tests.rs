//! The fast paths of `Route::update` against the general computation.

use super::*;
use crate::solver::problem::*;

/// Every field of two routes' caches, for comparisons.
fn caches(r: &Route) -> String {
    format!("{r:?}")
}

/// The fast paths (no breaks; one load dimension) give exactly the general computation.
#[test]
fn plain_updates_match_the_general_computation() {
    let n = 9usize;
    let d: Vec<i64> = (0..n * n)
        .map(|i| ((i / n) as i64 * 7 - (i % n) as i64 * 3).abs() % 23 + i64::from(i / n != i % n))
        .collect();
    let matrix = Matrix::new(n, d.clone(), d.iter().map(|x| x * 2).collect()).expect("square");
    for dims in [1usize, 2] {
        let jobs: Vec<Job> = (1..n)
            .map(|l| Job {
                id: l as u64,
                place: Place {
                    location: l,
                    setup: (l % 3) as i64,
                    service: (l % 4) as i64,
                    time_windows: if l % 2 == 0 {
                        vec![TimeWindow {
                            start: 10 * l as i64,
                            end: 10 * l as i64 + 30,
                        }]
                    } else {
                        vec![]
                    },
                },
                delivery: vec![l as i64 % 3; dims],
                pickup: vec![l as i64 % 2; dims],
                skills: Skills::default(),
                priority: 0,
                pinned_vehicle: None,
            })
            .collect();
        let p = Problem {
            name: "plain".into(),
            matrix: matrix.clone(),
            jobs,
            shipments: vec![],
            vehicles: vec![Vehicle {
                id: 1,
                start: Some(0),
                end: None,
                capacity: vec![5; dims],
                skills: Skills::default(),
                shift: TimeWindow { start: 0, end: 200 },
                breaks: vec![],
                max_duration: None,
                max_travel_time: None,
                max_tasks: None,
            }],
            dimensions: dims,
            objective: Objective::Duration,
        };
        let inst = Instance::new(&p);
        for seed in 0..40u32 {
            let mut nodes: Vec<u32> = (0..(n - 1) as u32).collect();
            let len = seed as usize % n;
            for i in (1..nodes.len()).rev() {
                nodes.swap(i, (seed as usize * 31 + i * 17) % (i + 1));
            }
            nodes.truncate(len);
            let mut fast = Route::new(&inst, 0);
            fast.nodes.clone_from(&nodes);
            fast.update(&inst);
            let mut general = Route::new(&inst, 0);
            general.nodes = nodes;
            general.update_general(&inst);
            general.update_loads_n(&inst);
            assert_eq!(caches(&fast), caches(&general), "dims {dims}, seed {seed}");
        }
    }
}
