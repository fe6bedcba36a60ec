//! The population strategy under the core's rules: every solution passes the independent
//! checker (breaks, shipments, mixed fleets, days the fleet cannot finish), the same seed and
//! thread count give the same routes, and progress goes through the observer.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::solver_support::solomon;
use dispatch_core::solver::checker;
use dispatch_core::solver::formats::{self, Format};
use dispatch_core::solver::problem::{Objective, Problem};
use dispatch_core::solver::solution::Solution;
use dispatch_core::solver::{solve_with, Config, Control, Progress, Strategy};

#[derive(Default)]
struct Counting(AtomicUsize);

impl Control for Counting {
    fn should_stop(&self) -> bool {
        false
    }
    fn on_improvement(&self, _p: &Progress) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

fn vroom_problem(name: &str) -> Problem {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/vroom_answers")
        .join(format!("{name}.json"));
    let text = std::fs::read_to_string(path).unwrap();
    formats::read(&text, Some(Format::Vroom), Objective::Duration)
        .unwrap()
        .problem
}

fn population(p: &Problem, seed: u64, threads: usize, iterations: u64) -> (Solution, usize) {
    let control = Counting::default();
    let config = Config {
        seed,
        threads,
        max_iterations: Some(iterations),
    };
    let s = solve_with(p, &config, Strategy::Population, &control);
    let report = checker::check(p, &s);
    assert!(report.is_feasible(), "{}: {:?}", p.name, report.violations);
    (s, control.0.load(Ordering::Relaxed))
}

#[test]
fn population_solutions_pass_the_checker_on_every_constraint_mix() {
    for name in ["tw-jobs", "shipments", "tight", "breaks"] {
        let p = vroom_problem(name);
        let (s, improvements) = population(&p, 3, 1, 3000);
        assert!(improvements > 0, "{name}: progress reported");
        assert!(!s.routes.is_empty(), "{name}");
    }
    let (s, _) = population(&solomon("R101"), 1, 1, 3000);
    assert!(s.unassigned.is_empty());
}

#[test]
fn the_same_seed_and_threads_give_the_same_routes() {
    let p = solomon("RC101");
    for threads in [1, 2] {
        let (a, _) = population(&p, 5, threads, 2500);
        let (b, _) = population(&p, 5, threads, 2500);
        assert_eq!(a, b, "{threads} threads");
    }
}

#[test]
fn children_that_crossed_infeasible_ground_are_repaired_before_they_count() {
    // Tight windows (R1, RC1) and long routes (R2): the penalised children are late or
    // overloaded before their repair; every solution reported must still pass the checker.
    for (name, threads) in [("R101", 1), ("RC105", 2), ("R202", 1)] {
        let p = solomon(name);
        let (s, improvements) = population(&p, 2, threads, 6_000);
        assert!(improvements > 0, "{name}");
        assert!(s.unassigned.is_empty(), "{name}: {:?}", s.unassigned);
    }
}
