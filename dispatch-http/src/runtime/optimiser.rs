//! The optimisation workers: a bounded pool of OS threads (the solver is CPU-bound; the async
//! runtime's threads stay free for HTTP) that claim jobs from the store's durable queue.
//!
//! - A worker claims the oldest queued job under a lease and renews it every third of the lease
//!   while the job runs; a job whose worker died (`kill -9`, power loss) keeps its expired lease
//!   and is re-queued by the next worker that looks (or failed after
//!   [`MAX_ATTEMPTS`](dispatch_core::model::optimisation::MAX_ATTEMPTS) starts), so no job
//!   stays `in_progress` forever.
//! - Each job's budget scales with its size
//!   ([`time_budget_ms`](dispatch_core::model::optimisation::time_budget_ms)) within the
//!   `serve` flags' bounds; the search stops at the budget, on cancellation (a renewal finds the
//!   job cancelled: its plan was deleted or re-optimised) or at shutdown, and the best solution
//!   found is saved (a cancelled job's result is discarded).
//! - New jobs wake an idle worker through [`JobSignal`]; workers also poll, so jobs queued by
//!   another process on the same database are picked up.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dispatch_core::model::optimisation::{time_budget_ms, Optimisation, OrderSelection};
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::matrix::TravelMatrix;
use dispatch_core::ports::store::Store;
use dispatch_core::service::optimisation::{
    is_cancelled, recover_expired, run_job, JobFollowUp, JobOutcome,
};
use dispatch_core::solver;

use super::JobSignal;

/// How the pool runs.
#[derive(Debug, Clone)]
pub struct OptimiserConfig {
    /// Jobs running at once (0: this process runs no jobs).
    pub workers: usize,
    /// Solver threads of each job.
    pub solver_threads: usize,
    /// Shortest budget of a job.
    pub min_budget: Duration,
    /// Longest budget of a job.
    pub max_budget: Duration,
    /// How long a claim lasts without renewal.
    pub lease: Duration,
    /// How often an idle worker looks at the queue without being woken.
    pub poll: Duration,
}

impl Default for OptimiserConfig {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        OptimiserConfig {
            workers: cores,
            solver_threads: 1,
            min_budget: Duration::from_secs(1),
            max_budget: Duration::from_secs(30),
            lease: Duration::from_secs(10),
            poll: Duration::from_millis(500),
        }
    }
}

/// What every worker shares.
struct Shared {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    matrix: Arc<dyn TravelMatrix>,
    follow_up: Arc<dyn JobFollowUp>,
    signal: JobSignal,
    config: OptimiserConfig,
    stop: AtomicBool,
}

/// The running pool; [`Optimiser::shutdown`] stops it.
pub struct Optimiser {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Optimiser {
    /// Starts `config.workers` worker threads.
    pub fn start(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        matrix: Arc<dyn TravelMatrix>,
        follow_up: Arc<dyn JobFollowUp>,
        signal: JobSignal,
        config: OptimiserConfig,
    ) -> Optimiser {
        let shared = Arc::new(Shared {
            store,
            clock,
            matrix,
            follow_up,
            signal,
            config,
            stop: AtomicBool::new(false),
        });
        let workers = (0..shared.config.workers)
            .map(|n| {
                let shared = shared.clone();
                std::thread::Builder::new()
                    .name(format!("optimiser-{n}"))
                    .spawn(move || worker(&shared))
                    .expect("spawning a worker thread")
            })
            .collect();
        Optimiser { shared, workers }
    }

    /// Stops the workers: running jobs end their search now and save the best solution found.
    pub fn shutdown(self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        self.shared.signal.notify();
        for w in self.workers {
            let _ = w.join();
        }
    }
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn worker(shared: &Shared) {
    let mut seen = shared.signal.current();
    while !shared.stop.load(Ordering::SeqCst) {
        let now = shared.clock.now();
        match recover_expired(&*shared.store, now) {
            Ok(jobs) => {
                for job in jobs {
                    tracing::warn!(job = %job.id, state = job.state.as_str(), attempts = job.attempts,
                        "optimisation lost its worker");
                }
            }
            Err(e) => tracing::error!(error = %e, "cannot recover optimisations"),
        }
        let lease_until = now.add_millis(millis(shared.config.lease));
        match shared
            .store
            .transaction(|tx| tx.claim_optimisation(now, lease_until))
        {
            Ok(Some(job)) => run(shared, &job),
            Ok(None) => seen = shared.signal.wait(seen, shared.config.poll),
            Err(e) => {
                tracing::error!(error = %e, "cannot claim an optimisation");
                seen = shared.signal.wait(seen, shared.config.poll);
            }
        }
    }
}

/// Stops the search at the budget, on cancellation or at shutdown.
struct JobControl<'a> {
    started: Instant,
    budget: Duration,
    cancelled: AtomicBool,
    stop: &'a AtomicBool,
    /// Iterations already added to `dispatch_solver_iterations_total`.
    counted: AtomicU64,
}

impl solver::Control for JobControl<'_> {
    fn should_stop(&self) -> bool {
        self.started.elapsed() >= self.budget
            || self.cancelled.load(Ordering::Relaxed)
            || self.stop.load(Ordering::Relaxed)
    }

