//! Latency of the dispatcher's interactive calls, through the real router over a real SQLite
//! file (in-process, no sockets): `POST /booking/availability` on a 300-order day with 20
//! vehicles (p50/p99 over distinct candidates), and `POST /routes/{id}/add-orders` with
//! `reoptimize` on a 100-stop route.
//!
//! ```text
//! cargo run --release --example route_latency -- [BOOKING_QUERIES] [REOPTIMIZE_CALLS]
//! ```

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use dispatch_adapters::images::Codec;
use dispatch_core::model::order::Side;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::plan::NewPlan;
use dispatch_core::model::route::{NewRoute, RouteTiming};
use dispatch_core::model::stop::StopVisit;
use dispatch_core::ports::clock::{Clock, ManualClock};
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::service::seed;
use dispatch_core::time::{Date, Timestamp};
use dispatch_http::keys::DerivedKeys;
use dispatch_http::{app, AppState};
use dispatch_store_sqlite::idempotency::SqliteIdempotencyStore;
use dispatch_store_sqlite::{SqliteGazetteer, SqliteStore};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

const DAY: &str = "2026-12-01";
const ROUTE_DAY: &str = "2026-12-02";

struct Bench {
    router: axum::Router,
    key: String,
}

impl Bench {
    async fn call(&self, path: &str, body: Value) -> Value {
        let request = Request::post(format!("/v2{path}"))
            .header("x-access-key", &self.key)
            .header("content-type", "application/json")
            .body(Body::from(body.to_string()))
            .expect("request");
        let response = self
            .router
            .clone()
            .oneshot(request)
            .await
            .expect("infallible");
        let status = response.status();
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        let value: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        assert!(status.is_success(), "{path}: {status} {value}");
        value
    }
}

/// A deterministic spread of points around the depot.
fn point(i: usize) -> (f64, f64) {
    let x = ((i as u64).wrapping_mul(2_654_435_761) % 10_007) as f64 / 10_007.0;
    let y = ((i as u64).wrapping_mul(40_503) % 9_973) as f64 / 9_973.0;
    (51.45 + 0.1 * x, -0.2 + 0.16 * y)
}

fn order(number: String, i: usize, date: &str) -> Value {
    let (lat, lng) = point(i);
    let window = match i % 3 {
        0 => json!([{"from": "08:00", "to": "12:00"}]),
        1 => json!([{"from": "12:00", "to": "17:00"}]),
        _ => json!([]),
    };
    json!({"order_number": number, "type": "delivery", "delivery_lat": lat, "delivery_lng": lng,
        "delivery_duration": 4, "delivery_date": date, "delivery_time_windows": window,
        "capacities": [{"type": "Boxes", "capacity": 1 + (i % 3)}]})
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn row(name: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "| {name} | {} | {:.1} | {:.1} | {:.1} |",
        samples.len(),
        ms(percentile(&samples, 0.5)),
        ms(percentile(&samples, 0.99)),
        ms(*samples.last().expect("samples"))
    );
}

