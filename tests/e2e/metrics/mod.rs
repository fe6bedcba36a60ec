//! `GET /metrics` of the real binary: the Prometheus text format (every sample under a `# TYPE`
//! of its family, parseable values), no key needed, and counters that move with real requests,
//! a rate-limit rejection, an idempotent replay and an optimisation job; `--metrics-listen` of
//! `serve` and of `dispatch worker`; every counter with known labels on the first scrape, at 0;
//! in `outcomes`, failures and what goes out (a failed job,
//! webhook attempts, deliveries and backlog, notifications sent and failed).

use crate::support;
mod outcomes;
mod scrape;

use scrape::Scrape;
use serde_json::{json, Value};
use support::worker::Worker;
use support::{Fixture, Request, Server};

/// A full-day vehicle based at the depot.
fn van() -> Value {
    json!({"name": "Van", "availability": "full_day", "start_location": "depot", "end_location": "depot"})
}

/// `n` deliveries numbered `{prefix}{i}` due on 2026-11-24 spread over a grid in London.
fn day_orders(prefix: &str, n: u32) -> Value {
    (0..n)
        .map(|i| {
            json!({"order_number": format!("{prefix}{i}"), "type": "delivery", "delivery_date": "2026-11-24",
                   "delivery_lat": 51.45 + 0.01 * f64::from(i % 4), "delivery_lng": -0.15 + 0.01 * f64::from(i / 4)})
        })
        .collect()
}

/// Optimises the open orders of the day [`day_orders`] makes and waits for the job to end;
/// the job's id.
fn optimise_day(server: &Server, key: &str) -> String {
    server.optimise_and_wait(key, "2026-11-24")
}

