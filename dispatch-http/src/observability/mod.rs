//! Metrics in the Prometheus text format, served at `GET /metrics` (no key, as
//! `operator-interface.md` fixes it).
//!
//! The request metrics are recorded by a layer of the middleware stack
//! ([`crate::middleware::metrics`]). Everything records through the `metrics` facade (`metrics::counter!` and friends) into one
//! process-wide Prometheus recorder, installed by the first [`crate::app`]. The facade costs a
//! caller no plumbing (the workers and the SQLite store record where things happen) and does
//! nothing where no recorder is installed (a Rust application linking the crates).
//!
//! Labels carry route templates, methods, statuses and outcomes only — never a depot id, an
//! order number or anything else a client chooses — so the series stay few and the page shows
//! no tenant's data. The two gauges read from the database (`dispatch_optimisation_jobs`,
//! `dispatch_webhook_backlog`) are taken at scrape time and count every process on the database.
//! The names and their meaning are listed in README.md ("Metrics").

use std::sync::OnceLock;
use std::time::Duration;

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use dispatch_core::ports::store::StoreError;
use metrics::{describe_counter, describe_gauge, describe_histogram, Unit};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

use crate::AppState;

mod bind;

pub use bind::MetricsListener;

/// Bounds of the latency histograms (HTTP requests, database transactions), in seconds.
const LATENCY_BUCKETS: &[f64] = &[
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];
/// Bounds of the optimisation job durations, in seconds (budgets run from 1 s to minutes).
const JOB_BUCKETS: &[f64] = &[
    0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0,
];

/// The process's recorder, installed on first use; `None` when the process already had another
/// `metrics` recorder (an application embedding the router with its own).
pub fn handle() -> Option<&'static PrometheusHandle> {
    static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();
    HANDLE.get_or_init(install).as_ref()
}

fn install() -> Option<PrometheusHandle> {
    let built = PrometheusBuilder::new()
        .set_buckets_for_metric(
            Matcher::Full("dispatch_optimisation_job_duration_seconds".into()),
            JOB_BUCKETS,
        )
        .and_then(|b| {
            b.set_buckets_for_metric(Matcher::Suffix("_seconds".into()), LATENCY_BUCKETS)
        });
    let handle = match built.and_then(|b| b.install_recorder()) {
        Ok(handle) => handle,
        Err(e) => {
            tracing::warn!(error = %e, "metrics: cannot install the Prometheus recorder; /metrics is unavailable");
            return None;
        }
    };
    describe();
    zero();
    keep_up(handle.clone());
    Some(handle)
}

/// How often the recorder's histograms are drained into their buckets.
const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// Drains the histograms every [`UPKEEP_EVERY`] on a thread of its own: the exporter keeps
/// every observation (value and instant) until it is drained, which only a scrape of
/// `/metrics` or this upkeep does, so a service nobody scrapes would hold all of them: five a
/// request, 24 bytes each, over a megabyte a second at 10 000 requests a second.
fn keep_up(handle: PrometheusHandle) {
    let spawned = std::thread::Builder::new()
        .name("metrics-upkeep".into())
        .spawn(move || loop {
            std::thread::sleep(UPKEEP_EVERY);
            handle.run_upkeep();
        });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "metrics: cannot start the upkeep thread; histograms are drained by scrapes only");
    }
}

