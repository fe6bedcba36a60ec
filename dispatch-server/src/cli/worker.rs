//! `dispatch worker`: the background work of `serve` — optimisation jobs, webhook deliveries,
//! notification sends, image compression — without the HTTP API, so solver capacity scales
//! apart from the API nodes. Any number of workers and `serve` processes share one database:
//! each job, each depot's webhooks and each notification is claimed by one process at a time
//! (`dispatch_core::service::leases`).

use std::sync::Arc;

use super::background::{self, BackgroundArgs};
use super::database::{Database, DatabaseParser, Service};
use super::serve::{blocking, init_tracing, shutdown_signal, LogFormat};
use dispatch_adapters::images::Codec;
use dispatch_http::clock::SystemClock;
use dispatch_http::observability::MetricsListener;
use dispatch_http::public_url::PublicUrl;
use dispatch_http::routing::Routing;
use dispatch_http::server::ConnectionLimits;
use dispatch_http::AppState;

/// The flags of `dispatch worker`.
#[derive(Debug, clap::Args)]
pub struct WorkerArgs {
    /// SQLite database file or PostgreSQL URL `postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME`,
    /// the one the `serve` processes use; the schema is created or upgraded on start.
    #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
    pub db: Database,
    /// The URL clients reach the API at (as `serve --public-url`): tracking links of plans this
    /// worker dispatches (`auto_dispatch`) are built on it.
    #[arg(long, value_name = "URL", value_parser = PublicUrl::parse, default_value = "http://127.0.0.1:8080")]
    pub public_url: PublicUrl,
    /// Log lines on stderr: `text` for people, `json` for log pipelines.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Serve GET /metrics (no key) on this address, HOST:PORT (port 0 picks a free one): this
    /// worker's job, lease, solver, webhook and notification counters and the database's
    /// gauges. Without it the worker serves no HTTP at all.
    #[arg(long, value_name = "HOST:PORT")]
    pub metrics_listen: Option<String>,
    /// The background work's flags, as on `serve`.
    #[command(flatten)]
    pub background: BackgroundArgs,
}

/// Runs `dispatch worker` until SIGTERM or Ctrl-C.
pub fn run(args: WorkerArgs) -> Result<(), String> {
    init_tracing(args.log_format);
    if !args.background.enabled() {
        return Err("`dispatch worker --workers off` would do nothing: give a number of jobs (0 runs only webhooks, notifications and images)".into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(work(args))
}

async fn work(args: WorkerArgs) -> Result<(), String> {
    let outbox_commits = Arc::new(tokio::sync::Notify::new());
    let wake = outbox_commits.clone();
    let db = args.db.clone();
    // The recorder first, so the database connections opened at start are counted too.
    dispatch_http::observability::handle();
    let service = blocking(move || db.open_service(Arc::new(move || wake.notify_one()))).await?;
    let matrix = args.background.travel.matrix()?;
    let metrics = match &args.metrics_listen {
        Some(at) => Some(MetricsListener::bind(at).await?),
        None => None,
    };
    let signalled = shutdown_signal()?;
    let (stopping_tx, stopping) = tokio::sync::watch::channel(false);
    let clock = Arc::new(SystemClock);
    // The recorder is installed (by the metrics app) before the work starts, so the page
    // counts everything from the first claim on.
    let metrics_server = metrics.map(|listener| {
        let state = metrics_state(&service, clock.clone(), &matrix, &args.public_url);
        tracing::info!(metrics_addr = %listener.addr(), "serving /metrics on http://{}/metrics", listener.addr());
        listener.spawn(state, ConnectionLimits::default(), stopping.clone())
    });
    let context = background::Context {
        store: service.store,
        clock,
        matrix,
        links: dispatch_http::links::Links::new(args.public_url.clone()),
        signal: Default::default(),
        uploads: Default::default(),
        outbox_commits,
    };
    let running = background::start(&args.background, context, stopping).await?;
    // The one line scripts wait for, as `serve`'s `listening on`.
    let _ = super::stdout::line(&format!("worker {} running on {}", running.node(), args.db));
    signalled.await;
    let _ = stopping_tx.send(true);
    running.stop().await?;
    if let Some(served) = metrics_server {
        let _ = served.await;
    }
    tracing::info!("stopped");
    Ok(())
}

/// What the metrics page reads: the store (its gauges); a worker serves no API, so the rest
/// is only what an `AppState` needs to exist (rate limits off, no job signal of its own).
fn metrics_state(
    service: &Service,
    clock: Arc<SystemClock>,
    matrix: &Arc<dyn dispatch_core::ports::matrix::TravelMatrix>,
    public_url: &PublicUrl,
) -> AppState {
    AppState {
        store: service.store.clone(),
        clock,
        geocoder: service.geocoder.clone(),
        rate_limits_enabled: false,
        idempotency: service.idempotency.clone(),
        jobs: Default::default(),
        images: Arc::new(Codec),
        uploads: Default::default(),
        routing: Arc::new(Routing::new(matrix.clone())),
        public_url: public_url.clone(),
        docs_url: None,
    }
}
