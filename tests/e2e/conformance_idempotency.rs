//! Conformance, black-box: the `idempotency-key` rules (spec, Limits: Idempotency) on the real
//! binary, including a replay across a restart of the server.

use crate::support;
use serde_json::{json, Value};
use support::{seeded_server, Fixture, Request, Server};

fn order_batch(number: &str) -> Value {
    json!([{"order_number": number, "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.12}])
}

fn post_with_key(
    server: &Server,
    path: &str,
    key: &str,
    idem: &str,
    body: &Value,
) -> support::Reply {
    server.send(
        Request::new("POST", path, Some(key))
            .json(body)
            .header("idempotency-key", idem),
    )
}

/// POST /v2/orders of one order numbered `number` under idempotency key `idem`.
fn post_order(server: &Server, key: &str, idem: &str, number: &str) -> support::Reply {
    post_with_key(server, "/v2/orders", key, idem, &order_batch(number))
}

#[test]
fn an_idempotent_post_orders_replays_across_a_server_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("idem.db");
    let fx = Fixture::seed(&db);
    let server = Server::start(&db);
    let first = post_order(&server, &fx.key, "restart-1", "IR-1");
    assert_eq!(first.status, 200);
    assert_eq!(first.header("idempotency-replay"), None);
    server.kill_hard();

    let server = Server::start(&db);
    let replay = post_order(&server, &fx.key, "restart-1", "IR-1");
    assert_eq!(replay.status, 200);
    assert_eq!(replay.header("idempotency-replay"), Some("true"));
    assert_eq!(replay.json(), first.json());
    let other = post_order(&server, &fx.key, "restart-1", "IR-2");
    other.assert_envelope("IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY", 422);
    let list = server.get("/v2/orders", &fx.key).json();
    assert_eq!(
        list["orders"].as_array().unwrap().len(),
        1,
        "executed once: {list}"
    );
}

#[test]
fn a_replay_returns_the_original_status_and_body_without_executing_again() {
    let (_dir, server, fx) = seeded_server();
    let vehicle = json!({"name": "Idem van", "availability": "always", "start_location": "depot", "end_location": "depot"});
    let first = post_with_key(&server, "/v2/vehicles", &fx.key, "v-1", &vehicle);
    assert_eq!(first.status, 200);
    // The same JSON document with other key order and spacing is the same body.
    let reordered = Request::new("POST", "/v2/vehicles", Some(&fx.key))
        .header("content-type", "application/json")
        .header("idempotency-key", "v-1")
        .raw(br#"{ "end_location": "depot", "start_location": "depot", "availability": "always", "name": "Idem van" }"#.to_vec());
    let replay = server.send(reordered);
    assert_eq!(replay.status, 200);
    assert_eq!(replay.header("idempotency-replay"), Some("true"));
    assert_eq!(replay.json(), first.json());
    let vehicles = server.get("/v2/vehicles", &fx.key).json();
    assert_eq!(vehicles["vehicles"].as_array().unwrap().len(), 1);
}

#[test]
fn a_replayed_post_customers_has_the_original_status_and_an_empty_body() {
    let (_dir, server, fx) = seeded_server();
    let body = json!([{"account": "IC-1", "lat": 51.5, "lng": -0.1}]);
    let first = post_with_key(&server, "/v2/customers", &fx.key, "c-1", &body);
    assert_eq!(first.status, 201);
    assert_eq!(first.json()["customers"][0]["account"], "IC-1");
    let replay = post_with_key(&server, "/v2/customers", &fx.key, "c-1", &body);
    assert_eq!(replay.status, 201);
    assert_eq!(replay.header("idempotency-replay"), Some("true"));
    assert!(
        replay.raw.is_empty(),
        "{}",
        String::from_utf8_lossy(&replay.raw)
    );
}

#[test]
fn the_same_key_with_another_body_is_422_and_an_invalid_key_is_400() {
    let (_dir, server, fx) = seeded_server();
    assert_eq!(post_order(&server, &fx.key, "k", "A").status, 200);
    post_order(&server, &fx.key, "k", "B")
        .assert_envelope("IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY", 422);
    for bad in [String::new(), "x".repeat(256)] {
        post_order(&server, &fx.key, &bad, "C").assert_envelope("IDEMPOTENCY_INVALID_KEY", 400);
        post_with_key(
            &server,
            "/v2/customers",
            &fx.key,
            &bad,
            &json!([{"account": "x", "lat": 1, "lng": 1}]),
        )
        .assert_envelope("IDEMPOTENCY_INVALID_KEY", 400);
    }
    let reply = post_order(&server, &fx.key, &"y".repeat(255), "D");
    assert_eq!(reply.status, 200, "255 characters is a valid key");
}

#[test]
fn keys_are_scoped_per_access_key_and_endpoint() {
    let (_dir, server, fx) = seeded_server();
    assert_eq!(post_order(&server, &fx.key, "shared", "S1").status, 200);
    // Another endpoint with the same key value: a fresh request.
    let reply = post_with_key(
        &server,
        "/v2/customers",
        &fx.key,
        "shared",
        &json!([{"account": "S", "lat": 1, "lng": 1}]),
    );
    assert_eq!(reply.status, 201);
    assert_eq!(reply.header("idempotency-replay"), None);
    // Another access key with the same key value and body: executes in its own depot.
    let reply = post_with_key(
        &server,
        "/v2/orders",
        &fx.south_key,
        "shared",
        &json!([{"order_number": "S1", "type": "delivery",
        "customer": {"account": "SC", "lat": 1, "lng": 1}, "delivery_lat": 1, "delivery_lng": 1}]),
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("idempotency-replay"), None);
    assert_eq!(
        server.get("/v2/orders", &fx.south_key).json()["orders"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_4xx_answer_is_cached_and_replayed() {
    let (_dir, server, fx) = seeded_server();
    let invalid = json!([{"type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]);
    let first = post_with_key(&server, "/v2/orders", &fx.key, "bad-1", &invalid);
    first.assert_envelope("INVALID_INPUT", 400);
    let replay = post_with_key(&server, "/v2/orders", &fx.key, "bad-1", &invalid);
    replay.assert_envelope("INVALID_INPUT", 400);
    assert_eq!(replay.header("idempotency-replay"), Some("true"));
    assert_eq!(replay.json(), first.json());
}

#[test]
fn posts_not_listed_ignore_the_idempotency_key() {
    let (_dir, server, fx) = seeded_server();
    let add_status = |idem: &str, status: &str| {
        post_with_key(
            &server,
            "/v2/order-statuses",
            &fx.key,
            idem,
            &json!({ "status": status }),
        )
    };
    assert_eq!(
        add_status("", "A").status,
        201,
        "an invalid key is ignored where idempotency does not apply"
    );
    assert_eq!(add_status("same", "B").status, 201);
    // Not a replay: the second request runs, and B exists by then.
    let reply = add_status("same", "B");
    reply.assert_envelope("INVALID_INPUT", 400);
    assert_eq!(reply.header("idempotency-replay"), None);
}

#[test]
fn replays_do_not_consume_rate_limit_quota() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("idem-rate.db");
    let fx = Fixture::seed(&db);
    let server = Server::start_with(&db, &[]);
    // The bulk tier lets one request through per two seconds: after the first, the window is
    // full (a fresh request is refused), yet replays keep coming back.
    let first = post_order(&server, &fx.key, "rq-1", "RQ-1");
    assert_eq!(first.status, 200);
    let fresh = post_order(&server, &fx.key, "rq-2", "RQ-2");
    fresh.assert_envelope("FORBIDDEN", 403);
    for _ in 0..5 {
        let replay = post_order(&server, &fx.key, "rq-1", "RQ-1");
        assert_eq!(replay.status, 200);
        assert_eq!(replay.header("idempotency-replay"), Some("true"));
    }
}

#[test]
fn concurrent_requests_with_one_key_execute_once() {
    let (_dir, server, fx) = seeded_server();
    let batch: Vec<Value> = (0..100)
        .map(|i| json!({"order_number": format!("CC-{i}"), "type": "delivery", "delivery_address": "1 High St"}))
        .collect();
    let batch = Value::Array(batch);
    let replies: Vec<support::Reply> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| post_with_key(&server, "/v2/orders", &fx.key, "together", &batch))
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut originals = 0;
    for reply in &replies {
        match reply.status {
            200 if reply.header("idempotency-replay") == Some("true") => {}
            200 => originals += 1,
            409 => {
                let body = reply.assert_envelope("IDEMPOTENCY_REQUEST_IN_PROGRESS", 409);
                let retry = reply.header("retry-after").expect("Retry-After on 409");
                assert!(retry.parse::<u64>().is_ok(), "{retry} {body}");
            }
            other => panic!(
                "unexpected {other}: {}",
                String::from_utf8_lossy(&reply.raw)
            ),
        }
    }
    assert_eq!(originals, 1, "exactly one request executed");
    let ids: Vec<Value> = replies
        .iter()
        .filter(|r| r.status == 200)
        .map(|r| r.json()["orders"].clone())
        .collect();
    assert!(
        ids.windows(2).all(|w| w[0] == w[1]),
        "replays carry the original body"
    );
}