/// Every counter whose label values are known in advance, registered at 0: the family is on the
/// page from the first scrape (a dashboard or an alert finds it before the first event, and
/// Prometheus' `increase()` counts the first event as a step from 0, not as a new series'
/// start). The ones labelled by route appear with the first request of their route.
fn zero() {
    for name in [
        "dispatch_optimisation_jobs_started_total",
        "dispatch_job_claims_total",
        "dispatch_job_leases_expired_total",
        "dispatch_solver_iterations_total",
        "dispatch_webhook_attempt_failures_total",
        "dispatch_webhook_leases_lost_total",
        "dispatch_webhook_late_commits_total",
        "dispatch_notification_claims_total",
        "dispatch_db_connections_opened_total",
        "dispatch_travel_fallbacks_total",
        "dispatch_geocoder_cache_hits_total",
    ] {
        metrics::counter!(name).increment(0);
    }
    let by_outcome: [(&'static str, &[&'static str]); 7] = [
        (
            "dispatch_optimisation_jobs_finished_total",
            &[
                "succeeded",
                "failed",
                "cancelled",
                "interrupted",
                "handed_back",
            ],
        ),
        ("dispatch_job_lease_renewals_total", &["renewed", "lost"]),
        (
            "dispatch_webhook_deliveries_total",
            &["delivered", "error", "skipped"],
        ),
        (
            "dispatch_webhook_lease_claims_total",
            &["taken", "held_elsewhere"],
        ),
        (
            "dispatch_notifications_total",
            &["sent", "recorded", "failed", "interrupted"],
        ),
        (
            "dispatch_notification_lease_renewals_total",
            &["renewed", "lost"],
        ),
        (
            "dispatch_geocoder_requests_total",
            &[
                "found",
                "not_found",
                "timeout",
                "rate_limited",
                "server_error",
                "failed",
            ],
        ),
    ];
    for (name, outcomes) in by_outcome {
        for outcome in outcomes {
            metrics::counter!(name, "outcome" => *outcome).increment(0);
        }
    }
}

