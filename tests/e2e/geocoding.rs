//! The outside geocoder through the real binary: `serve --geocoder-url` pointing at a fake
//! Nominatim on loopback. Orders sent with addresses get positions; an address is asked once,
//! also after a restart (the answers are kept in the database); a gazetteer row wins; a
//! geocoder that times out or refuses saves the order without coordinates with
//! GEOCODING_FAILED, counted on /metrics, never a 500.

use crate::support;
use std::time::Duration;

use serde_json::{json, Value};

use support::fake_geocoder::{Behaviour, FakeGeocoder};
use support::{Fixture, Request, Server};

fn delivery(number: &str, address: &str) -> Value {
    json!({"order_number": number, "type": "delivery", "delivery_date": "2026-11-24",
           "delivery_address": address})
}

fn start(db: &std::path::Path, fake: &FakeGeocoder) -> Server {
    Server::start_with(
        db,
        &[
            "--rate-limits",
            "off",
            "--geocoder-url",
            fake.url(),
            "--geocoder-rate",
            "50",
            "--geocoder-timeout",
            "1",
        ],
    )
}

/// The order numbered `number`: its delivery lat and lng, as its full read shows them.
fn position(server: &Server, key: &str, number: &str) -> (Value, Value) {
    let listed = server.get(&format!("/v2/orders?order_number={number}"), key);
    assert_eq!(listed.status, 200, "{}", listed.text());
    let id = listed.json()["orders"][0]["id"].clone();
    let id = id.as_str().map_or_else(|| id.to_string(), str::to_owned);
    let read = server.get(&format!("/v2/orders/{id}"), key);
    assert_eq!(read.status, 200, "{}", read.text());
    let body = read.json();
    let order = body.get("order").unwrap_or(&body);
    (order["delivery_lat"].clone(), order["delivery_lng"].clone())
}

/// The value of the sample `name{labels}` on /metrics (0 when absent).
fn metric(server: &Server, sample: &str) -> f64 {
    let reply = support::send(&server.addr, Request::new("GET", "/metrics", None));
    reply
        .text()
        .lines()
        .find_map(|l| l.strip_prefix(sample)?.trim().parse().ok())
        .unwrap_or(0.0)
}

#[test]
fn orders_are_geocoded_by_the_outside_geocoder_once_and_its_failures_are_visible() {
    let fake = FakeGeocoder::start();
    fake.add("5 Baker Street", 51.5237, -0.1585);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("geocoding.db");
    let fx = Fixture::seed(&db);
    let server = start(&db, &fake);

    // Found: the position is the geocoder's; the seeded gazetteer's address is never asked.
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([
            delivery("G-1", "5 Baker Street"),
            delivery("G-2", "1 High St")
        ]),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["errors"], json!([]));
    assert_eq!(
        position(&server, &fx.key, "G-1"),
        (json!(51.5237), json!(-0.1585))
    );
    assert_eq!(
        position(&server, &fx.key, "G-2"),
        (json!(51.5), json!(-0.12))
    );
    assert_eq!(fake.count(), 1);

    // Nothing found: saved without coordinates, GEOCODING_FAILED in `errors`.
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([delivery("G-3", "Nowhere Lane")]),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(reply.json()["errors"][0]["name"], "GEOCODING_FAILED");
    assert_eq!(
        position(&server, &fx.key, "G-3"),
        (Value::Null, Value::Null)
    );
    assert_eq!(fake.count(), 2);

    // Too slow, refused, broken: the same answer as "nothing found", each counted.
    for (behaviour, outcome) in [
        (Behaviour::Slow(Duration::from_secs(3)), "timeout"),
        (Behaviour::Status(429), "rate_limited"),
        (Behaviour::Status(502), "server_error"),
    ] {
        fake.set(behaviour);
        let sample = format!("dispatch_geocoder_requests_total{{outcome=\"{outcome}\"}}");
        let before = metric(&server, &sample);
        let number = format!("G-{outcome}");
        let reply = server.post(
            "/v2/orders",
            &fx.key,
            &json!([delivery(&number, &format!("{outcome} Road 1"))]),
        );
        assert_eq!(reply.status, 200, "{outcome}: {}", reply.text());
        assert_eq!(reply.json()["errors"][0]["name"], "GEOCODING_FAILED");
        assert_eq!(
            position(&server, &fx.key, &number),
            (Value::Null, Value::Null)
        );
        assert_eq!(metric(&server, &sample), before + 1.0, "{sample}");
    }
    fake.set(Behaviour::Answer);

    // The kept answers outlive the process: the same address, spelt differently, asks nothing.
    drop(server);
    let server = start(&db, &fake);
    let asked = fake.count();
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([delivery("G-4", "5  baker STREET")]),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    assert_eq!(
        position(&server, &fx.key, "G-4"),
        (json!(51.5237), json!(-0.1585))
    );
    assert_eq!(fake.count(), asked);
    assert!(metric(&server, "dispatch_geocoder_cache_hits_total") >= 1.0);
}
