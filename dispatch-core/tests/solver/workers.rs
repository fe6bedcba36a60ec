//! Workers side by side: each meets the others' bests of its previous epoch, so the answer for a
//! seed, a thread count and an iteration budget does not depend on how the threads were
//! scheduled, every answer passes the independent checker, and progress (from the calling
//! thread) only improves and ends at the solution's cost.

use std::sync::Mutex;

use crate::solver_support::solomon;
use dispatch_core::solver::checker;
use dispatch_core::solver::problem::Problem;
use dispatch_core::solver::solution::Solution;
use dispatch_core::solver::{solve_with, Config, Control, Progress, Strategy};

#[derive(Default)]
struct Recorder {
    progress: Mutex<Vec<Progress>>,
    iterations: Mutex<Vec<u64>>,
}

impl Control for Recorder {
    fn should_stop(&self) -> bool {
        false
    }
    fn on_improvement(&self, p: &Progress) {
        self.progress.lock().unwrap().push(p.clone());
    }
    fn on_iterations(&self, total: u64) {
        self.iterations.lock().unwrap().push(total);
    }
}

fn solve_checked(
    p: &Problem,
    strategy: Strategy,
    threads: usize,
    iterations: u64,
) -> (Solution, Recorder) {
    let control = Recorder::default();
    let config = Config {
        seed: 7,
        threads,
        max_iterations: Some(iterations),
    };
    let s = solve_with(p, &config, strategy, &control);
    let report = checker::check(p, &s);
    assert!(report.is_feasible(), "{}: {:?}", p.name, report.violations);
    (s, control)
}

#[test]
fn workers_give_the_same_routes_however_their_threads_are_scheduled() {
    let p = solomon("RC101");
    for strategy in [Strategy::Population, Strategy::Annealing] {
        for threads in [2, 3] {
            // Alone, then four at once on the same cores: the workers run at other relative
            // speeds, many epochs apart, yet read the same posts.
            let (alone, _) = solve_checked(&p, strategy, threads, 8_000);
            let crowded: Vec<Solution> = std::thread::scope(|scope| {
                let runs: Vec<_> = (0..4)
                    .map(|_| scope.spawn(|| solve_checked(&p, strategy, threads, 8_000).0))
                    .collect();
                runs.into_iter().map(|r| r.join().unwrap()).collect()
            });
            for s in crowded {
                assert_eq!(s, alone, "{strategy:?}, {threads} threads");
            }
        }
    }
}

#[test]
fn progress_from_side_by_side_workers_only_improves_and_ends_at_the_answer() {
    let p = solomon("R101");
    let (s, control) = solve_checked(&p, Strategy::Auto, 2, 8_000);
    let progress = control.progress.into_inner().unwrap();
    assert!(progress.len() > 1, "progress reported");
    for pair in progress.windows(2) {
        let key = |p: &Progress| (p.unassigned, p.cost);
        assert!(
            key(&pair[1]) < key(&pair[0]),
            "{:?} then {:?}",
            pair[0],
            pair[1]
        );
    }
    let last = progress.last().unwrap();
    assert_eq!(last.vehicles, s.routes.len());
    assert_eq!(last.unassigned, s.unassigned.len());
    let iterations = control.iterations.into_inner().unwrap();
    assert!(iterations.windows(2).all(|w| w[0] <= w[1]));
    assert_eq!(iterations.last(), Some(&8_000));
}
