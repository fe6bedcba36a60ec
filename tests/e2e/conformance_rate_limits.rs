//! Conformance, black-box: rate tiers (spec, Limits: Rate limits) and the feature-token
//! headers (spec, Versioning) on the real binary with its real clock. Per-minute limits need a
//! minute of wall time and are covered with a test clock in dispatch-http's middleware tests;
//! here each tier's burst, the rejection shape and the headers.

use crate::support;
use serde_json::json;
use support::{Fixture, Reply, Request, Server};

/// The deprecation link of a server with the default documentation URL: the page the service
/// itself serves under its public URL.
fn docs_link(server: &Server) -> String {
    format!(
        "<http://{}/docs/features/rate-limit-429>; rel=\"deprecation\"",
        server.addr
    )
}

fn limited_server() -> (tempfile::TempDir, Server, Fixture) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("limits.db");
    let fx = Fixture::seed(&db);
    let server = Server::start_with(&db, &["--rate-limits", "on"]);
    (dir, server, fx)
}

/// Sends `request()` until the first rejection; the accepted count and the rejection.
fn until_rejected(burst: usize, mut request: impl FnMut() -> Reply) -> (usize, Reply) {
    for sent in 0..burst + 3 {
        let reply = request();
        if reply.status == 403 || reply.status == 429 {
            return (sent, reply);
        }
        assert!(
            reply.status < 300,
            "accepted: {}",
            String::from_utf8_lossy(&reply.raw)
        );
    }
    panic!("no rejection after {} requests", burst + 3);
}

fn assert_rate_rejection(reply: &Reply, name: &str, status: u16) -> i64 {
    let body = reply.assert_envelope(name, status);
    let seconds = body["details"]["retry_after_seconds"]
        .as_i64()
        .expect("details.retry_after_seconds");
    assert!(seconds >= 1);
    assert_eq!(
        reply.header("retry-after"),
        Some(seconds.to_string().as_str())
    );
    seconds
}

fn attachment(server: &Server, key: &str, order: &str) -> Reply {
    let mut body =
        b"--B\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"a.png\"\r\n\r\n"
            .to_vec();
    body.extend_from_slice(b"\x89PNG\r\n\x1a\n0000");
    body.extend_from_slice(b"\r\n--B--\r\n");
    let path = format!("/v2/orders/{order}/attachments");
    server.send(
        Request::new("POST", &path, Some(key))
            .header("content-type", "multipart/form-data; boundary=B")
            .raw(body),
    )
}

