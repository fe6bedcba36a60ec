//! Webhook delivery through the real binary to real receivers on loopback (spec: Events,
//! Authentication item 4): the body and headers of every event type, real `orders.status`
//! triggers, retries (fails twice then succeeds), the 3 s timeout, 4xx answers marked ERROR
//! and re-sent by the operator, at-least-once across kill -9 while the receiver is down,
//! per-entity order, per-depot isolation, and receiver settings changed while running; in
//! `upkeep`: the wake-up on commit and the retention of finished records.

use crate::{receiver, support};
mod credentials;
mod redirects;
mod upkeep;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use dispatch_core::events::DomainEvent;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::conformance::outbox::every_event_type;
use dispatch_core::ports::store::StoreError;
use dispatch_core::time::Timestamp;
use serde_json::{json, Value};
use tempfile::TempDir;

use receiver::{Behaviour, Receiver};
use support::{run_ok, Server};

/// Depots North and South of one organisation, each with a receiver URL (or none).
fn seed(db: &Path, north: Option<(&str, &str, &str)>, south: Option<&str>) -> Value {
    let hook = |w: Option<(&str, &str, &str)>| match w {
        Some((url, user, password)) => {
            json!({"webhook": {"url": url, "username": user, "password": password}})
        }
        None => json!({}),
    };
    support::seed(
        db,
        &json!({"organisations": [{"name": "Acme", "depots": [
            {"name": "North", "settings": hook(north),
             "access_keys": [{"name": "k", "permission": "all"}]},
            {"name": "South", "settings": hook(south.map(|u| (u, "s", "s"))),
             "access_keys": [{"name": "k", "permission": "all"}]}
        ]}]}),
    )
}

/// A fresh database whose North depot posts to `url` as `u:p` (South has no receiver): the
/// temporary directory (kept alive by the caller), the database path and the seed's output.
fn seeded_for(url: &str) -> (TempDir, PathBuf, Value) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let seeded = seed(&db, Some((url, "u", "p")), None);
    (dir, db, seeded)
}