#[tokio::main]
async fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let queries = args.first().copied().unwrap_or(100);
    let reoptimize_calls = args.get(1).copied().unwrap_or(10).min(20);
    let dir = std::env::temp_dir().join(format!("route-latency-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let db = dir.join("bench.db");
    let store = Arc::new(SqliteStore::open(&db).expect("open store"));
    let clock = Arc::new(ManualClock::new(Timestamp::from_millis(1_795_334_400_000)));
    let seed = json!({"organisations": [{"name": "Bench", "depots": [{"name": "Main",
        "address": "1 Depot Way", "lat": 51.5, "lng": -0.12,
        "access_keys": [{"name": "bench", "permission": "all"}],
        "capacity_types": [{"type": "Boxes"}]}]}]});
    let seeded = seed::apply(
        &*store,
        &DerivedKeys,
        &seed::parse(&seed.to_string()).expect("seed parses"),
        clock.now(),
    )
    .expect("seed applies");
    let depot = &seeded["organisations"][0]["depots"][0];
    let scope = DepotScope {
        organisation_id: seeded["organisations"][0]["id"].as_i64().expect("org id"),
        depot_id: depot["id"].as_i64().expect("depot id"),
    };
    let boxes = depot["capacity_types"][0]["id"]
        .as_i64()
        .expect("capacity id");
    let state = AppState::new(
        store.clone(),
        clock.clone(),
        Arc::new(SqliteGazetteer::new(store.clone())),
        Arc::new(SqliteIdempotencyStore::open(&db).expect("open keys")),
        Arc::new(Codec),
    );
    let bench = Bench {
        router: app(state),
        key: depot["access_keys"][0]["key"]
            .as_str()
            .expect("key")
            .to_owned(),
    };
    let mut vehicles = Vec::new();
    for v in 0..20 {
        let r = bench
            .call(
                "/vehicles",
                json!({"name": format!("Van {v}"), "availability": "shift", "shift_start": "08:00",
                    "shift_end": "18:00", "start_location": "depot", "end_location": "depot",
                    "capacities": [{"id": boxes, "capacity": 60}]}),
            )
            .await;
        vehicles.push(r["vehicle"]["id"].as_i64().expect("vehicle id"));
    }
    for batch in 0..3 {
        let orders: Vec<Value> = (0..100)
            .map(|i| order(format!("DAY-{}", batch * 100 + i), batch * 100 + i, DAY))
            .collect();
        bench.call("/orders", Value::Array(orders)).await;
    }
    println!("booking availability: 300 orders due {DAY}, 20 vehicles (08:00-18:00, 60 boxes)\n");
    println!("| call | n | p50 ms | p99 ms | max ms |");
    println!("|---|---|---|---|---|");
    let mut samples = Vec::new();
    let mut yes = 0;
    for q in 0..queries {
        let (lat, lng) = point(10_000 + q);
        let body = json!({"date": DAY, "order": {"type": "delivery", "delivery_lat": lat,
            "delivery_lng": lng, "delivery_duration": 5,
            "capacities": [{"id": boxes, "capacity": 1}]}});
        let started = Instant::now();
        let r = bench.call("/booking/availability", body).await;
        samples.push(started.elapsed());
        yes += usize::from(r["booking"]["available"] == true);
    }
    row(&format!("booking/availability ({yes} available)"), samples);

    // A 100-stop route of another day, laid out in order-number order.
    let mut ids = Vec::new();
    for batch in 0..2 {
        let orders: Vec<Value> = (0..50 + reoptimize_calls)
            .map(|i| order(format!("R{batch}-{i}"), 500 + batch * 100 + i, ROUTE_DAY))
            .collect();
        let r = bench.call("/orders", Value::Array(orders)).await;
        ids.extend(r["orders"].as_array().expect("orders").iter().map(|o| {
            o["id"]
                .as_str()
                .expect("id")
                .parse::<i64>()
                .expect("numeric")
        }));
    }
    let (on_route, extra): (Vec<i64>, Vec<i64>) = {
        let mut on = Vec::new();
        let mut extra = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            if i % (50 + reoptimize_calls) < 50 {
                on.push(*id);
            } else {
                extra.push(*id);
            }
        }
        (on, extra)
    };
    // The route's van carries the whole route, so re-solving is about sequence, not capacity.
    let big = bench
        .call(
            "/vehicles",
            json!({"name": "Route van", "availability": "full_day", "start_location": "depot",
                "end_location": "depot", "capacities": [{"id": boxes, "capacity": 1000}]}),
        )
        .await["vehicle"]["id"]
        .as_i64()
        .expect("vehicle id");
    let route = lay_out(&*store, scope, big, &on_route, clock.now());
    let mut samples = Vec::new();
    for id in extra.iter().take(reoptimize_calls) {
        let started = Instant::now();
        let r = bench
            .call(
                &format!("/routes/{route}/add-orders"),
                json!({"orders": [{"id": id}], "settings": {"reoptimize": true}}),
            )
            .await;
        samples.push(started.elapsed());
        assert_eq!(r["errors"], json!([]), "the added order is placed");
    }
    row("routes/{id}/add-orders reoptimize (100+ stops)", samples);
    let mut samples = Vec::new();
    for id in extra.iter().take(reoptimize_calls) {
        let started = Instant::now();
        let r = bench
            .call(
                &format!("/routes/{route}/remove-orders"),
                json!({"orders": [{"id": id}], "settings": {"reoptimize": true}}),
            )
            .await;
        samples.push(started.elapsed());
        assert_eq!(r["errors"], json!([]), "the order is removed");
    }
    row("routes/{id}/remove-orders reoptimize", samples);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Stores a plan with one route serving `orders` in this order (untimed placeholders: the
/// first edit re-times it).
fn lay_out(
    store: &dyn Store,
    scope: DepotScope,
    vehicle: i64,
    orders: &[i64],
    now: Timestamp,
) -> i64 {
    let date = Date::parse(ROUTE_DAY).expect("date");
    store
        .transaction(|tx| {
            let mut plan = tx.insert_plan(scope, &NewPlan { date }, now)?;
            let solution = tx.insert_solution(scope, plan.id, "bench", &[], now)?;
            let route = tx.insert_route(
                scope,
                &NewRoute {
                    plan_id: plan.id,
                    solution_id: solution.id,
                    name: "Bench".into(),
                    date,
                    vehicle_id: Some(vehicle),
                    timing: RouteTiming::default(),
                },
                now,
            )?;
            let mut visits = Vec::new();
            for id in orders {
                let o = tx.get_order(scope, *id)?.expect("order");
                visits.push(StopVisit {
                    order_ids: vec![*id],
                    side: Side::Delivery,
                    lat: o.delivery.lat,
                    lng: o.delivery.lng,
                    address: None,
                    postcode: None,
                    phone: None,
                    arrival_date: date,
                    arrival_s: 8 * 3600,
                    wait_s: 0,
                    departure_date: date,
                    departure_s: 8 * 3600,
                    planned_distance_m: 0,
                });
            }
            tx.replace_stops(scope, route.id, &visits, now)?;
            plan.active_solution_id = Some(solution.id);
            tx.update_plan(scope, &plan)?;
            Ok::<_, StoreError>(route.id)
        })
        .expect("lay out")
}
