//! Micro-benchmarks of the solver's inner loop: constant-time insertion checks (positions
//! examined per second) and 2-opt* verdicts on a constructed solution, and whole
//! ruin-and-recreate iterations.
//! Run with `cargo bench --bench solver_moves`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dispatch_core::solver::probe::InsertionProbe;
use dispatch_core::solver::problem::*;
use dispatch_core::solver::{solve, Config, Control};

struct Never;

impl Control for Never {
    fn should_stop(&self) -> bool {
        false
    }
}

/// A deterministic Solomon-like instance: `n` customers around a central depot, time windows
/// of varying width, and, when `paired`, the customers grouped into pickup-delivery shipments.
fn instance(n: usize, paired: bool) -> Problem {
    let mut state = 12345u64;
    let mut next = move |m: i64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as i64) % m
    };
    let mut pts = vec![(500i64, 500i64)];
    pts.extend((0..n).map(|_| (next(1000), next(1000))));
    let size = pts.len();
    let mut d = Vec::with_capacity(size * size);
    for a in &pts {
        for b in &pts {
            let (dx, dy) = ((a.0 - b.0) as f64, (a.1 - b.1) as f64);
            d.push((dx * dx + dy * dy).sqrt().ceil() as i64);
        }
    }
    let matrix = Matrix::new(size, d.clone(), d).expect("square matrix");
    let mut place = |location: usize| {
        let start = next(8000);
        Place {
            location,
            setup: 0,
            service: 100,
            time_windows: vec![TimeWindow {
                start,
                end: start + 300 + next(2000),
            }],
        }
    };
    let (mut jobs, mut shipments) = (Vec::new(), Vec::new());
    if paired {
        for k in 0..n / 2 {
            shipments.push(Shipment {
                pickup_id: 2 * k as u64 + 1,
                delivery_id: 2 * k as u64 + 2,
                pickup: place(2 * k + 1),
                delivery: place(2 * k + 2),
                amount: vec![10],
                skills: Skills::default(),
                priority: 0,
                pinned_vehicle: None,
            });
        }
    } else {
        for k in 1..=n {
            jobs.push(Job {
                id: k as u64,
                place: place(k),
                delivery: vec![10],
                pickup: vec![0],
                skills: Skills::default(),
                priority: 0,
                pinned_vehicle: None,
            });
        }
    }
    let vehicles = (0..n as u64 / 4)
        .map(|id| Vehicle {
            id,
            start: Some(0),
            end: Some(0),
            capacity: vec![200],
            skills: Skills::default(),
            shift: TimeWindow {
                start: 0,
                end: 12000,
            },
            breaks: vec![],
            max_duration: None,
            max_travel_time: None,
            max_tasks: None,
        })
        .collect();
    Problem {
        name: "bench".into(),
        matrix,
        jobs,
        shipments,
        vehicles,
        dimensions: 1,
        objective: Objective::Distance,
    }
}

fn insertion_checks(c: &mut Criterion) {
    let mut group = c.benchmark_group("insertion_checks");
    for (name, paired) in [("jobs_200", false), ("shipments_100", true)] {
        let problem = instance(200, paired);
        let probe = InsertionProbe::new(&problem, 1);
        group.throughput(Throughput::Elements(probe.evaluate_all()));
        group.bench_function(name, |b| b.iter(|| probe.evaluate_all()));
    }
    group.finish();
}

/// 2-opt* verdicts for every cut of every pair of routes: from the routes' caches against the
/// re-simulation of both new routes that decided every exchange before.
fn exchange_verdicts(c: &mut Criterion) {
    let problem = instance(200, false);
    let probe = InsertionProbe::new(&problem, 1);
    let mut group = c.benchmark_group("two_opt_star_verdicts");
    group.throughput(Throughput::Elements(probe.decide_exchanges(true)));
    for (name, cached) in [("cached_200", true), ("simulated_200", false)] {
        group.bench_function(name, |b| b.iter(|| probe.decide_exchanges(cached)));
    }
    group.finish();
}

fn search_iterations(c: &mut Criterion) {
    let problem = instance(100, false);
    let mut group = c.benchmark_group("sisr_iterations");
    group.sample_size(10);
    group.throughput(Throughput::Elements(2000));
    group.bench_function("jobs_100_x2000", |b| {
        b.iter(|| {
            let config = Config {
                seed: 1,
                threads: 1,
                max_iterations: Some(2000),
            };
            solve(&problem, &config, &Never)
        })
    });
    group.finish();
}

// `criterion_group!` defines the undocumented `pub fn benches` that `criterion_main!` calls.
#[allow(missing_docs)]
mod group {
    use super::*;

    criterion_group!(
        benches,
        insertion_checks,
        exchange_verdicts,
        search_iterations
    );
}
criterion_main!(group::benches);
