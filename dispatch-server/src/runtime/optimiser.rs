//! The optimisation workers: a bounded pool of OS threads (the solver is CPU-bound; the async
//! runtime's threads stay free for HTTP) that claim jobs from the store's durable queue.
//!
//! - A worker claims the oldest queued job for this node under a lease
//!   (`dispatch_core::service::leases`) and renews it every third of the lease while the job
//!   runs; its result is written only while the run is still this node's. A job whose node died
//!   (`kill -9`, power loss) keeps its expired lease and is re-queued by the next worker of any
//!   node that looks (or failed after
//!   [`MAX_ATTEMPTS`](dispatch_core::model::optimisation::MAX_ATTEMPTS) starts), so no job
//!   stays `in_progress` forever and none is completed twice.
//! - At shutdown running jobs end their search and go back to the queue with their best
//!   solution so far; the next run (after a restart, or on another node at once) starts there
//!   with the rest of the budget.
//! - Each job's budget scales with its size
//!   ([`time_budget_ms`]) within the
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
use dispatch_core::service::leases::{claim_job, expire_jobs, renew_job, JobClaim};
use dispatch_core::service::optimisation::{run_job, JobFollowUp, JobOutcome, JobRun};
use dispatch_core::solver;

use dispatch_http::priority::{idle_current_thread, renice_current_thread, REQUEST_NICE};
use dispatch_http::signal::JobSignal;

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
    /// How much lower than request handling the workers run, as a nice value (the solver
    /// threads a job starts inherit it): request handling keeps its share of the cores while a
    /// solve runs. Where request handling itself runs lowered (below a store's writer thread,
    /// [`REQUEST_NICE`]), the workers add this to that.
    pub nice: u8,
    /// Whether each job's search runs under Linux's `SCHED_IDLE` policy, on a thread of its
    /// own (`JobRun::search_thread`): only on cores nothing else wants, and a request thread
    /// that wakes takes the core at once instead of waiting out the search's time slice. The
    /// job's own thread (reading the day, writing the result under the store's write lock)
    /// keeps `nice`, so it never holds that lock at the idle policy behind busy requests.
    pub idle: bool,
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
            nice: 10,
            idle: true,
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
    /// This node's name on the jobs it claims.
    node: String,
    stop: AtomicBool,
}