/// The `metrics_addr` a node logged (JSON lines) when its metrics listener started.
fn logged_metrics_addr(log: &str) -> String {
    log.lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find_map(|e| e["metrics_addr"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("the metrics address is logged: {log}"))
}

#[test]
fn metrics_are_prometheus_text_without_a_key_and_move_with_requests_and_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("metrics.db");
    let fixture = Fixture::seed(&db);
    let key = fixture.key.as_str();
    let server = Server::start_with(
        &db,
        &[
            "--workers",
            "1",
            "--solve-time",
            "1",
            "--solve-time-min",
            "1",
        ],
    );
    let before = Scrape::take(&server);
    for name in [
        "dispatch_optimisation_jobs{state=\"queued\"}",
        "dispatch_optimisation_jobs{state=\"running\"}",
        "dispatch_webhook_backlog",
    ] {
        assert!(before.0.contains_key(name), "{name} is always there");
    }

    let listed = "dispatch_http_requests_total{method=\"GET\",route=\"/v2/orders\",status=\"200\"}";
    for _ in 0..2 {
        assert_eq!(server.get("/v2/orders", key).status, 200);
    }
    assert_eq!(server.get("/v2/nowhere/at/all", key).status, 404);
    // The strict tier allows two calls in 15 seconds (another key, so nothing else is refused).
    let booking = json!({"date": "2026-11-24", "order": {"type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1}});
    let statuses: Vec<u16> = (0..3)
        .map(|_| {
            server
                .post("/v2/booking/availability", &fixture.south_key, &booking)
                .status
        })
        .collect();
    assert_eq!(statuses[2], 403, "{statuses:?}");

    assert_eq!(server.post("/v2/vehicles", key, &van()).status, 200);
    let batch = Request::new("POST", "/v2/orders", Some(key))
        .json(&day_orders("M", 12))
        .header("idempotency-key", "metrics-orders-1");
    let first = server.send(batch.clone());
    assert_eq!(first.status, 200, "{}", first.text());
    let replay = server.send(batch);
    assert_eq!(replay.header("idempotency-replay"), Some("true"));
    optimise_day(&server, key);
    let after = Scrape::await_at(
        &server.addr,
        "the job is never counted",
        Scrape::job_counted,
    );
    assert_eq!(after.get(listed) - before.get(listed), 2.0);
    let latency = "dispatch_http_request_duration_seconds_bucket{method=\"GET\",route=\"/v2/orders\",le=\"+Inf\"}";
    assert_eq!(after.get(latency) - before.get(latency), 2.0);
    assert_eq!(
        after
            .get("dispatch_http_requests_total{method=\"GET\",route=\"unmatched\",status=\"404\"}"),
        1.0,
        "unknown paths share one series"
    );
    assert_eq!(
        after.get("dispatch_rate_limit_rejections_total{method=\"POST\",route=\"/v2/booking/availability\"}"),
        1.0
    );
    assert_eq!(
        after.get("dispatch_idempotent_replays_total{method=\"POST\",route=\"/v2/orders\"}"),
        1.0
    );
    assert_eq!(after.get("dispatch_optimisation_jobs_started_total"), 1.0);
    assert_eq!(
        after.get("dispatch_optimisation_jobs_finished_total{outcome=\"succeeded\"}"),
        1.0
    );
    assert_eq!(
        after.get("dispatch_optimisation_job_duration_seconds_count{outcome=\"succeeded\"}"),
        1.0
    );
    assert!(
        after.get("dispatch_optimisation_job_duration_seconds_sum{outcome=\"succeeded\"}") >= 0.5
    );
    assert!(after.get("dispatch_solver_iterations_total") > 0.0);
    assert_eq!(
        after.get("dispatch_optimisation_jobs{state=\"queued\"}"),
        0.0
    );
    assert_eq!(
        after.get("dispatch_optimisation_jobs{state=\"running\"}"),
        0.0
    );
    // North has no webhook receiver: its events are skipped, none left behind.
    let scrape = Scrape::await_at(&server.addr, "no webhook outcome counted", |s| {
        s.get("dispatch_webhook_deliveries_total{outcome=\"skipped\"}") > 0.0
    });
    assert!(scrape
        .0
        .contains_key("dispatch_notifications_total{outcome=\"sent\"}"));
    assert!(
        scrape.sum(
            "dispatch_db_transaction_duration_seconds_count",
            &["kind=\"write\"", "outcome=\"commit\""]
        ) > 0.0
    );
    assert!(
        scrape.sum(
            "dispatch_db_transaction_duration_seconds_count",
            &["kind=\"read\""]
        ) > 0.0
    );
    assert!(scrape.get("dispatch_db_write_wait_seconds_count") > 0.0);
    assert!(scrape.get("dispatch_db_connection_wait_seconds_count") > 0.0);
    // Labels never carry a depot, a key or a raw path.
    for series in scrape.0.keys() {
        assert!(!series.contains("depot"), "{series}");
        assert!(!series.contains(key), "{series}");
        assert!(!series.contains("nowhere"), "{series}");
    }
}

/// A fresh `serve`'s first scrape already has every counter whose labels are known in advance,
/// at 0 (nothing happened yet), with its `# HELP`: dashboards and alerts find each family
/// before its first event.
#[test]
fn the_first_scrape_has_every_counter_with_known_labels_at_zero() {
    let dir = tempfile::tempdir().unwrap();
    let server = Server::start(&dir.path().join("fresh.db"));
    let reply = support::send(&server.addr, Request::new("GET", "/metrics", None));
    assert_eq!(reply.status, 200);
    let text = reply.text();
    let scrape = Scrape::parse(&text);
    let outcomes = |name: &str, outcomes: &[&str]| -> Vec<String> {
        outcomes
            .iter()
            .map(|o| format!("{name}{{outcome=\"{o}\"}}"))
            .collect()
    };
    let mut idle: Vec<String> = [
        "dispatch_optimisation_jobs_started_total",
        "dispatch_job_claims_total",
        "dispatch_job_leases_expired_total",
        "dispatch_solver_iterations_total",
        "dispatch_webhook_attempt_failures_total",
        "dispatch_webhook_leases_lost_total",
        "dispatch_webhook_late_commits_total",
        "dispatch_notification_claims_total",
    ]
    .map(str::to_owned)
    .to_vec();
    idle.extend(outcomes(
        "dispatch_optimisation_jobs_finished_total",
        &[
            "succeeded",
            "failed",
            "cancelled",
            "interrupted",
            "handed_back",
        ],
    ));
    idle.extend(outcomes(
        "dispatch_job_lease_renewals_total",
        &["renewed", "lost"],
    ));
    idle.extend(outcomes(
        "dispatch_webhook_deliveries_total",
        &["delivered", "error", "skipped"],
    ));
    idle.extend(outcomes(
        "dispatch_notifications_total",
        &["sent", "failed", "interrupted"],
    ));
    idle.extend(outcomes(
        "dispatch_notification_lease_renewals_total",
        &["renewed", "lost"],
    ));
    for series in &idle {
        assert_eq!(scrape.0.get(series), Some(&0.0), "{series} at 0 in\n{text}");
    }
    // These may have moved already: the store opened its connections, the webhook worker
    // looked for depots to deliver for.
    let moving = [
        "dispatch_db_connections_opened_total".to_owned(),
        "dispatch_webhook_lease_claims_total{outcome=\"taken\"}".to_owned(),
        "dispatch_webhook_lease_claims_total{outcome=\"held_elsewhere\"}".to_owned(),
    ];
    for series in idle.iter().chain(&moving) {
        assert!(scrape.0.contains_key(series), "{series} in\n{text}");
        let family = series.split('{').next().unwrap();
        assert!(
            text.contains(&format!("# HELP {family} ")),
            "{family} says what it is"
        );
    }
}

/// `--metrics-listen` (here from its DISPATCH_ variable): /metrics answers there, and only
/// there — not on the API's listener, which answers it 404; the metrics listener serves
/// nothing else. Its address is logged before the listening line.
#[test]
fn metrics_on_their_own_listener_are_not_served_beside_the_api() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("metrics-listen.db");
    let fixture = Fixture::seed(&db);
    let log_path = dir.path().join("serve.log");
    let mut serving = support::Serving::start(
        support::serve_command(&db)
            .args(["--log-format", "json"])
            .env("DISPATCH_METRICS_LISTEN", "127.0.0.1:0")
            .stderr(std::fs::File::create(&log_path).unwrap()),
    );
    let log = std::fs::read_to_string(&log_path).unwrap();
    let metrics_addr = logged_metrics_addr(&log);
    assert_ne!(metrics_addr, serving.addr);
    assert!(!metrics_addr.ends_with(":0"), "{metrics_addr}");

    let api = support::send(
        &serving.addr,
        Request::new("GET", "/v2/orders", Some(&fixture.key)),
    );
    assert_eq!(api.status, 200);
    support::send(&serving.addr, Request::new("GET", "/metrics", None))
        .assert_envelope("RESOURCE_NOT_FOUND", 404);
    let scrape = Scrape::at(&metrics_addr);
    assert_eq!(
        scrape.get(
            "dispatch_http_requests_total{method=\"GET\",route=\"/v2/orders\",status=\"200\"}"
        ),
        1.0,
        "the API's requests are counted on the metrics listener"
    );
    support::send(
        &metrics_addr,
        Request::new("GET", "/v2/orders", Some(&fixture.key)),
    )
    .assert_envelope("RESOURCE_NOT_FOUND", 404);
    assert!(serving.terminate().success());
}

/// `dispatch worker --metrics-listen`: the worker serves /metrics of its own (and nothing
/// else), counting the claims, jobs and solver iterations it ran, while the API node beside it
/// (`--workers off`) ran none.
#[test]
fn a_worker_serves_its_own_metrics_with_the_jobs_it_claimed_and_ran() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("worker-metrics.db");
    let fixture = Fixture::seed(&db);
    let key = fixture.key.as_str();
    let api = Server::start_with(&db, &["--workers", "off", "--rate-limits", "off"]);
    let flags = [
        "--workers",
        "1",
        "--solve-time",
        "1",
        "--solve-time-min",
        "1",
        "--metrics-listen",
        "127.0.0.1:0",
    ];
    let worker = Worker::start(&support::db_arg(&db), "metered", dir.path(), &flags);
    let log = std::fs::read_to_string(&worker.log).unwrap();
    let metrics_addr = logged_metrics_addr(&log);
    let before = Scrape::at(&metrics_addr);
    assert!(before
        .0
        .contains_key("dispatch_optimisation_jobs{state=\"queued\"}"));
    assert_eq!(before.get("dispatch_job_claims_total"), 0.0);
    support::send(&metrics_addr, Request::new("GET", "/v2/orders", Some(key)))
        .assert_envelope("RESOURCE_NOT_FOUND", 404);

    assert_eq!(api.post("/v2/vehicles", key, &van()).status, 200);
    assert_eq!(api.post("/v2/orders", key, &day_orders("W", 8)).status, 200);
    optimise_day(&api, key);
    let after = Scrape::await_at(
        &metrics_addr,
        "the job is never counted",
        Scrape::job_counted,
    );
    assert_eq!(after.get("dispatch_job_claims_total"), 1.0);
    assert_eq!(after.get("dispatch_optimisation_jobs_started_total"), 1.0);
    assert!(after.get("dispatch_solver_iterations_total") > 0.0);
    assert!(after.get("dispatch_job_lease_renewals_total{outcome=\"lost\"}") == 0.0);
    assert_eq!(
        after.get("dispatch_optimisation_jobs{state=\"queued\"}"),
        0.0
    );
    let on_api = Scrape::take(&api);
    assert_eq!(on_api.get("dispatch_job_claims_total"), 0.0);
    assert_eq!(on_api.get("dispatch_optimisation_jobs_started_total"), 0.0);
    drop(worker);
}
