//! One depot day played through the API of the real `dispatch` binary alone, as a driver's app
//! and a depot's integration would: orders and a van, optimisation, dispatch, a driver
//! credential, the driver's day and the pushed dispatch, start, position reports, stops
//! completed in full and in part and failed, notes and a phone call, the route check-in, a
//! signature, photos and a questionnaire at a stop (`driver_day_pod.rs`), the route completed;
//! then every read the depot makes (images and submissions included) and every webhook its
//! receiver got. Used by `tests/e2e/full_day.rs` (which asserts on it) and
//! `examples/driver_day.rs` (which prints it); both include `driver_day_pod.rs` beside it.

#![allow(dead_code)] // the test and the example read different parts of a day

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::driver_day_pod::{self as pod, ProofReads, StopProof};
use crate::support::{json_ok, Server};

/// One order of the day: its number, its line items as (code, quantity), what the driver does.
pub type DayOrder = (&'static str, &'static [(&'static str, i64)], Outcome);

/// The day's orders.
pub const ORDERS: [DayOrder; 4] = [
    ("DAY-1", &[("BREAD", 2), ("MILK", 1)], Outcome::Full),
    ("DAY-2", &[("TILES", 10), ("GLUE", 2)], Outcome::Partial),
    ("DAY-3", &[("SOFA", 1)], Outcome::Fail),
    ("DAY-4", &[], Outcome::Full),
];

/// What the driver does at a stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Everything delivered.
    Full,
    /// Some delivered: 7 of the first item, none of the second.
    Partial,
    /// Nobody home.
    Fail,
}

/// The order whose stop gets the signature, photos and questionnaire.
pub const PROOF_ORDER: &str = "DAY-1";

/// Seeds `db` with [`seed_file`] posting to `receiver` and starts `dispatch serve` on it with
/// one-second optimisations: the server and North's key.
pub fn serve(db: &Path, receiver: &str) -> (Server, String) {
    let seeded = crate::support::seed(db, &seed_file(receiver));
    let key = seeded["organisations"][0]["depots"][0]["access_keys"][0]["key"]
        .as_str()
        .expect("a key")
        .to_owned();
    let flags = [
        "--rate-limits",
        "off",
        "--solve-time",
        "1",
        "--solve-time-min",
        "1",
    ];
    (Server::start_with(db, &flags), key)
}

/// The seed of the day's depot: North at (51.50, -0.12), where it is about noon
/// ([`crate::support::midday_zone`]), webhooks to `receiver`, SMS
/// on-delivery notifications within an hour, partial orders, the driver questionnaires.
pub fn seed_file(receiver: &str) -> Value {
    json!({"organisations": [{"name": "Acme", "depots": [{
        "name": "North", "address": "1 Depot Way", "lat": 51.50, "lng": -0.12,
        "settings": {
            "timezone": crate::support::midday_zone().name,
            "partial_orders": true,
            "webhook": {"url": receiver, "username": "hook", "password": "secret"},
            "notifications": {"on_delivery_template": "On the way", "on_delivery_window_minutes": 60}
        },
        "access_keys": [{"name": "integration", "permission": "all"}],
        "notification_templates": [
            {"type": "SMS", "name": "On the way", "body": "Order {order_number} arrives about {eta}"}
        ],
        "questionnaires": pod::questionnaires()
    }]}]})
}

/// Everything the day showed.
#[derive(Debug, Default)]
pub struct Day {
    /// The date played (the depot's today).
    pub date: String,
    /// What happened, one line per step, for people.
    pub log: Vec<String>,
    /// Order ids by position in [`ORDERS`].
    pub orders: Vec<i64>,
    /// The plan and the route.
    pub plan_id: i64,
    pub route_id: i64,
    /// The first message of the driver's feed after dispatch.
    pub pushed: Value,
    /// `POST /driver/routes/{id}/positions` answers.
    pub position_reports: Vec<Value>,
    /// The stop answers of the driver's actions, by order number.
    pub stop_answers: Vec<(String, Value)>,
    /// Depot reads afterwards: `GET /v2/routes/{id}`, `/v2/plans/{id}`, `/v2/orders/{id}`.
    pub route: Value,
    pub plan: Value,
    pub order_reads: Vec<Value>,
    /// `POST /driver/routes/{id}/complete`'s route.
    pub completed: Value,
    /// The route's check-in submission, as created.
    pub checkin: Value,
    /// What the driver uploaded at [`PROOF_ORDER`]'s stop, and the depot's reads of it.
    pub proof: StopProof,
    pub proof_reads: ProofReads,
    /// When the day started playing.
    pub started: Option<Instant>,
}

impl Day {
    /// Logs a step with the seconds since the day started.
    fn note(&mut self, line: String) {
        let at = self.started.map_or(0.0, |t| t.elapsed().as_secs_f64());
        self.log.push(format!("[{at:6.1} s] {line}"));
    }
}

fn now() -> String {
    let ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    dispatch_core::time::Timestamp::from_millis(ms).to_string()
}

/// Plays the day on `server` with North's `key`.
pub fn play(server: &Server, key: &str) -> Day {
    let mut day = Day {
        date: crate::support::midday_zone().today.clone(),
        started: Some(Instant::now()),
        ..Day::default()
    };
    let vehicle = json_ok(
        server.post(
            "/v2/vehicles",
            key,
            &json!({"name": "Van 1", "availability": "always", "start_location": "depot", "end_location": "depot"}),
        ),
        "vehicle",
    )["vehicle"]["id"]
        .as_i64()
        .unwrap();
    let orders: Vec<Value> = ORDERS
        .iter()
        .enumerate()
        .map(|(i, (number, items, _))| {
            let mut o = json!({
                "order_number": number, "type": "delivery",
                "delivery_address": format!("{} High St", i + 1), "delivery_contact_number": "07000 000000",
                "delivery_lat": 51.502 + 0.002 * i as f64, "delivery_lng": -0.118 - 0.001 * i as f64,
                "delivery_duration": 5, "delivery_date": day.date,
            });
            if !items.is_empty() {
                o["line_items"] = Value::Array(
                    items
                        .iter()
                        .map(|(code, q)| json!({"product_code": code, "product_name": code, "product_quantity": q}))
                        .collect(),
                );
            }
            o
        })
        .collect();
    let created = json_ok(
        server.post("/v2/orders", key, &Value::Array(orders)),
        "orders",
    );
    day.orders = created["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().parse().unwrap())
        .collect();
    day.note(format!(
        "{} orders and van {vehicle} for {}",
        day.orders.len(),
        day.date
    ));

    let started = json_ok(
        server.post(
            "/v2/plans/optimise/orders",
            key,
            &json!({"delivery_date": day.date, "settings": {}}),
        ),
        "optimise",
    );
    let job = started["optimisation"]["id"].as_str().unwrap().to_owned();
    day.plan_id = started["plan"]["id"].as_i64().unwrap();
    server.await_job(
        key,
        &job,
        Duration::from_secs(60),
        "the optimisation never ended",
    );
    let plan = json_ok(
        server.get(&format!("/v2/plans/{}", day.plan_id), key),
        "plan",
    );
    day.route_id = plan["plan"]["routes"][0]["id"].as_i64().expect("a route");
    day.note(format!(
        "plan {} optimised: route {}",
        day.plan_id, day.route_id
    ));
    json_ok(
        server.post(
            &format!("/v2/plans/{}/dispatch", day.plan_id),
            key,
            &json!(null),
        ),
        "dispatch",
    );
    day.note("plan dispatched".into());

    let credential = json_ok(
        server.post(
            &format!("/v2/vehicles/{vehicle}/driver-credentials"),
            key,
            &json!({"name": "Sam"}),
        ),
        "credential",
    )["driver_credential"]["credential"]
        .as_str()
        .unwrap()
        .to_owned();
    let driver = credential.as_str();
    let feed = json_ok(server.get("/driver/feed?after=0&wait=0", driver), "feed");
    day.pushed = feed["messages"][0].clone();
    day.note(format!(
        "driver feed: {} {}",
        day.pushed["kind"], day.pushed["route_id"]
    ));
    let today = json_ok(
        server.get(&format!("/driver/day?date={}", day.date), driver),
        "day",
    );
    let route = &today["routes"][0];
    let stops: Vec<(i64, i64)> = route["stops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_i64().unwrap(),
                s["orders"][0]["id"].as_i64().unwrap(),
            )
        })
        .collect();
    day.note(format!(
        "the driver's day: route {} with {} stops",
        route["id"],
        stops.len()
    ));

    json_ok(
        server.post(
            &format!("/driver/routes/{}/start", day.route_id),
            driver,
            &json!({"lat": 51.5, "lng": -0.12}),
        ),
        "start",
    );
    let route_id = day.route_id;
    let report = |lat: f64, lng: f64| {
        json_ok(
            server.post(
                &format!("/driver/routes/{route_id}/positions"),
                driver,
                &json!({"positions": [{"lat": lat, "lng": lng, "time": now()}]}),
            ),
            "positions",
        )
    };
    day.position_reports.push(report(51.500, -0.120));
    day.note(format!("started; ETAs {}", day.position_reports[0]["etas"]));
    let (visit_questionnaire, checkin_questionnaire) = pod::questionnaire_ids(server, driver);
    day.checkin = pod::check_in(server, driver, checkin_questionnaire, day.route_id);
    day.note(format!("check-in submission {}", day.checkin["id"]));

    for (stop, order_id) in &stops {
        let index = day.orders.iter().position(|o| o == order_id).unwrap();
        let (number, _, outcome) = ORDERS[index];
        let read = json_ok(server.get(&format!("/v2/orders/{order_id}"), key), "order");
        let read = if read["order"].is_object() {
            read["order"].clone()
        } else {
            read
        };
        json_ok(
            server.post(&format!("/driver/stops/{stop}/arrive"), driver, &json!({})),
            "arrive",
        );
        if number == PROOF_ORDER {
            day.proof = pod::at_stop(server, driver, visit_questionnaire, *stop);
            day.note(format!(
                "{number}: signature, {} photos ({} bytes the largest), questionnaire {}",
                day.proof.photos.as_array().map_or(0, Vec::len),
                day.proof.photo_bytes,
                day.proof.submission["id"],
            ));
            day.proof_reads = pod::read_back(server, key, &day.proof, &day.checkin);
            let waited = day.proof_reads.images.iter();
            let waited = waited.filter(|i| !i.pending.is_empty()).count();
            day.note(format!(
                "{number}: {} images read back, {waited} answered 202 first",
                day.proof_reads.images.len(),
            ));
        }
        let answer = match outcome {
            Outcome::Full => json_ok(
                server.post(
                    &format!("/driver/stops/{stop}/complete"),
                    driver,
                    &json!({"lat": 51.501, "lng": -0.119}),
                ),
                "complete",
            ),
            Outcome::Partial => {
                let items = read["line_items"].as_array().unwrap();
                json_ok(
                    server.post(
                        &format!("/driver/stops/{stop}/complete"),
                        driver,
                        &json!({"line_items": [
                            {"id": items[0]["id"], "delivered_quantity": 7, "failed_reason": "3 broken"},
                            {"id": items[1]["id"], "delivered_quantity": 0, "failed_reason": "not loaded"}
                        ]}),
                    ),
                    "partial",
                )
            }
            Outcome::Fail => {
                json_ok(
                    server.put(
                        &format!("/driver/stops/{stop}/notes"),
                        driver,
                        &json!({"notes": "left a card"}),
                    ),
                    "notes",
                );
                json_ok(
                    server.post(
                        &format!("/driver/stops/{stop}/phone-calls"),
                        driver,
                        &json!({}),
                    ),
                    "call",
                );
                json_ok(
                    server.post(
                        &format!("/driver/stops/{stop}/fail"),
                        driver,
                        &json!({"reason": "nobody home"}),
                    ),
                    "fail",
                )
            }
        };
        day.note(format!("{number}: {outcome:?}"));
        day.stop_answers
            .push((number.to_owned(), answer["stop"].clone()));
        day.position_reports.push(report(51.502, -0.118));
    }
    day.completed = json_ok(
        server.post(
            &format!("/driver/routes/{}/complete", day.route_id),
            driver,
            &json!({}),
        ),
        "complete route",
    )["route"]
        .clone();
    day.note(format!(
        "route completed at {}",
        day.completed["completed_ts"]
    ));

    day.route = json_ok(
        server.get(&format!("/v2/routes/{}", day.route_id), key),
        "route",
    )["route"]
        .clone();
    day.plan = json_ok(
        server.get(&format!("/v2/plans/{}", day.plan_id), key),
        "plan",
    )["plan"]
        .clone();
    for id in &day.orders {
        let read = json_ok(server.get(&format!("/v2/orders/{id}"), key), "order");
        day.order_reads.push(if read["order"].is_object() {
            read["order"].clone()
        } else {
            read
        });
    }
    day
}
