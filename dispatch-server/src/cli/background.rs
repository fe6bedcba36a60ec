//! The background work of one process — optimisation jobs, webhook deliveries, notification
//! sends, image compression — and its flags, shared by `dispatch serve` (which runs it beside
//! the API unless `--workers off`) and `dispatch worker` (which runs only it).

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::matrix::TravelMatrix;
use dispatch_core::ports::store::Store;
use dispatch_core::service::dispatch::AutoDispatch;
use tokio::sync::{watch, Notify};

use super::notifier::NotifierArgs;
use super::positive_seconds;
use super::travel::TravelArgs;
use crate::runtime::webhooks::{Retention, WebhookConfig};
use crate::runtime::{node, Optimiser, OptimiserConfig, Workers};
use dispatch_http::links::Links;
use dispatch_http::signal::JobSignal;

/// `--workers`: how many optimisation jobs at once, or `off` (no background work at all).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkersArg {
    /// No background work in this process: another process (`dispatch worker`) does it.
    Off,
    /// Jobs at once (0: none; webhooks, notifications and images still run).
    Jobs(usize),
}

fn workers(s: &str) -> Result<WorkersArg, String> {
    if s == "off" {
        return Ok(WorkersArg::Off);
    }
    s.parse()
        .map(WorkersArg::Jobs)
        .map_err(|_| format!("`{s}` is neither a number of jobs nor `off`"))
}

/// The flags of the background work.
#[derive(Debug, clap::Args)]
pub struct BackgroundArgs {
    /// Optimisation jobs run at once by this process (default: one per core; 0 runs none).
    /// `off` runs no background work at all (no jobs, webhooks, notifications or image
    /// compression): for API nodes beside `dispatch worker` processes.
    #[arg(long, value_name = "N|off", value_parser = workers)]
    pub workers: Option<WorkersArg>,
    /// Solver threads per optimisation job (default: the cores divided among the workers).
    #[arg(long)]
    pub solver_threads: Option<usize>,
    /// How much lower the optimisation threads run than request handling, as a nice value
    /// added to theirs (0-19; 0: the same priority). While a solve keeps every core busy,
    /// reads and writes still get the cores they need at once; the solver gets the rest, and
    /// its results for a seed and thread count do not change. Linux only (elsewhere ignored).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u8).range(0..=19))]
    pub optimiser_nice: u8,
    /// `on`: each job's search runs under Linux's SCHED_IDLE policy, only on cores nothing
    /// else wants: a request thread that wakes takes the core at once instead of waiting out
    /// the search's time slice. The job's reads and writes keep --optimiser-nice. `off`: the
    /// search runs at --optimiser-nice too. Results for a seed and thread count do not change.
    /// Linux only (elsewhere ignored).
    #[arg(long, value_parser = ["on", "off"], default_value = "on")]
    pub optimiser_idle: String,
    /// Longest time budget of one optimisation job, in seconds. A job's budget is one second
    /// plus ten milliseconds per order, within --solve-time-min and this.
    #[arg(long, default_value_t = 30.0, value_parser = positive_seconds)]
    pub solve_time: f64,
    /// Shortest time budget of one optimisation job, in seconds.
    #[arg(long, default_value_t = 1.0, value_parser = positive_seconds)]
    pub solve_time_min: f64,
    /// Seconds a worker's claim on a job lasts without renewal: a job whose process died is
    /// taken up again (by any process on the database) this long after its last renewal.
    #[arg(long, default_value_t = 10.0, value_parser = positive_seconds)]
    pub job_lease: f64,
    /// This process's name on the work it claims (jobs, depots' webhooks), shown in logs and
    /// metrics. Default: HOST-PID-RANDOM.
    #[arg(long, value_name = "NAME")]
    pub node_id: Option<String>,
    /// Travel times and distances: great-circle (--speed-kmh) or an OSRM server (--osrm-url).
    #[command(flatten)]
    pub travel: TravelArgs,
    /// Webhook delivery: parallel deliveries per depot, outbox scan interval, retention.
    #[command(flatten)]
    pub webhooks: WebhookArgs,
    /// Notification senders (SMTP e-mail, HTTP SMS gateway; recorded only by default).
    #[command(flatten)]
    pub notifier: NotifierArgs,
    /// Days a driver's reported positions are kept, counted from when the service received
    /// them (0: forever). Older points leave route tracks; distances and stop times stay.
    #[arg(long, env = "DISPATCH_POSITION_RETENTION_DAYS", default_value_t = 30)]
    pub position_retention_days: u32,
}

/// The webhook delivery flags of `serve` and `worker`.
#[derive(Debug, clap::Args)]
pub struct WebhookArgs {
    /// Deliveries in flight at once per depot (events of one order, plan or route always go
    /// one after another).
    #[arg(long, env = "DISPATCH_WEBHOOK_LANES", default_value_t = 32, value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub webhook_lanes: u16,
    /// Seconds between scans of the outbox for events committed by other processes (`dispatch
    /// seed`, `dispatch webhooks resend`, other nodes); this process's own changes are sent at
    /// once.
    #[arg(long, env = "DISPATCH_WEBHOOK_POLL", default_value_t = 0.25, value_parser = positive_seconds)]
    pub webhook_poll: f64,
    /// Days a DELIVERED or SKIPPED delivery record is kept (0: forever).
    #[arg(long, env = "DISPATCH_WEBHOOK_RETENTION_DAYS", default_value_t = 7)]
    pub webhook_retention_days: u32,
    /// Days an ERROR delivery record is kept (0: forever); one a re-send names stays as long
    /// as the re-send.
    #[arg(
        long,
        env = "DISPATCH_WEBHOOK_ERROR_RETENTION_DAYS",
        default_value_t = 30
    )]
    pub webhook_error_retention_days: u32,
    /// Seconds a process's hold on a depot's webhook deliveries lasts without renewal (one
    /// process delivers a depot's events at a time): after a process dies, another takes its
    /// depots over this long after its last renewal.
    #[arg(long, env = "DISPATCH_WEBHOOK_LEASE", default_value_t = 3.0, value_parser = positive_seconds)]
    pub webhook_lease: f64,
}