/// `# HELP` and `# TYPE` of every metric, so a scrape documents itself.
fn describe() {
    describe_counter!(
        "dispatch_http_requests_total",
        "HTTP requests answered, by method, route template (axum's matched path; `unmatched` for none) and status."
    );
    describe_histogram!(
        "dispatch_http_request_duration_seconds",
        Unit::Seconds,
        "Time from a request's arrival to its response head, by method and route template."
    );
    describe_counter!(
        "dispatch_rate_limit_rejections_total",
        "Requests refused by a rate tier (403 FORBIDDEN or 429 RATE_LIMIT_EXCEEDED), by method and route template."
    );
    describe_counter!(
        "dispatch_idempotent_replays_total",
        "Responses replayed for a repeated idempotency-key, by method and route template."
    );
    describe_gauge!(
        "dispatch_optimisation_jobs",
        "Optimisation jobs in the database by state (queued, running), every process's; read at scrape time."
    );
    describe_counter!(
        "dispatch_optimisation_jobs_started_total",
        "Optimisation jobs this process's workers started (a job resumed after a restart counts again)."
    );
    describe_counter!(
        "dispatch_optimisation_jobs_finished_total",
        "Optimisation jobs this process's workers ended, by outcome: succeeded, failed, cancelled (also: taken over by another process), interrupted (left for a later run), handed_back (returned to the queue at a graceful stop)."
    );
    describe_histogram!(
        "dispatch_optimisation_job_duration_seconds",
        Unit::Seconds,
        "Wall-clock time of an optimisation run, by outcome."
    );
    describe_counter!(
        "dispatch_job_claims_total",
        "Optimisation jobs this process claimed (their lease taken)."
    );
    describe_counter!(
        "dispatch_job_lease_renewals_total",
        "Lease renewals of running optimisation jobs, by outcome: renewed, lost (the run was cancelled or taken over)."
    );
    describe_counter!(
        "dispatch_job_leases_expired_total",
        "Optimisation jobs whose process died that this process put back in the queue (or failed)."
    );
    describe_counter!(
        "dispatch_solver_iterations_total",
        "Search iterations the solver ran in optimisation jobs (all threads)."
    );
    describe_gauge!(
        "dispatch_webhook_backlog",
        "Webhook events in the outbox not yet delivered, every depot's; read at scrape time."
    );
    describe_counter!(
        "dispatch_webhook_deliveries_total",
        "Webhook deliveries ended, by outcome: delivered, error (gave up after the retries), skipped (no receiver)."
    );
    describe_counter!(
        "dispatch_webhook_attempt_failures_total",
        "Webhook delivery attempts that failed (each retry counts)."
    );
    describe_counter!(
        "dispatch_webhook_lease_claims_total",
        "Attempts to take a depot's webhook deliveries, by outcome: taken, held_elsewhere (another process holds them)."
    );
    describe_counter!(
        "dispatch_webhook_leases_lost_total",
        "Depots whose webhook deliveries another process took over from this one."
    );
    describe_counter!(
        "dispatch_webhook_late_commits_total",
        "Times a depot's webhook events were found committed after the outbox scan had passed their ids (writers of different depots commit in parallel on PostgreSQL) and read from the depot's own backlog."
    );
    describe_counter!(
        "dispatch_notifications_total",
        "Notification tasks (SMS, e-mail) this process ended, by outcome: sent, recorded (handled by the embedded default sender: nothing delivered), failed (refused by the sender), interrupted (failed after every node sending it stopped)."
    );
    describe_counter!(
        "dispatch_notification_claims_total",
        "Notification tasks this process claimed to send (their lease taken)."
    );
    describe_counter!(
        "dispatch_notification_lease_renewals_total",
        "Lease renewals of notification tasks being sent, by outcome: renewed, lost (finished meanwhile or taken over by another process)."
    );
    describe_counter!(
        "dispatch_geocoder_requests_total",
        "Requests to the geocoder at --geocoder-url, by outcome: found, not_found, timeout, rate_limited, server_error, failed; every outcome but found and not_found saved an address without coordinates, alert on any increase of those."
    );
    describe_counter!(
        "dispatch_geocoder_cache_hits_total",
        "Addresses answered from the geocoder's answers kept in the database, without asking it."
    );
    describe_counter!(
        "dispatch_travel_fallbacks_total",
        "Travel matrices planned on great-circle times because the configured OSRM server could not answer (each one is a plan marked `great-circle (OSRM unreachable)`); alert on any increase."
    );
    describe_histogram!(
        "dispatch_db_transaction_duration_seconds",
        Unit::Seconds,
        "Database transactions from BEGIN to COMMIT or ROLLBACK, by kind (read, write) and outcome (commit, rollback)."
    );
    describe_histogram!(
        "dispatch_db_connection_wait_seconds",
        Unit::Seconds,
        "Time a transaction waited for its database connection: an idle one of the pool, a newly opened one, or (PostgreSQL, all busy) the next one freed."
    );
    describe_histogram!(
        "dispatch_db_write_wait_seconds",
        Unit::Seconds,
        "Time a write transaction waited for the database's single writer slot before BEGIN."
    );
    describe_counter!(
        "dispatch_db_connections_opened_total",
        "Database connections this process opened: the pool's first, then one whenever the pool had no idle one."
    );
}

/// The Prometheus text exposition format, version 0.0.4.
const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// `GET /metrics`.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let Some(handle) = handle() else {
        return (
            StatusCode::SERVICE_UNAVAILABLE,
            "another metrics recorder is installed in this process\n",
        )
            .into_response();
    };
    let gauges = state
        .blocking(|state| {
            state
                .store
                .read(|tx| {
                    let jobs = tx.count_optimisations_in_progress()?;
                    let backlog = tx.count_pending_events()?;
                    Ok::<_, StoreError>((jobs, backlog))
                })
                .map_err(crate::error::ApiError::internal)
        })
        .await;
    match gauges {
        Ok(((queued, running), backlog)) => {
            metrics::gauge!("dispatch_optimisation_jobs", "state" => "queued").set(queued as f64);
            metrics::gauge!("dispatch_optimisation_jobs", "state" => "running").set(running as f64);
            metrics::gauge!("dispatch_webhook_backlog").set(backlog as f64);
        }
        // The page still answers with what this process recorded; the gauges keep their last
        // reading.
        Err(e) => tracing::warn!(error = ?e, "metrics: cannot read the database's gauges"),
    }
    let mut response = handle.render().into_response();
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(CONTENT_TYPE));
    response
}
