//! Quality measurement of the engine on benchmark files (ignored by default; release build):
//! `SOLVE_FILES="C101 R101" SOLVE_SECS=1 SOLVE_THREADS=2 SOLVE_OBJECTIVE=distance \
//!  cargo test --release -p dispatch-core --test solver_engine_bench -- --ignored --nocapture`
//! `SOLVE_INSTANCES=DIR` reads from another folder laid out like `instances/` (e.g. the full sets).
//! Every solution is re-checked by the independent checker, in integers and in double precision.

mod solver_support;

use std::time::{Duration, Instant};

use dispatch_core::solver::checker::{self, plane::check_plane};
use dispatch_core::solver::formats;
use dispatch_core::solver::problem::Objective;
use dispatch_core::solver::{solve, Config, Control};

struct Deadline {
    start: Instant,
    limit: Duration,
}

impl Control for Deadline {
    fn should_stop(&self) -> bool {
        self.start.elapsed() >= self.limit
    }
    fn elapsed_fraction(&self) -> Option<f64> {
        Some(self.start.elapsed().as_secs_f64() / self.limit.as_secs_f64())
    }
}

fn bks(dir: &std::path::Path, name: &str, objective: &str) -> Option<(usize, f64)> {
    let text = std::fs::read_to_string(dir.join("bks.csv")).ok()?;
    text.lines().find_map(|l| {
        let f: Vec<&str> = l.split(',').collect();
        (f.len() > 3 && f[0].eq_ignore_ascii_case(name) && f[3] == objective)
            .then(|| (f[1].parse().unwrap_or(0), f[2].parse().unwrap_or(0.0)))
    })
}

#[test]
#[ignore = "benchmark: run explicitly in release mode"]
fn engine_quality_on_benchmark_files() {
    let root = std::env::var_os("SOLVE_INSTANCES")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(solver_support::instances);
    let env = |k: &str, d: &str| std::env::var(k).unwrap_or_else(|_| d.to_string());
    let secs: f64 = env("SOLVE_SECS", "1").parse().expect("SOLVE_SECS");
    let threads: usize = env("SOLVE_THREADS", "2").parse().expect("SOLVE_THREADS");
    let vehicles_first = env("SOLVE_OBJECTIVE", "distance") != "distance";
    let objective = if vehicles_first {
        Objective::VehiclesThenDistance
    } else {
        Objective::Distance
    };
    let (mut gaps, mut at_bks_vehicles, mut count) = (Vec::new(), 0, 0);
    for name in env("SOLVE_FILES", "C101 R101 RC101 R201").split_whitespace() {
        let set = if name.starts_with('l') || name.starts_with('L') {
            "lilim"
        } else if name.contains('_') {
            "homberger"
        } else {
            "solomon"
        };
        let dir = root.join(set);
        let text = solver_support::read_text(&dir.join(format!("{name}.txt")));
        let inst = formats::read(&text, None, objective).expect("readable instance");
        let start = Instant::now();
        let control = Deadline {
            start,
            limit: Duration::from_secs_f64(secs),
        };
        let config = Config {
            seed: 1,
            threads,
            max_iterations: None,
        };
        let sol = solve(&inst.problem, &config, &control);
        let elapsed = start.elapsed().as_secs_f64();
        let report = checker::check(&inst.problem, &sol);
        let plane = inst
            .plane
            .as_ref()
            .map(|p| check_plane(&inst.problem, &sol, p));
        let feasible = report.is_feasible() && plane.as_ref().is_none_or(|p| p.is_feasible());
        let (dist, dimacs) = plane
            .as_ref()
            .map_or((0.0, 0.0), |p| (p.distance, p.dimacs_distance));
        let (row, mine) = if vehicles_first || set == "lilim" {
            ("hierarchical", dist)
        } else {
            ("distance", dimacs)
        };
        let (bv, bd) = bks(&dir, name, row).unwrap_or((0, 0.0));
        let gap = if bd > 0.0 {
            100.0 * (mine - bd) / bd
        } else {
            f64::NAN
        };
        gaps.push(gap);
        count += 1;
        if sol.routes.len() <= bv {
            at_bks_vehicles += 1;
        }
        println!(
            "{name:10} veh {:3} (bks {bv:3}) dist {mine:10.2} bks {bd:10.2} gap {gap:6.2}% unassigned {} time {elapsed:.2}s {}",
            sol.routes.len(),
            sol.unassigned.len(),
            if feasible { "ok" } else { "INFEASIBLE" }
        );
        if !feasible {
            println!(
                "  {:?}",
                report.violations.iter().take(3).collect::<Vec<_>>()
            );
        }
    }
    let mean = gaps.iter().sum::<f64>() / gaps.len().max(1) as f64;
    println!("mean gap {mean:.2}% over {count}; at bks vehicle count {at_bks_vehicles}/{count}");
}