/// The running pool; [`Optimiser::shutdown`] stops it.
pub struct Optimiser {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl Optimiser {
    /// Starts `config.workers` worker threads claiming jobs as node `node`.
    pub fn start(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        matrix: Arc<dyn TravelMatrix>,
        follow_up: Arc<dyn JobFollowUp>,
        signal: JobSignal,
        config: OptimiserConfig,
        node: String,
    ) -> Optimiser {
        let shared = Arc::new(Shared {
            store,
            clock,
            matrix,
            follow_up,
            signal,
            config,
            node,
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

    /// Stops the workers: running jobs end their search now and go back to the queue with the
    /// best solution found, to resume from.
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

/// Lowers the calling thread's scheduling priority by `nice`. On Linux a nice value belongs
/// to a thread, and the threads it starts (the solver's) inherit it; the process's other
/// threads keep theirs. A refusal only costs the priority, so it is logged, not fatal.
fn lower_priority(nice: u8) {
    if nice == 0 {
        return;
    }
    let lowered = renice_current_thread(|current| current + i32::from(nice));
    if let Err(error) = lowered {
        tracing::warn!(nice, %error, "optimisation threads keep the process's priority");
    }
}

fn worker(shared: &Shared) {
    let requests = match shared.store.writes_on_own_thread() {
        true => REQUEST_NICE,
        false => 0,
    };
    lower_priority(shared.config.nice.saturating_add(requests));
    let mut seen = shared.signal.current();
    while !shared.stop.load(Ordering::SeqCst) {
        let now = shared.clock.now();
        match expire_jobs(&*shared.store, now) {
            Ok(jobs) => {
                for job in jobs {
                    metrics::counter!("dispatch_job_leases_expired_total").increment(1);
                    tracing::warn!(job = %job.id, state = job.state.as_str(), attempts = job.attempts,
                        "optimisation lost its node (lease expired)");
                }
            }
            Err(e) => tracing::error!(error = %e, "cannot recover optimisations"),
        }
        // The lease is kept by renewals in wall time: on a simulated clock it lasts as much
        // longer as that clock runs faster.
        let lease_until = now.add_millis(shared.clock.span_of(shared.config.lease));
        match claim_job(&*shared.store, &shared.node, now, lease_until) {
            Ok(Some(claim)) => {
                metrics::counter!("dispatch_job_claims_total").increment(1);
                run(shared, &claim);
            }
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
            let scope = job.scope();
            shared
                .store
                .read(|tx| tx.order_ids_due(scope, job.date))
                .map_or(0, |ids| ids.len())
        }
    }
}

fn run(shared: &Shared, claim: &JobClaim) {
    let job = &claim.job;
    let c = &shared.config;
    let full = time_budget_ms(
        size(shared, job),
        millis(c.min_budget) as u64,
        millis(c.max_budget) as u64,
    );
    // A resumed job has the rest of its budget (at least the shortest one).
    let spent = claim.checkpoint.as_ref().map_or(0, |c| c.spent_ms);
    let budget = Duration::from_millis(
        full.saturating_sub(spent)
            .max(millis(c.min_budget.min(c.max_budget)) as u64),
    );
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
    let idle = || {
        if let Err(error) = idle_current_thread() {
            tracing::warn!(%error, "the search keeps the optimisation thread's priority");
        }
    };
    tracing::info!(job = %job.id, plan = job.plan_id, attempt = job.attempts, node = %claim.holder,
        resumed = claim.checkpoint.is_some(), ?budget, "optimisation started");
    metrics::counter!("dispatch_optimisation_jobs_started_total").increment(1);
    let stopping = || {
        shared
            .stop
            .load(Ordering::SeqCst)
            .then(|| spent.saturating_add(millis(control.started.elapsed()) as u64))
    };
    let outcome = std::thread::scope(|s| {
        s.spawn(|| heartbeat(shared, claim, &control, &finished));
        let outcome = run_job(
            &*shared.store,
            &*shared.matrix,
            &*shared.clock,
            &JobRun {
                claim,
                config: &config,
                control: &control,
                stopping: &stopping,
                search_thread: c.idle.then_some(&idle as &(dyn Fn() + Sync)),
            },
            &*shared.follow_up,
        );
        finished.store(true, Ordering::SeqCst);
        outcome
    });
    let ended = match &outcome {
        Ok(JobOutcome::Succeeded { .. }) => "succeeded",
        Ok(JobOutcome::Failed(_)) => "failed",
        Ok(JobOutcome::Discarded) => "cancelled",
        Ok(JobOutcome::HandedBack) => "handed_back",
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
            tracing::info!(job = %job.id, solution = solution_id, node = %claim.holder, elapsed = ?control.started.elapsed(), "optimisation succeeded");
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
            tracing::info!(job = %job.id, "optimisation cancelled or taken over; result discarded")
        }
        Ok(JobOutcome::HandedBack) => {
            tracing::info!(job = %job.id, "optimisation handed back with its best solution so far; it resumes on the next node that claims it")
        }
        // The job stays running; its lease runs out and it is tried again.
        Err(e) => tracing::error!(job = %job.id, error = %e, "optimisation interrupted"),
    }
}

/// Renews the lease while the job runs and flags cancellation when the run is no longer this
/// node's (cancelled, or taken over after the lease ran out).
fn heartbeat(shared: &Shared, claim: &JobClaim, control: &JobControl<'_>, finished: &AtomicBool) {
    let every = shared.config.lease / 3;
    let mut last = Instant::now();
    while !finished.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50).min(every));
        if last.elapsed() < every {
            continue;
        }
        last = Instant::now();
        let until = shared
            .clock
            .now()
            .add_millis(shared.clock.span_of(shared.config.lease));
        let ours = match renew_job(&*shared.store, claim, until) {
            Ok(ours) => {
                metrics::counter!("dispatch_job_lease_renewals_total", "outcome" => if ours { "renewed" } else { "lost" }).increment(1);
                ours
            }
            Err(e) => {
                tracing::warn!(job = %claim.job.id, error = %e, "cannot renew the lease");
                true
            }
        };
        if !ours {
            control.cancelled.store(true, Ordering::SeqCst);
        }
    }
}