fn key(seeded: &Value, depot: usize) -> String {
    seeded["organisations"][0]["depots"][depot]["access_keys"][0]["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn scope(seeded: &Value, depot: usize) -> DepotScope {
    DepotScope {
        organisation_id: seeded["organisations"][0]["id"].as_i64().unwrap(),
        depot_id: seeded["organisations"][0]["depots"][depot]["id"]
            .as_i64()
            .unwrap(),
    }
}

/// Appends events to the outbox from outside, as any change of another process would.
fn append(db: &Path, scope: DepotScope, events: &[DomainEvent]) {
    let store = support::test_db::open_store(db);
    store
        .transaction(|tx| {
            for e in events {
                tx.append_event(scope, e, Timestamp::from_millis(1_700_000_000_000))?;
            }
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

fn status_event(order_id: i64, status: &str) -> DomainEvent {
    DomainEvent::OrderStatus {
        order_id,
        order_number: format!("N{order_id}"),
        status: status.into(),
    }
}

/// Creates an order with two line items; its id.
fn order(server: &Server, key: &str, number: &str) -> i64 {
    let r = server.post(
        "/v2/orders",
        key,
        &json!([{"order_number": number, "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1,
                  "line_items": [{"product_code": "P1", "product_name": "a", "product_quantity": 1},
                                 {"product_code": "P2", "product_name": "b", "product_quantity": 1}]}]),
    );
    assert_eq!(r.status, 200, "{}", r.json());
    r.json()["orders"][0]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// A real status change: one line item delivered makes the order PARTIALLY_DELIVERED.
fn deliver_one_item(server: &Server, key: &str, id: i64) {
    let r = server.put(
        &format!("/v2/orders/{id}"),
        key,
        &json!({"line_items": [{"product_code": "P1", "status": "DELIVERED"}, {"product_code": "P2"}]}),
    );
    assert_eq!(r.status, 200, "{}", r.json());
}

fn webhooks_cli(db: &Path, args: &[&str]) -> Value {
    let out = run_ok(
        Command::new(support::binary())
            .arg("webhooks")
            .args(args)
            .arg("--db")
            .arg(support::db_arg(db)),
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Runs `dispatch webhooks ARGS` until `done` holds for its output or `within` passed; the
/// last output.
fn poll_cli(db: &Path, args: &[&str], within: Duration, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + within;
    loop {
        let out = webhooks_cli(db, args);
        if done(&out) || Instant::now() > deadline {
            return out;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn has_failed(out: &Value) -> bool {
    !out["failed"].as_array().unwrap().is_empty()
}

const BASIC_U_P: &str = "Basic dTpw"; // base64("u:p")

#[test]
fn every_event_type_is_posted_as_type_and_data_with_basic_auth() {
    let hook = Receiver::start(Behaviour::Ok);
    let (_dir, db, seeded) = seeded_for(&hook.url());
    let _server = Server::start(&db);
    append(&db, scope(&seeded, 0), &every_event_type());
    let hits = hook.wait_for(8, Duration::from_secs(10));
    assert_eq!(hits.len(), 8);
    let mut bodies: Vec<Value> = hits.iter().map(|h| h.body.clone()).collect();
    bodies.sort_by_key(|b| b["type"].as_str().unwrap().to_owned());
    let expected = [
        json!({"type": "orders.on_delivery", "data": {"order_id": 1, "order_number": "N1", "route_id": 4, "eta": "10:30", "time_to_arrival": 15}}),
        json!({"type": "orders.status", "data": {"order_id": 1, "order_number": "N1", "status": "ROUTED"}}),
        json!({"type": "plans.created", "data": {"id": 2}}),
        json!({"type": "plans.deleted", "data": {"id": 2}}),
        json!({"type": "plans.dispatched", "data": {"id": 2}}),
        json!({"type": "routes.completed", "data": {"id": 4}}),
        json!({"type": "routes.deleted", "data": {"id": 3}}),
        json!({"type": "routes.edited", "data": {"id": 3}}),
    ];
    assert_eq!(bodies, expected);
    for h in &hits {
        assert_eq!(h.headers["content-type"], "application/json");
        assert_eq!(h.headers["authorization"], BASIC_U_P);
        assert!(!h.headers.keys().any(|k| k.contains("signature")));
    }
    // Events of one entity in the order they happened: the plan's, then the order's.
    let of = |want: &[&str]| -> Vec<String> {
        hits.iter()
            .map(|h| h.body["type"].as_str().unwrap().to_owned())
            .filter(|t| want.contains(&t.as_str()))
            .collect()
    };
    assert_eq!(
        of(&["plans.created", "plans.dispatched", "plans.deleted"]),
        ["plans.created", "plans.dispatched", "plans.deleted"]
    );
    assert_eq!(
        of(&["orders.status", "orders.on_delivery"]),
        ["orders.status", "orders.on_delivery"]
    );
}

#[test]
fn real_status_changes_are_delivered_in_order_and_rolled_back_changes_never() {
    let hook = Receiver::start(Behaviour::Ok);
    let (_dir, db, seeded) = seeded_for(&hook.url());
    let server = Server::start(&db);
    let k = key(&seeded, 0);
    let id = order(&server, &k, "A-1");
    deliver_one_item(&server, &k, id);
    // Refused (a derived status cannot be chosen): nothing committed, nothing sent.
    let r = server.put(
        &format!("/v2/orders/{id}"),
        &k,
        &json!({"line_items": [{"product_code": "P2", "status": "PARTIALLY_DELIVERED"}]}),
    );
    assert_eq!(r.status, 400);
    let r = server.put(
        &format!("/v2/orders/{id}"),
        &k,
        &json!({"line_items": [{"product_code": "P1", "status": "DELIVERED"}, {"product_code": "P2", "status": "DELIVERED"}]}),
    );
    assert_eq!(r.status, 200, "{}", r.json());
    let hits = hook.wait_for(2, Duration::from_secs(10));
    std::thread::sleep(Duration::from_millis(500));
    let statuses: Vec<Value> = hook.hits().iter().map(|h| h.body.clone()).collect();
    assert_eq!(
        statuses,
        [
            json!({"type": "orders.status", "data": {"order_id": id, "order_number": "A-1", "status": "PARTIALLY_DELIVERED"}}),
            json!({"type": "orders.status", "data": {"order_id": id, "order_number": "A-1", "status": "DELIVERED"}}),
        ]
    );
    assert_eq!(hits.len(), 2);
}

#[test]
fn a_receiver_failing_twice_gets_the_third_attempt_after_backoff() {
    let hook = Receiver::start(Behaviour::FailFirst(2));
    let (_dir, db, seeded) = seeded_for(&hook.url());
    let _server = Server::start(&db);
    append(
        &db,
        scope(&seeded, 0),
        &[DomainEvent::PlanCreated { id: 5 }],
    );
    let hits = hook.wait_for(3, Duration::from_secs(15));
    assert_eq!(hits.len(), 3, "three attempts");
    assert!(hits.iter().all(|h| h.body == hits[0].body));
    let gaps: Vec<Duration> = hits.windows(2).map(|w| w[1].at - w[0].at).collect();
    assert!(gaps[0] >= Duration::from_millis(900), "{gaps:?}");
    assert!(
        gaps[1] >= Duration::from_millis(1900),
        "backoff grows: {gaps:?}"
    );
    std::thread::sleep(Duration::from_millis(3500));
    assert_eq!(hook.count(), 3, "delivered: no fourth attempt");
    assert!(webhooks_cli(&db, &["failed"])["failed"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn a_receiver_that_never_answers_times_out_after_3_s_per_attempt_and_ends_in_error() {
    let hook = Receiver::start(Behaviour::Silent);
    let (_dir, db, seeded) = seeded_for(&hook.url());
    let _server = Server::start(&db);
    append(
        &db,
        scope(&seeded, 0),
        &[DomainEvent::RouteEdited { id: 9 }],
    );
    let hits = hook.wait_for(3, Duration::from_secs(20));
    assert_eq!(hits.len(), 3);
    let gaps: Vec<Duration> = hits.windows(2).map(|w| w[1].at - w[0].at).collect();
    // Each attempt waits 3 s for an answer, then the backoff (1 s, then 2 s).
    assert!(
        gaps[0] >= Duration::from_millis(3900) && gaps[0] < Duration::from_millis(6000),
        "{gaps:?}"
    );
    assert!(
        gaps[1] >= Duration::from_millis(4900) && gaps[1] < Duration::from_millis(7000),
        "{gaps:?}"
    );
    let failed = poll_cli(&db, &["failed"], Duration::from_secs(8), has_failed);
    let f = &failed["failed"][0];
    assert_eq!(f["state"], "ERROR");
    assert_eq!(f["attempts"], 3);
    assert!(
        f["error"]
            .as_str()
            .unwrap()
            .contains("no answer within 3000 ms"),
        "{f}"
    );
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(
        hook.count(),
        3,
        "an ERROR delivery is never retried by itself"
    );
}

#[test]
fn a_4xx_answer_ends_in_error_and_an_operator_resend_is_a_new_delivery() {
    let hook = Receiver::start(Behaviour::Status(404));
    let (_dir, db, seeded) = seeded_for(&hook.url());
    let _server = Server::start(&db);
    append(&db, scope(&seeded, 0), &[status_event(3, "OPEN")]);
    assert_eq!(hook.wait_for(3, Duration::from_secs(10)).len(), 3);
    let depot = scope(&seeded, 0).depot_id.to_string();
    let failed = poll_cli(
        &db,
        &["failed", "--depot", &depot],
        Duration::from_secs(5),
        has_failed,
    );
    let original = failed["failed"][0].clone();
    assert_eq!(original["error"], "receiver answered HTTP 404");
    assert_eq!(original["event"]["type"], "orders.status");
    let id = original["id"].as_i64().unwrap();

    hook.set(Behaviour::Ok);
    let resent = webhooks_cli(&db, &["resend", &id.to_string()]);
    let new_id = resent["delivery"].as_i64().unwrap();
    assert_ne!(new_id, id);
    let hits = hook.wait_for(4, Duration::from_secs(5));
    assert_eq!(hits.len(), 4);
    assert_eq!(hits[3].delivery(), new_id);
    assert_eq!(hits[3].body, hits[0].body, "the same event");
    let shown = poll_cli(
        &db,
        &["show", &new_id.to_string()],
        Duration::from_secs(5),
        |shown| shown["delivery"]["state"] == "DELIVERED",
    );
    assert_eq!(shown["delivery"]["state"], "DELIVERED", "{shown}");
    assert_eq!(shown["delivery"]["resend_of"], id);
    let still = webhooks_cli(&db, &["show", &id.to_string()]);
    assert_eq!(
        still["delivery"], original,
        "the ERROR record stays as it was"
    );
}

#[test]
fn events_pending_when_the_service_is_killed_reach_a_receiver_that_was_down_after_restart() {
    let down = Receiver::start(Behaviour::Ok);
    let addr = down.addr.to_string();
    let url = down.url();
    drop(down);
    std::thread::sleep(Duration::from_millis(50));
    let (_dir, db, seeded) = seeded_for(&url);
    let server = Server::start(&db);
    let k = key(&seeded, 0);
    let ids: Vec<i64> = (0..5)
        .map(|i| order(&server, &k, &format!("K-{i}")))
        .collect();
    for id in &ids {
        deliver_one_item(&server, &k, *id);
    }
    // The first attempts were refused; the service dies during the backoff.
    std::thread::sleep(Duration::from_millis(300));
    server.kill_hard();
    let hook = Receiver::start_on(&addr, Behaviour::Ok);
    let _server = Server::start(&db);
    let hits = hook.wait_for(5, Duration::from_secs(10));
    let mut got: Vec<i64> = hits
        .iter()
        .map(|h| h.body["data"]["order_id"].as_i64().unwrap())
        .collect();
    got.sort_unstable();
    assert_eq!(
        got, ids,
        "every committed event delivered after the restart"
    );
}

#[test]
fn a_dead_receiver_of_one_depot_does_not_hold_up_another_depot() {
    let dead = Receiver::start(Behaviour::Silent);
    let live = Receiver::start(Behaviour::Ok);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("w.db");
    let seeded = seed(&db, Some((&live.url(), "u", "p")), Some(&dead.url()));
    let _server = Server::start_with(&db, &["--webhook-lanes", "4"]);
    let backlog: Vec<DomainEvent> = (0..3000).map(|i| status_event(i, "OPEN")).collect();
    append(&db, scope(&seeded, 1), &backlog);
    std::thread::sleep(Duration::from_millis(300));
    let start = Instant::now();
    let healthy: Vec<DomainEvent> = (0..200).map(|i| status_event(10_000 + i, "OPEN")).collect();
    append(&db, scope(&seeded, 0), &healthy);
    let hits = live.wait_for(200, Duration::from_secs(5));
    assert_eq!(hits.len(), 200, "in {:?}", start.elapsed());
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    let in_flight = dead.count();
    assert!(
        (1..=4).contains(&in_flight),
        "bounded per depot by --webhook-lanes: {in_flight}"
    );
}

#[test]
fn events_of_one_entity_arrive_in_order_while_entities_go_out_in_parallel() {
    let hook = Receiver::start(Behaviour::Ok);
    let (_dir, db, seeded) = seeded_for(&hook.url());
    let _server = Server::start(&db);
    let events: Vec<DomainEvent> = (0..400)
        .map(|i| status_event(i % 20, &format!("S{i}")))
        .collect();
    append(&db, scope(&seeded, 0), &events);
    let hits = hook.wait_for(400, Duration::from_secs(10));
    assert_eq!(hits.len(), 400);
    for order in 0..20 {
        let seen: Vec<usize> = hits
            .iter()
            .filter(|h| h.body["data"]["order_id"] == order)
            .map(|h| {
                h.body["data"]["status"].as_str().unwrap()[1..]
                    .parse()
                    .unwrap()
            })
            .collect();
        let mut sorted = seen.clone();
        sorted.sort_unstable();
        assert_eq!(seen, sorted, "order {order}");
    }
}

#[test]
fn receiver_settings_changed_by_seed_apply_without_a_restart() {
    let first = Receiver::start(Behaviour::Ok);
    let second = Receiver::start(Behaviour::Ok);
    let (_dir, db, seeded) = seeded_for(&first.url());
    let _server = Server::start(&db);
    append(
        &db,
        scope(&seeded, 0),
        &[DomainEvent::PlanCreated { id: 1 }],
    );
    assert_eq!(first.wait_for(1, Duration::from_secs(5)).len(), 1);
    seed(&db, Some((&second.url(), "ops", "new-secret")), None);
    std::thread::sleep(Duration::from_millis(1500));
    append(
        &db,
        scope(&seeded, 0),
        &[DomainEvent::PlanCreated { id: 2 }],
    );
    let hits = second.wait_for(1, Duration::from_secs(5));
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].body["data"]["id"], 2);
    assert_eq!(
        hits[0].headers["authorization"],
        "Basic b3BzOm5ldy1zZWNyZXQ="
    );
    assert_eq!(first.count(), 1);
}
