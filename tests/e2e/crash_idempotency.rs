//! Idempotency under `kill -9`: the real binary is killed after a request's effect committed
//! and before its response left, and the retry with the same `idempotency-key` must replay,
//! not execute a second time.
//!
//! The server is started with the test hook `DISPATCH_TEST_HOLD_COMMITTED_RESPONSE_MS`, which
//! holds responses recorded in the transaction of their effect; the test waits until the
//! effect is visible to a reader, checks that no response has left, and kills the process.
//!
//! Every POST of `IDEMPOTENT_ENDPOINTS` that the service routes needs a case in [`case`]: a new
//! idempotent endpoint without one fails `every_routed_idempotent_endpoint_has_a_crash_case`.

use crate::support;
use std::time::{Duration, Instant};

use dispatch_http::middleware::idempotency::{HOLD_COMMITTED_RESPONSE_ENV, IDEMPOTENT_ENDPOINTS};
use serde_json::{json, Value};
use support::{Fixture, Reply, Request, Server};

/// One idempotent endpoint: what to post, and how to count its effect.
struct Case {
    /// The concrete path (`/v2/...`).
    path: String,
    /// The body, made on the server with the key (it may create what it refers to).
    body: Body,
    /// A GET whose JSON array at `pointer` grows by one per execution.
    count_path: &'static str,
    pointer: &'static str,
}

type Body = Box<dyn Fn(&Server, &str) -> Value + Sync>;

