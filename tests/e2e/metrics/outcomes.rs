//! The metrics of what goes wrong, and of what goes out: a failed optimisation job (OSRM down
//! under `--osrm-fallback fail`) with its duration, webhook attempts that fail while the event
//! waits in the backlog, a delivery ended ERROR and one delivered, and SMS notifications sent
//! and failed through a real gateway on loopback.

use serde_json::json;

use super::scrape::Scrape;
use super::{day_orders, optimise_day, van};
use crate::receiver::{Behaviour, Receiver};
use crate::support::{self, fixture_file, Fixture, Server};

/// Waits for `series` to reach `at_least` and returns that scrape.
fn await_series(server: &Server, series: &str, at_least: f64) -> Scrape {
    Scrape::await_at(
        &server.addr,
        &format!("{series} never reached {at_least}"),
        |s| s.get(series) >= at_least,
    )
}

#[test]
fn failed_jobs_webhook_failures_deliveries_and_notification_outcomes_are_counted() {
    let hooks = Receiver::start(Behaviour::Status(500));
    let gateway = Receiver::start(Behaviour::Ok);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("outcomes.db");
    let fixture = Fixture::seed(&db);
    let mut file = fixture_file();
    file["organisations"][0]["depots"][0]["settings"]["webhook"] =
        json!({"url": hooks.url(), "username": "hooks", "password": "pw"});
    support::seed(&db, &file);
    let key = fixture.key.as_str();
    let template = fixture.north()["notification_templates"][0]["id"].clone();
    let server = Server::start_with(
        &db,
        &[
            "--rate-limits",
            "off",
            "--workers",
            "1",
            "--solve-time",
            "1",
            "--osrm-url",
            "http://127.0.0.1:9",
            "--osrm-fallback",
            "fail",
            "--osrm-timeout",
            "2",
            "--sms-gateway-url",
            &gateway.url(),
        ],
    );

    // The pool's connections, the first ones included (opened before any request).
    assert!(Scrape::take(&server).get("dispatch_db_connections_opened_total") >= 1.0);

    // A webhook receiver answering 500: each attempt fails while the event waits in the
    // backlog, and after the third the delivery ends ERROR.
    let order = json!([{"order_number": "W1", "type": "delivery", "delivery_lat": 51.5,
        "delivery_lng": -0.1, "delivery_contact_number": "+441234",
        "line_items": [{"product_code": "P1", "product_name": "a", "product_quantity": 1},
                       {"product_code": "P2", "product_name": "b", "product_quantity": 1}]}]);
    let created = server.post("/v2/orders", key, &order);
    assert_eq!(created.status, 200, "{}", created.text());
    let order_id = created.json()["orders"][0]["id"].clone();
    let id = order_id.as_str().unwrap();
    let deliver = |items: serde_json::Value| {
        let r = server.put(
            &format!("/v2/orders/{id}"),
            key,
            &json!({ "line_items": items }),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    };
    // One line item delivered: the order becomes PARTIALLY_DELIVERED, an orders.status event.
    deliver(json!([{"product_code": "P1", "status": "DELIVERED"}, {"product_code": "P2"}]));
    let retrying = await_series(&server, "dispatch_webhook_attempt_failures_total", 1.0);
    assert!(
        retrying.get("dispatch_webhook_backlog") >= 1.0,
        "the event is in the backlog between attempts"
    );
    let errored = await_series(
        &server,
        "dispatch_webhook_deliveries_total{outcome=\"error\"}",
        1.0,
    );
    assert!(errored.get("dispatch_webhook_attempt_failures_total") >= 3.0);
    assert_eq!(
        errored.get("dispatch_webhook_deliveries_total{outcome=\"delivered\"}"),
        0.0
    );
    hooks.set(Behaviour::Ok);
    deliver(
        json!([{"product_code": "P1", "status": "DELIVERED"}, {"product_code": "P2", "status": "DELIVERED"}]),
    );
    let delivered = await_series(
        &server,
        "dispatch_webhook_deliveries_total{outcome=\"delivered\"}",
        1.0,
    );
    let drained = Scrape::await_at(&server.addr, "the backlog never drained", |s| {
        s.get("dispatch_webhook_backlog") == 0.0
    });
    assert_eq!(
        drained.get("dispatch_webhook_deliveries_total{outcome=\"error\"}"),
        1.0
    );
    assert!(delivered.get("dispatch_webhook_deliveries_total{outcome=\"delivered\"}") >= 1.0);

    // An SMS through the gateway, then one it refuses.
    let numeric: i64 = id.parse().unwrap();
    let schedule = json!({"orders": [numeric], "templates": [template]});
    let scheduled = server.post("/v2/notifications/schedule/orders", key, &schedule);
    assert_eq!(scheduled.status, 200, "{}", scheduled.text());
    await_series(
        &server,
        "dispatch_notifications_total{outcome=\"sent\"}",
        1.0,
    );
    gateway.set(Behaviour::Status(503));
    let scheduled = server.post("/v2/notifications/schedule/orders", key, &schedule);
    assert_eq!(scheduled.status, 200, "{}", scheduled.text());
    let notified = await_series(
        &server,
        "dispatch_notifications_total{outcome=\"failed\"}",
        1.0,
    );
    assert_eq!(
        notified.get("dispatch_notifications_total{outcome=\"sent\"}"),
        1.0
    );
    assert_eq!(gateway.count(), 2);

    // A job whose travel matrix cannot be had fails, and is counted with its duration.
    assert_eq!(server.post("/v2/vehicles", key, &van()).status, 200);
    let orders = server.post("/v2/orders", key, &day_orders("F", 3));
    assert_eq!(orders.status, 200, "{}", orders.text());
    let job = optimise_day(&server, key);
    let read = server.get(&format!("/v2/plans/optimise/{job}"), key);
    assert_eq!(
        read.json()["optimisation"]["state"],
        "failed",
        "{}",
        read.text()
    );
    let failed = await_series(
        &server,
        "dispatch_optimisation_jobs_finished_total{outcome=\"failed\"}",
        1.0,
    );
    assert_eq!(
        failed.get("dispatch_optimisation_job_duration_seconds_count{outcome=\"failed\"}"),
        1.0
    );
    assert_eq!(
        failed.get("dispatch_optimisation_jobs_finished_total{outcome=\"succeeded\"}"),
        0.0
    );
}