    fn elapsed_fraction(&self) -> Option<f64> {
        Some((self.started.elapsed().as_secs_f64() / self.budget.as_secs_f64().max(1e-3)).min(1.0))
    }

    fn on_iterations(&self, total: u64) {
        // Added as they come (the workers meet every few hundred iterations), so a scrape
        // during a long job sees it progress.
        let before = self.counted.swap(total, Ordering::Relaxed);
        metrics::counter!("dispatch_solver_iterations_total")
            .increment(total.saturating_sub(before));
    }
}

/// The number of orders a job plans, for its budget.
fn size(shared: &Shared, job: &Optimisation) -> usize {
    match &job.spec.selection {
        OrderSelection::Ids(ids) => ids.len(),
        OrderSelection::DueOnDate => {
            let scope = dispatch_core::model::organisation::DepotScope {
                organisation_id: job.organisation_id,
                depot_id: job.depot_id,
            };
            shared
                .store
                .read(|tx| tx.order_ids_due(scope, job.date))
                .map_or(0, |ids| ids.len())
        }
    }
}

fn run(shared: &Shared, job: &Optimisation) {
    let c = &shared.config;
    let budget = Duration::from_millis(time_budget_ms(
        size(shared, job),
        millis(c.min_budget) as u64,
        millis(c.max_budget) as u64,
    ));
    let control = JobControl {
        started: Instant::now(),
        budget,
        cancelled: AtomicBool::new(false),
        stop: &shared.stop,
        counted: AtomicU64::new(0),
    };
    let config = solver::Config {
        seed: 1,
        threads: c.solver_threads.max(1),
        max_iterations: None,
    };
    let finished = AtomicBool::new(false);
    tracing::info!(job = %job.id, plan = job.plan_id, attempt = job.attempts, ?budget, "optimisation started");
    metrics::counter!("dispatch_optimisation_jobs_started_total").increment(1);
    let outcome = std::thread::scope(|s| {
        s.spawn(|| heartbeat(shared, job, &control, &finished));
        let outcome = run_job(
            &*shared.store,
            &*shared.matrix,
            &*shared.clock,
            job,
            &config,
            &control,
            &*shared.follow_up,
        );
        finished.store(true, Ordering::SeqCst);
        outcome
    });
    let ended = match &outcome {
        Ok(JobOutcome::Succeeded { .. }) => "succeeded",
        Ok(JobOutcome::Failed(_)) => "failed",
        Ok(JobOutcome::Discarded) => "cancelled",
        Err(_) => "interrupted",
    };
    metrics::counter!("dispatch_optimisation_jobs_finished_total", "outcome" => ended).increment(1);
    metrics::histogram!("dispatch_optimisation_job_duration_seconds", "outcome" => ended)
        .record(control.started.elapsed().as_secs_f64());
    match outcome {
        Ok(JobOutcome::Succeeded {
            solution_id,
            problem_error,
            follow_up_error,
        }) => {
            tracing::info!(job = %job.id, solution = solution_id, elapsed = ?control.started.elapsed(), "optimisation succeeded");
            if let Some(error) = problem_error {
                tracing::warn!(job = %job.id, %error, "the solved problem could not be kept for export");
            }
            if let Some(error) = follow_up_error {
                tracing::warn!(job = %job.id, plan = job.plan_id, %error, "the plan was saved undispatched; its job's error says why");
            }
        }
        Ok(JobOutcome::Failed(reason)) => {
            tracing::warn!(job = %job.id, %reason, "optimisation failed")
        }
        Ok(JobOutcome::Discarded) => {
            tracing::info!(job = %job.id, "optimisation cancelled; result discarded")
        }
        // The job stays running; its lease runs out and it is tried again.
        Err(e) => tracing::error!(job = %job.id, error = %e, "optimisation interrupted"),
    }
}

/// Renews the lease while the job runs and flags cancellation when the job is no longer ours.
fn heartbeat(shared: &Shared, job: &Optimisation, control: &JobControl<'_>, finished: &AtomicBool) {
    let every = shared.config.lease / 3;
    let mut last = Instant::now();
    while !finished.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50).min(every));
        if last.elapsed() < every {
            continue;
        }
        last = Instant::now();
        let until = shared.clock.now().add_millis(millis(shared.config.lease));
        let renewed = shared
            .store
            .transaction(|tx| tx.renew_optimisation_lease(&job.id, until));
        let ours = match renewed {
            Ok(true) => !is_cancelled(&*shared.store, job).unwrap_or(false),
            Ok(false) => false,
            Err(e) => {
                tracing::warn!(job = %job.id, error = %e, "cannot renew the lease");
                true
            }
        };
        if !ours {
            control.cancelled.store(true, Ordering::SeqCst);
        }
    }
}