/// `n` days (0: `None`, kept forever).
fn days(n: u32) -> Option<Duration> {
    (n > 0).then(|| Duration::from_secs(u64::from(n) * 86_400))
}

impl WebhookArgs {
    /// The delivery worker's configuration these flags describe.
    pub fn config(&self) -> WebhookConfig {
        WebhookConfig {
            lanes_per_depot: usize::from(self.webhook_lanes),
            poll_interval: Duration::from_secs_f64(self.webhook_poll),
            retention: Retention {
                finished: days(self.webhook_retention_days),
                failed: days(self.webhook_error_retention_days),
                ..Retention::default()
            },
            lease: Duration::from_secs_f64(self.webhook_lease),
            ..WebhookConfig::default()
        }
    }
}

impl BackgroundArgs {
    /// Whether this process runs background work.
    pub fn enabled(&self) -> bool {
        self.workers != Some(WorkersArg::Off)
    }

    /// The optimisation pool these flags describe.
    pub fn optimiser_config(&self) -> OptimiserConfig {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let workers = match self.workers {
            Some(WorkersArg::Jobs(n)) => n,
            Some(WorkersArg::Off) => 0,
            None => cores,
        };
        OptimiserConfig {
            workers,
            solver_threads: self
                .solver_threads
                .unwrap_or((cores / workers.max(1)).max(1))
                .max(1),
            min_budget: Duration::from_secs_f64(self.solve_time_min.min(self.solve_time)),
            max_budget: Duration::from_secs_f64(self.solve_time),
            lease: Duration::from_secs_f64(self.job_lease),
            nice: self.optimiser_nice,
            idle: self.optimiser_idle == "on",
            ..OptimiserConfig::default()
        }
    }
}

/// What [`start`] works on.
pub struct Context {
    /// The database the background work reads and writes.
    pub store: Arc<dyn Store>,
    /// The time the workers go by (the system clock, or the simulated one).
    pub clock: Arc<dyn Clock>,
    /// Travel times and distances for the optimiser and the ETAs.
    pub matrix: Arc<dyn TravelMatrix>,
    /// Tracking links of auto-dispatched plans are built on it.
    pub links: Links,
    /// Wakes idle optimisation workers (request handlers of this process notify it).
    pub signal: JobSignal,
    /// Wakes the image compression worker (upload handlers of this process notify it).
    pub uploads: JobSignal,
    /// Notified after commits of this process that appended outbox events.
    pub outbox_commits: Arc<Notify>,
}

/// The background work of this process while it runs.
pub struct Running {
    node: String,
    optimiser: Optimiser,
    workers: Workers,
}

/// Starts the background work the flags ask for (all of it; see [`BackgroundArgs::enabled`]).
pub async fn start(
    args: &BackgroundArgs,
    context: Context,
    stopping: watch::Receiver<bool>,
) -> Result<Running, String> {
    let node = node::node_id(args.node_id.as_deref());
    let sending = args.notifier.config(&node)?;
    let optimiser = Optimiser::start(
        context.store.clone(),
        context.clock.clone(),
        context.matrix,
        Arc::new(AutoDispatch {
            links: Arc::new(context.links),
        }),
        context.signal,
        args.optimiser_config(),
        node.clone(),
    );
    let pending_in = context.store.clone();
    let images_pending =
        tokio::task::spawn_blocking(move || crate::runtime::images::pending_at_start(&*pending_in))
            .await
            .map_err(|e| format!("a start-up step failed: {e}"))??;
    let workers = crate::runtime::start(
        &context.store,
        &context.clock,
        &node,
        sending,
        args.webhooks.config(),
        context.outbox_commits,
        images_pending,
        context.uploads,
        days(args.position_retention_days),
        stopping,
    )?;
    tracing::info!(node = %node, jobs_at_once = args.optimiser_config().workers, "background work started");
    Ok(Running {
        node,
        optimiser,
        workers,
    })
}

impl Running {
    /// This process's node name.
    pub fn node(&self) -> &str {
        &self.node
    }

    /// Stops the work (after `stopping` turned true): running jobs go back to the queue with
    /// their best solution so far, webhook leases are released, sends in progress finish.
    pub async fn stop(self) -> Result<(), String> {
        let optimiser = self.optimiser;
        tokio::task::spawn_blocking(move || optimiser.shutdown())
            .await
            .map_err(|e| format!("cannot stop the optimisation workers: {e}"))?;
        self.workers.stop().await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::positive_seconds;

    #[test]
    fn seconds_are_above_zero_and_at_most_a_day_and_the_refusal_says_so() {
        for ok in ["0.5", "1", "86400"] {
            assert!(positive_seconds(ok).is_ok(), "{ok}");
        }
        for bad in ["0", "-1", "86401", "NaN", "inf", "abc", ""] {
            let e = positive_seconds(bad).unwrap_err();
            assert!(e.contains("above 0 and at most 86400"), "{bad}: {e}");
        }
    }
}