#[test]
fn each_tier_enforces_its_burst_with_403_forbidden_and_retry_after() {
    let (_dir, server, fx) = limited_server();
    let key = fx.key.as_str();
    // Bulk: 1 per 2 seconds.
    let batch = |i: usize| json!([{"order_number": format!("B-{i}"), "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]);
    let mut i = 0;
    let (accepted, reply) = until_rejected(1, || {
        i += 1;
        server.post("/v2/orders", key, &batch(i))
    });
    assert_eq!(accepted, 1);
    assert!(assert_rate_rejection(&reply, "FORBIDDEN", 403) <= 2);
    let order = server.get("/v2/orders", &fx.read_key).json()["orders"][0]["id"].to_string();
    // Standard: 5 per second.
    let (accepted, reply) = until_rejected(5, || server.get(&format!("/v2/orders/{order}"), key));
    assert!(accepted >= 5, "{accepted}");
    assert_rate_rejection(&reply, "FORBIDDEN", 403);
    // Listing: 5 per second.
    let (accepted, reply) = until_rejected(5, || server.get("/v2/customers", key));
    assert!(accepted >= 5, "{accepted}");
    assert_rate_rejection(&reply, "FORBIDDEN", 403);
    // Reference: 1 per second.
    let (accepted, reply) = until_rejected(1, || server.get("/v2/depots", key));
    assert_eq!(accepted, 1);
    assert_eq!(assert_rate_rejection(&reply, "FORBIDDEN", 403), 1);
    // Upload: 1 per second.
    let (accepted, reply) = until_rejected(1, || attachment(&server, key, &order));
    assert_eq!(accepted, 1);
    assert_eq!(assert_rate_rejection(&reply, "FORBIDDEN", 403), 1);
}

#[test]
fn the_rate_limit_429_token_turns_the_rejection_into_429_with_the_same_retry_after() {
    let (_dir, server, fx) = limited_server();
    let opted = |path: &str| {
        server.send(
            Request::new("GET", path, Some(&fx.key)).header("x-svc-api-features", "Rate-Limit-429"),
        )
    };
    assert_eq!(opted("/v2/depots").status, 200);
    let rejected = opted("/v2/depots");
    assert_rate_rejection(&rejected, "RATE_LIMIT_EXCEEDED", 429);
    assert_eq!(
        rejected.header("x-svc-api-features-applied"),
        Some("rate-limit-429")
    );
    let default = server.get("/v2/depots", &fx.key);
    assert_rate_rejection(&default, "FORBIDDEN", 403);
    assert_eq!(
        rejected.json()["description"],
        default.json()["description"],
        "the description is identical"
    );
    // PERMISSION is unaffected by the token.
    let reply = server.send(
        Request::new("POST", "/v2/order-statuses", Some(&fx.read_key))
            .json(&json!({"status": "X"}))
            .header("x-svc-api-features", "rate-limit-429"),
    );
    reply.assert_envelope("PERMISSION", 403);
}

#[test]
fn limits_are_per_access_key() {
    let (_dir, server, fx) = limited_server();
    assert_eq!(server.get("/v2/depots", &fx.key).status, 200);
    assert_eq!(server.get("/v2/depots", &fx.key).status, 403);
    assert_eq!(server.get("/v2/depots", &fx.read_key).status, 200);
    assert_eq!(server.get("/v2/depots", &fx.south_key).status, 200);
}

#[test]
fn rate_limits_off_disables_every_tier() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("off.db");
    let fx = Fixture::seed(&db);
    let server = Server::start_with(&db, &["--rate-limits", "off"]);
    for i in 0..8 {
        assert_eq!(server.get("/v2/depots", &fx.key).status, 200);
        let batch = json!([{"order_number": format!("O-{i}"), "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]);
        assert_eq!(server.post("/v2/orders", &fx.key, &batch).status, 200);
    }
}

#[test]
fn callers_without_the_token_get_sunset_deprecation_and_a_deprecation_link() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("features.db");
    let fx = Fixture::seed(&db);
    let server = Server::start(&db);
    for reply in [
        server.get("/v2/orders", &fx.key),
        server.call("GET", "/v2/orders", None, None),
        server.get("/v2/nowhere", &fx.key),
    ] {
        assert_eq!(
            reply.header("sunset"),
            Some("Wed, 01 Mar 2028 00:00:00 GMT")
        );
        assert_eq!(reply.header("deprecation"), Some("@1818720000"));
        let links = reply.headers_named("link").join(", ");
        assert!(links.contains(&docs_link(&server)), "{links}");
        assert_eq!(reply.header("x-svc-api-features-applied"), None);
    }
    let page = server.call("GET", "/docs/features/rate-limit-429", None, None);
    assert_eq!(page.status, 200);
    assert!(page.text().contains("`rate-limit-429`"), "{}", page.text());
    for token in [
        "rate-limit-429",
        "RATE-LIMIT-429",
        "foo, Rate-Limit-429 ,bar",
    ] {
        let reply = server.send(
            Request::new("GET", "/v2/orders", Some(&fx.key)).header("x-svc-api-features", token),
        );
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.header("x-svc-api-features-applied"),
            Some("rate-limit-429")
        );
        assert_eq!(reply.header("sunset"), None);
        assert_eq!(reply.header("deprecation"), None);
        assert!(reply
            .headers_named("link")
            .iter()
            .all(|l| !l.contains("deprecation")));
    }
    let reply = server.send(
        Request::new("GET", "/v2/orders", Some(&fx.key))
            .header("x-svc-api-features", "unknown-token"),
    );
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.header("x-svc-api-features-applied"),
        None,
        "unknown tokens are ignored"
    );
    assert!(reply.header("sunset").is_some());
}

#[test]
fn a_next_link_and_the_deprecation_link_coexist_with_next_found_by_rel() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("links.db");
    let fx = Fixture::seed(&db);
    let server = Server::start(&db);
    let batch: Vec<_> = (0..3)
        .map(|i| json!({"order_number": format!("N-{i}"), "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}))
        .collect();
    assert_eq!(
        server.post("/v2/orders", &fx.key, &json!(batch)).status,
        200
    );
    let reply = server.get("/v2/orders?limit=2", &fx.key);
    let next = reply.next_link().expect("rel=next");
    let links = reply.headers_named("link").join(", ");
    assert!(links.contains(&docs_link(&server)), "{links}");
    assert!(
        links.find("rel=\"next\"") < links.find("rel=\"deprecation\""),
        "{links}"
    );
    let last = server.get(&next, &fx.key);
    assert_eq!(last.next_link(), None);
}

/// The upload tier (15 / min, max 1 / sec): requests paced under the burst limit still stop at
/// the per-minute limit, with a Retry-After pointing at the end of the minute.
#[test]
fn the_per_minute_limit_holds_when_the_burst_limit_is_respected() {
    let (_dir, server, fx) = limited_server();
    for i in 0..15 {
        let reply = attachment(&server, &fx.key, "424242");
        assert_eq!(
            reply.status, 404,
            "request {i} passes the limiter (unknown order)"
        );
        std::thread::sleep(std::time::Duration::from_millis(1100));
    }
    let reply = attachment(&server, &fx.key, "424242");
    let seconds = assert_rate_rejection(&reply, "FORBIDDEN", 403);
    assert!(
        seconds > 30,
        "waits for the minute, not the burst: {seconds}"
    );
}
