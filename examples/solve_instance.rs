//! Solving with the core API directly: build a `Problem` (here from a Solomon-format text),
//! call `solve` with a `Control` that reports progress and can be cancelled from another thread,
//! then verify the `Solution` with the independent checker.
//!
//! `cargo run --release --example solve_instance [FILE] [SECONDS]` — without a file it solves a
//! small built-in instance.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use dispatch_core::solver::formats::{self, SCALE};
use dispatch_core::solver::problem::Objective;
use dispatch_core::solver::solution::Step;
use dispatch_core::solver::{checker, solve, Config, Control, Progress};

/// Stops when cancelled or at a deadline; prints every improvement.
struct Cancellable {
    started: Instant,
    limit: Duration,
    cancelled: AtomicBool,
}

impl Control for Cancellable {
    fn should_stop(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || self.started.elapsed() >= self.limit
    }

    fn on_improvement(&self, p: &Progress) {
        eprintln!(
            "{:6.2}s  vehicles {:2}  cost {:10.2}  unassigned {}",
            self.started.elapsed().as_secs_f64(),
            p.vehicles,
            p.cost as f64 / SCALE as f64,
            p.unassigned
        );
    }

    fn elapsed_fraction(&self) -> Option<f64> {
        Some((self.started.elapsed().as_secs_f64() / self.limit.as_secs_f64()).min(1.0))
    }
}

const BUILT_IN: &str =
    "EXAMPLE\nVEHICLE\nNUMBER CAPACITY\n4 40\nCUSTOMER\nCUST NO. X Y DEMAND READY DUE SERVICE\n\
0 50 50 0 0 400 0\n1 60 70 10 0 120 10\n2 70 65 10 30 150 10\n3 30 40 20 0 200 10\n\
4 20 60 10 100 250 10\n5 45 20 15 0 300 10\n6 80 30 10 50 220 10\n7 55 85 5 0 300 10\n";

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let text = match args.next() {
        Some(path) => std::fs::read_to_string(&path).map_err(|e| format!("{path}: {e}"))?,
        None => BUILT_IN.to_owned(),
    };
    let seconds: f64 = args.next().map_or(Ok(2.0), |s| {
        s.parse().map_err(|_| "SECONDS must be a number")
    })?;
    let instance =
        formats::read(&text, None, Objective::VehiclesThenDistance).map_err(|e| e.to_string())?;

    let control = Cancellable {
        started: Instant::now(),
        limit: Duration::from_secs_f64(seconds),
        cancelled: AtomicBool::new(false),
    };
    let config = Config {
        seed: 1,
        threads: 2,
        max_iterations: None,
    };
    // Another thread may cancel at any time; the search then returns its best solution so far.
    let solution = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_secs_f64(seconds * 0.9));
            control.cancelled.store(true, Ordering::Relaxed);
        });
        solve(&instance.problem, &config, &control)
    });

    let report = checker::check(&instance.problem, &solution);
    println!(
        "{}: {} vehicles, feasible: {}",
        instance.problem.name,
        report.vehicles,
        report.is_feasible()
    );
    if let Some(plane) = &instance.plane {
        let exact = checker::plane::check_plane(&instance.problem, &solution, plane);
        println!(
            "distance {:.2} (DIMACS {:.1})",
            exact.distance, exact.dimacs_distance
        );
    }
    for route in &solution.routes {
        let nodes: Vec<String> = route
            .steps
            .iter()
            .filter(|s| !matches!(s.step, Step::Break(_)))
            .map(|s| instance.step_id(route.vehicle, s.step).to_string())
            .collect();
        println!(
            "vehicle {}: {}",
            instance.problem.vehicles[route.vehicle].id,
            nodes.join(" ")
        );
    }
    for u in &solution.unassigned {
        println!(
            "unassigned {}: {}",
            instance.step_id(0, u.task),
            u.reason.code()
        );
    }
    Ok(())
}
