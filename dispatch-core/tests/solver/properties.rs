//! Property tests: on random small instances with every constraint kind, every solution the
//! engine returns passes the independent checker, and a seed with an iteration budget fixes the
//! answer.

use dispatch_core::solver::checker;
use dispatch_core::solver::problem::{
    Break, Job, Matrix, Objective, Place, Problem, Shipment, Skills, TimeWindow, Vehicle,
};
use dispatch_core::solver::solution::{Reason, Step};
use dispatch_core::solver::{solve, Config, Control};
use proptest::prelude::*;

struct Never;

impl Control for Never {
    fn should_stop(&self) -> bool {
        false
    }
}

/// xorshift: the whole instance follows from one proptest-chosen seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> i64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1)) as i64
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent as i64
    }
    fn skills(&mut self, of: u64) -> Skills {
        Skills::from_indices((0..of as usize).filter(|_| self.chance(40)))
    }
    fn windows(&mut self) -> Vec<TimeWindow> {
        let mut out = Vec::new();
        let mut t = self.below(60);
        for _ in 0..self.below(3) {
            let end = t + 20 + self.below(120);
            out.push(TimeWindow { start: t, end });
            t = end + 1 + self.below(50);
        }
        out
    }
    fn amounts(&mut self, dims: usize, max: u64) -> Vec<i64> {
        (0..dims).map(|_| self.below(max)).collect()
    }
}

fn random_problem(seed: u64, objective: Objective) -> Problem {
    let mut r = Rng(seed | 1);
    let n = 2 + r.below(8) as usize;
    let pts: Vec<(i64, i64)> = (0..n).map(|_| (r.below(60), r.below(60))).collect();
    let (mut durations, mut distances) = (Vec::new(), Vec::new());
    for a in &pts {
        for b in &pts {
            let d = (((a.0 - b.0).pow(2) + (a.1 - b.1).pow(2)) as f64)
                .sqrt()
                .round() as i64;
            let same = a == b;
            // Asymmetric on purpose.
            durations.push(if same { 0 } else { d + r.below(6) });
            distances.push(if same { 0 } else { d + r.below(4) });
        }
    }
    let matrix = Matrix::new(n, durations, distances).unwrap();
    let dims = 1 + r.below(2) as usize;
    let loc = |r: &mut Rng| r.below(n as u64) as usize;
    let place = |r: &mut Rng| Place {
        location: loc(r),
        setup: r.below(6),
        service: r.below(11),
        time_windows: r.windows(),
    };
    let n_vehicles = 1 + r.below(3) as usize;
    let jobs = (0..r.below(9) as u64)
        .map(|id| Job {
            id,
            place: place(&mut r),
            delivery: r.amounts(dims, 7),
            pickup: if r.chance(40) {
                r.amounts(dims, 5)
            } else {
                vec![0; dims]
            },
            skills: r.skills(2),
            priority: r.below(3) as u32,
            pinned_vehicle: r.chance(10).then(|| r.below(n_vehicles as u64) as usize),
        })
        .collect();
    let shipments = (0..r.below(4) as u64)
        .map(|id| Shipment {
            pickup_id: 100 + id,
            delivery_id: 200 + id,
            pickup: place(&mut r),
            delivery: place(&mut r),
            amount: r.amounts(dims, 8),
            skills: r.skills(2),
            priority: r.below(3) as u32,
            pinned_vehicle: r.chance(10).then(|| r.below(n_vehicles as u64) as usize),
        })
        .collect();
    let vehicles = (0..n_vehicles as u64)
        .map(|id| {
            let start = r.below(40);
            Vehicle {
                id,
                start: (!r.chance(20)).then(|| loc(&mut r)),
                end: (!r.chance(20)).then(|| loc(&mut r)),
                capacity: r.amounts(dims, 20).iter().map(|c| c + 4).collect(),
                skills: r.skills(3),
                shift: TimeWindow {
                    start,
                    end: start + 150 + r.below(300),
                },
                breaks: if r.chance(30) {
                    let s = r.below(200);
                    vec![Break {
                        id: 900 + id,
                        time_windows: vec![TimeWindow {
                            start: s,
                            end: s + 30 + r.below(100),
                        }],
                        service: r.below(15),
                    }]
                } else {
                    Vec::new()
                },
                max_duration: r.chance(20).then(|| 100 + r.below(300)),
                max_travel_time: r.chance(20).then(|| 50 + r.below(200)),
                max_tasks: r.chance(20).then(|| 1 + r.below(5) as usize),
            }
        })
        .collect();
    Problem {
        name: format!("random-{seed}"),
        matrix,
        jobs,
        shipments,
        vehicles,
        dimensions: dims,
        objective,
    }
}

const OBJECTIVES: [Objective; 4] = [
    Objective::Distance,
    Objective::VehiclesThenDistance,
    Objective::Duration,
    Objective::VehiclesThenDuration,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_solution_passes_the_independent_checker(seed in any::<u64>(), o in 0usize..4) {
        let problem = random_problem(seed, OBJECTIVES[o]);
        let config = Config { seed, threads: 1, max_iterations: Some(150) };
        let solution = solve(&problem, &config, &Never);
        let report = checker::check(&problem, &solution);
        prop_assert!(report.is_feasible(), "{:#?}\n{:#?}\n{:#?}", report.violations, solution, problem);
        prop_assert_eq!(report.served + report.unassigned, problem.jobs.len() + problem.shipments.len());
        for u in &solution.unassigned {
            if u.reason == Reason::Skills {
                let (skills, pinned) = match u.task {
                    Step::Job(i) => (&problem.jobs[i].skills, problem.jobs[i].pinned_vehicle),
                    Step::Pickup(i) => (&problem.shipments[i].skills, problem.shipments[i].pinned_vehicle),
                    other => panic!("unassigned {other:?}"),
                };
                let able = problem.vehicles.iter().enumerate().any(|(k, v)| {
                    pinned.is_none_or(|p| p == k) && skills.is_subset_of(&v.skills)
                });
                prop_assert!(!able, "{:?} unassigned for SKILLS but a vehicle has them", u.task);
            }
        }
    }

    #[test]
    fn a_seed_and_an_iteration_budget_fix_the_answer(seed in any::<u64>()) {
        let problem = random_problem(seed, Objective::VehiclesThenDistance);
        let config = Config { seed: seed % 7, threads: 2, max_iterations: Some(200) };
        let a = solve(&problem, &config, &Never);
        let b = solve(&problem, &config, &Never);
        prop_assert_eq!(a, b);
    }
}

/// Found by the property above: removing visits from a route left the rest infeasible (a
/// break and a duration limit, travel times off the triangle inequality), and the search
/// carried it to the end ("search produced an infeasible route").
#[test]
fn a_route_left_infeasible_by_a_removal_is_rebuilt_not_returned() {
    let seed = 8_918_653_980_919_254_930;
    let problem = random_problem(seed, Objective::VehiclesThenDistance);
    let config = Config {
        seed,
        threads: 1,
        max_iterations: Some(150),
    };
    let solution = solve(&problem, &config, &Never);
    let report = checker::check(&problem, &solution);
    assert!(report.is_feasible(), "{:#?}", report.violations);
    assert_eq!(
        report.served + report.unassigned,
        problem.jobs.len() + problem.shipments.len()
    );
}