fn order_batch(number: &str) -> Value {
    json!([{"order_number": number, "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.12}])
}

/// The crash case of the route template `endpoint` (relative to `/v2`), for depot North.
fn case(endpoint: &str, fx: &Fixture) -> Option<Case> {
    let north = fx.north()["id"].as_i64().expect("North's id");
    let order = |n: &'static str| -> Body { Box::new(move |_, _| order_batch(n)) };
    Some(match endpoint {
        "/orders" => Case {
            path: "/v2/orders".into(),
            body: order("CRASH-1"),
            count_path: "/v2/orders?limit=100",
            pointer: "/orders",
        },
        "/depots/{id}/orders" => Case {
            path: format!("/v2/depots/{north}/orders"),
            body: order("CRASH-2"),
            count_path: "/v2/orders?limit=100",
            pointer: "/orders",
        },
        "/plans/optimise/orders" => Case {
            path: "/v2/plans/optimise/orders".into(),
            body: Box::new(|_, _| json!({"delivery_date": "2026-11-24", "settings": {}})),
            count_path: "/v2/plans?limit=100",
            pointer: "/plans",
        },
        "/plans/optimise/orders-for-ids" => Case {
            path: "/v2/plans/optimise/orders-for-ids".into(),
            body: Box::new(|server, key| {
                let created = server.post("/v2/orders", key, &order_batch("CRASH-IDS"));
                let id: i64 = created.json()["orders"][0]["id"]
                    .as_str()
                    .and_then(|id| id.parse().ok())
                    .unwrap_or_else(|| panic!("an order id: {:?}", created.json()));
                json!({"settings": {}, "orders": [{"id": id}]})
            }),
            count_path: "/v2/plans?limit=100",
            pointer: "/plans",
        },
        "/customers" => Case {
            path: "/v2/customers".into(),
            body: Box::new(
                |_, _| json!([{"account": "CRASH-C", "name": "Crash Ltd", "lat": 51.5, "lng": -0.12}]),
            ),
            count_path: "/v2/customers?limit=100",
            pointer: "/customers",
        },
        "/vehicles" => Case {
            path: "/v2/vehicles".into(),
            body: Box::new(|_, _| {
                json!({"name": "Crash van", "availability": "always",
                       "start_location": "depot", "end_location": "depot"})
            }),
            count_path: "/v2/vehicles",
            pointer: "/vehicles",
        },
        "/notifications/schedule/orders" => {
            let template = fx.north()["notification_templates"][0]["id"]
                .as_i64()
                .expect("North's SMS template");
            Case {
                path: "/v2/notifications/schedule/orders".into(),
                body: Box::new(move |server, key| {
                    let created = server.post(
                        "/v2/orders",
                        key,
                        &json!([{"order_number": "CRASH-N", "type": "delivery", "delivery_lat": 51.5,
                                  "delivery_lng": -0.12, "delivery_contact_number": "+441"}]),
                    );
                    let id: i64 = created.json()["orders"][0]["id"]
                        .as_str()
                        .and_then(|id| id.parse().ok())
                        .unwrap_or_else(|| panic!("an order id: {:?}", created.json()));
                    json!({"orders": [id], "templates": [template]})
                }),
                count_path: "/v2/notification-tasks?limit=100",
                pointer: "/notification_tasks",
            }
        }
        _ => return None,
    })
}

fn count(server: &Server, key: &str, c: &Case) -> usize {
    let reply = server.get(c.count_path, key);
    assert_eq!(reply.status, 200, "{}: {:?}", c.count_path, reply.json());
    reply
        .json()
        .pointer(c.pointer)
        .and_then(Value::as_array)
        .map_or_else(
            || panic!("{} has no array at {}", c.count_path, c.pointer),
            Vec::len,
        )
}

fn post(server: &Server, key: &str, c: &Case, body: &Value) -> Reply {
    server.send(
        Request::new("POST", &c.path, Some(key))
            .json(body)
            .header("idempotency-key", "crash-key"),
    )
}

/// Runs `c` to a kill between commit and response, restarts and retries; returns the retry.
fn crash_and_retry(db: &std::path::Path, fx: &Fixture, c: &Case) -> Reply {
    let holding = Server::start_with_env(
        db,
        &["--rate-limits", "off"],
        &[(HOLD_COMMITTED_RESPONSE_ENV, "30000")],
    );
    let body = (c.body)(&holding, &fx.key);
    let before = count(&holding, &fx.key, c);
    let first = std::thread::scope(|scope| {
        let sent = scope.spawn(|| {
            holding.exchange(
                Request::new("POST", &c.path, Some(&fx.key))
                    .json(&body)
                    .header("idempotency-key", "crash-key"),
            )
        });
        let deadline = Instant::now() + Duration::from_secs(30);
        while count(&holding, &fx.key, c) == before {
            assert!(
                Instant::now() < deadline,
                "{}: the effect never committed",
                c.path
            );
            if sent.is_finished() {
                let answer = sent.join().expect("sender");
                panic!(
                    "{}: answered without an effect: {}",
                    c.path,
                    String::from_utf8_lossy(&answer)
                );
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            !sent.is_finished(),
            "{}: the response left before the kill: it was not held, so it was not recorded in \
             the transaction of its effect",
            c.path
        );
        let pid = holding.pid();
        let status = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .expect("kill -9");
        assert!(status.success());
        sent.join().expect("sender")
    });
    assert!(
        first.is_empty(),
        "{}: a response left: {}",
        c.path,
        String::from_utf8_lossy(&first)
    );
    drop(holding);

    let server = Server::start(db);
    let retry = post(&server, &fx.key, c, &body);
    assert_eq!(
        count(&server, &fx.key, c),
        before + 1,
        "{}: the retry executed again",
        c.path
    );
    retry
}

#[test]
fn a_retry_after_kill_9_between_commit_and_response_replays_on_every_idempotent_endpoint() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let fx = Fixture::seed(&db);
    let mut crashed = 0;
    for endpoint in IDEMPOTENT_ENDPOINTS {
        let Some(c) = case(endpoint, &fx) else {
            continue;
        };
        crashed += 1;
        let retry = crash_and_retry(&db, &fx, &c);
        assert!(
            (200..300).contains(&retry.status),
            "{}: {}",
            c.path,
            retry.status
        );
        assert_eq!(
            retry.header("idempotency-replay"),
            Some("true"),
            "{}: the retry was not a replay",
            c.path
        );
    }
    assert!(
        crashed >= 6,
        "every idempotent endpoint served today has a case"
    );
}

#[test]
fn every_routed_idempotent_endpoint_has_a_crash_case() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("routes.db");
    let fx = Fixture::seed(&db);
    let server = Server::start(&db);
    let north = fx.north()["id"].as_i64().expect("North's id").to_string();
    for endpoint in IDEMPOTENT_ENDPOINTS {
        if case(endpoint, &fx).is_some() {
            continue;
        }
        let path = format!("/v2{}", endpoint.replace("{id}", &north));
        let reply = server.post(&path, &fx.key, &json!({}));
        let unrouted = reply.status == 404
            && reply.json()["description"]
                .as_str()
                .is_some_and(|d| d.starts_with("no endpoint"));
        assert!(
            unrouted,
            "POST {endpoint} is served and idempotent but has no crash case in \
             tests/e2e/crash_idempotency.rs: add one (and record its response in its transaction, \
             see ARCHITECTURE.md)"
        );
    }
}
