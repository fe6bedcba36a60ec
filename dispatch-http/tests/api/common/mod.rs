//! The real router over a real database (a SQLite file in a temp dir, or a PostgreSQL database
//! with `DISPATCH_TEST_DB=postgres`), a manual clock, and a seeded fixture: organisation "Acme"
//! (depots North and South) and organisation "Other" (depot Far).

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::Router;
use dispatch_adapters::images::Codec;
use dispatch_core::ports::clock::ManualClock;
use dispatch_core::ports::store::{Store, StoreError, StoreTx};
use dispatch_core::service::seed;
use dispatch_core::time::Timestamp;
use dispatch_http::keys::DerivedKeys;
use dispatch_http::{app, AppState};
use dispatch_server::cli::database::Database;
use serde_json::{json, Value};

#[path = "../../shared/exchange.rs"]
pub mod exchange;
#[path = "../../shared/test_db.rs"]
pub mod test_db;
#[path = "../../shared/test_sql.rs"]
pub mod test_sql;

/// 2026-11-22T08:00:00.000Z
pub const START: i64 = 1_795_334_400_000;

/// The fixture seed file.
pub fn fixture_seed() -> Value {
    json!({
        "organisations": [
            {
                "name": "Acme",
                "order_statuses": ["RETURNED"],
                "third_parties": [{"name": "Courier X"}, {"name": "Courier Y"}],
                "depots": [
                    {
                        "name": "North",
                        "address": "1 Depot Way", "lat": 51.50, "lng": -0.12,
                        "access_keys": [
                            {"name": "integration", "permission": "all"},
                            {"name": "reporting", "permission": "read"}
                        ],
                        "capacity_types": [{"type": "Weight", "default": "0"}, {"type": "Volume"}],
                        "custom_fields": [{"name": "Gate code"}],
                        "tags": ["Fragile"],
                        "zone_groups": [
                            {"name": "Central", "zones": [
                                {"name": "Z1", "polygon": [[51.49, -0.13], [51.51, -0.13], [51.51, -0.11], [51.49, -0.11]]},
                                {"name": "Z2", "polygon": [[51.51, -0.13], [51.53, -0.13], [51.53, -0.11], [51.51, -0.11]]}
                            ]},
                            {"name": "Empty", "zones": []}
                        ],
                        "notification_templates": [
                            {"type": "SMS", "name": "On the way", "body": "Your order {order_number} is on its way"},
                            {"type": "EMAIL", "name": "Delivered", "body": "Delivered"}
                        ],
                        "gazetteer": [
                            {"address": "1 High St", "postcode": "AB1 2CD", "lat": 51.50, "lng": -0.12},
                            {"address": "9 Far Rd", "postcode": "ZZ9 9ZZ", "lat": 52.0, "lng": 1.0}
                        ]
                    },
                    {
                        "name": "South",
                        "access_keys": [{"name": "integration", "permission": "all"}],
                        "capacity_types": [{"type": "Pallets"}],
                        "zone_groups": [{"name": "South zones", "zones": []}]
                    }
                ]
            },
            {
                "name": "Other",
                "third_parties": [{"name": "Elsewhere Ltd"}],
                "depots": [{"name": "Far", "access_keys": [{"name": "main", "permission": "all"}]}]
            }
        ]
    })
}

/// A response, decoded.
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Value,
}

impl Resp {
    /// Asserts the spec's envelope with `name` and `status`, and returns the body.
    #[track_caller]
    pub fn envelope(&self, status: u16, name: &str) -> &Value {
        assert_eq!(self.status.as_u16(), status, "{:#}", self.body);
        assert_eq!(self.body["name"], name, "{:#}", self.body);
        assert_eq!(self.body["statusCode"], status, "{:#}", self.body);
        assert!(self.body["description"].is_string(), "{:#}", self.body);
        assert!(self.body["details"].is_object(), "{:#}", self.body);
        &self.body
    }

    /// Asserts 400 INVALID_INPUT and returns the paths of its validation errors, joined by `.`.
    #[track_caller]
    pub fn invalid_paths(&self) -> Vec<String> {
        self.envelope(400, "INVALID_INPUT");
        let errors = self.body["details"]["validationErrors"]
            .as_array()
            .unwrap_or_else(|| panic!("no validationErrors: {:#}", self.body));
        errors
            .iter()
            .map(|e| {
                for field in ["code", "expected", "received", "message"] {
                    assert!(e[field].is_string(), "{field} in {e}");
                }
                e["path"]
                    .as_array()
                    .expect("path array")
                    .iter()
                    .map(|p| p.as_str().map_or_else(|| p.to_string(), str::to_owned))
                    .collect::<Vec<_>>()
                    .join(".")
            })
            .collect()
    }

    /// [`Resp::invalid_paths`], sorted: for answers whose violations come in no promised order.
    #[track_caller]
    pub fn invalid_paths_sorted(&self) -> Vec<String> {
        let mut paths = self.invalid_paths();
        paths.sort();
        paths
    }

    /// Asserts 200 and returns the body.
    #[track_caller]
    pub fn ok(&self) -> &Value {
        assert_eq!(self.status, StatusCode::OK, "{:#}", self.body);
        &self.body
    }
}

/// The application under test.
pub struct TestApp {
    pub router: Router,
    pub clock: Arc<ManualClock>,
    pub store: Arc<dyn Store>,
    /// Where the store keeps its data.
    pub db: Database,
    pub seed_output: Value,
    pub dir: tempfile::TempDir,
    /// The state behind the router (the plan tests start background workers over it).
    #[allow(dead_code)]
    pub state: AppState,
}

impl TestApp {
    /// A fresh database with the fixture seeded.
    pub fn new() -> TestApp {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("test.db");
        let service = test_db::open_service(&path, Arc::new(|| {}));
        let store = service.store;
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(START)));
        let seed = seed::parse(&fixture_seed().to_string()).expect("fixture parses");
        let seed_output = test_db::off_runtime(|| {
            seed::apply(&*store, &DerivedKeys, &seed, Timestamp::from_millis(START))
                .expect("fixture applies")
        });
        let state = AppState::new(
            store.clone(),
            clock.clone(),
            service.geocoder,
            service.idempotency,
            Arc::new(Codec),
        );
        TestApp {
            router: app(state.clone()),
            state,
            clock,
            store,
            db: test_db::database(&path),
            seed_output,
            dir,
        }
    }

    /// Runs `work` in a write transaction of the store, off the test's async runtime.
    pub fn write<R: Send, E: From<StoreError> + Send>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E> + Send,
    ) -> Result<R, E> {
        self.with_store(|store| store.transaction(work))
    }

    /// Runs `work` in a read snapshot of the store, off the test's async runtime.
    pub fn read<R: Send, E: From<StoreError> + Send>(
        &self,
        work: impl FnOnce(&mut dyn StoreTx) -> Result<R, E> + Send,
    ) -> Result<R, E> {
        self.with_store(|store| store.read(work))
    }

    /// Calls `work` (a use case, the seed) with the store, off the test's async runtime.
    pub fn with_store<R: Send>(&self, work: impl FnOnce(&dyn Store) -> R + Send) -> R {
        let store = &*self.store;
        test_db::off_runtime(|| work(store))
    }

    /// The seeded depot object of `org`/`depot`.
    pub fn depot(&self, org: usize, depot: usize) -> &Value {
        &self.seed_output["organisations"][org]["depots"][depot]
    }

    /// A seeded key by position.
    pub fn key_of(&self, org: usize, depot: usize, key: usize) -> String {
        self.depot(org, depot)["access_keys"][key]["key"]
            .as_str()
            .expect("key")
            .to_owned()
    }

    /// North's `all` key.
    pub fn north(&self) -> String {
        self.key_of(0, 0, 0)
    }

    /// North's `read` key.
    pub fn north_read(&self) -> String {
        self.key_of(0, 0, 1)
    }

    /// South's key (same organisation, other depot).
    pub fn south(&self) -> String {
        self.key_of(0, 1, 0)
    }

    /// Far's key (other organisation).
    pub fn far(&self) -> String {
        self.key_of(1, 0, 0)
    }

    /// Sends a request as built.
    pub async fn send(&self, request: Request<Body>) -> Resp {
        let (status, headers, bytes) = exchange::exchange(&self.router, request).await;
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or_else(|_| {
                panic!(
                    "non-JSON body ({status}): {}",
                    String::from_utf8_lossy(&bytes)
                )
            })
        };
        Resp {
            status,
            headers,
            body,
        }
    }

    /// A JSON call with an optional key and body.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let mut b = Request::builder().method(method).uri(path);
        if let Some(key) = key {
            b = b.header("x-access-key", key);
        }
        let request = match body {
            Some(body) => b
                .header("content-type", "application/json")
                .body(Body::from(body.to_string())),
            None => b.body(Body::empty()),
        };
        self.send(request.expect("request")).await
    }

    /// GET with a key.
    pub async fn get(&self, path: &str, key: &str) -> Resp {
        self.call(Method::GET, path, Some(key), None).await
    }

    /// POST JSON with a key.
    pub async fn post(&self, path: &str, key: &str, body: Value) -> Resp {
        self.call(Method::POST, path, Some(key), Some(body)).await
    }

    /// PUT JSON with a key.
    pub async fn put(&self, path: &str, key: &str, body: Value) -> Resp {
        self.call(Method::PUT, path, Some(key), Some(body)).await
    }

    /// DELETE with a key.
    pub async fn delete(&self, path: &str, key: &str) -> Resp {
        self.call(Method::DELETE, path, Some(key), None).await
    }
}

/// The day the plan and route suites' fixture orders are due (two days after [`START`]).
pub const DAY: &str = "2026-11-24";

/// A delivery order near the North depot (51.50, -0.12), due on [`DAY`].
pub fn delivery(number: &str, lat: f64, lng: f64) -> Value {
    json!({
        "order_number": number,
        "type": "delivery",
        "delivery_address": format!("{number} High St"),
        "delivery_postcode": "AB1 2CD",
        "delivery_contact_number": "0123",
        "delivery_lat": lat,
        "delivery_lng": lng,
        "delivery_duration": 5,
        "delivery_date": DAY,
    })
}

/// Posts orders to North and returns their ids.
pub async fn post_orders(app: &TestApp, orders: Vec<Value>) -> Vec<i64> {
    let r = app
        .post("/v2/orders", &app.north(), Value::Array(orders))
        .await;
    r.ok()["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().parse().unwrap())
        .collect()
}

/// Posts a vehicle ([`van`]) to North and returns its id.
pub async fn post_vehicle(app: &TestApp, name: &str) -> i64 {
    let r = app.post("/v2/vehicles", &app.north(), van(name)).await;
    r.ok()["vehicle"]["id"].as_i64().unwrap()
}

/// The order ids of each stop, stop by stop (the `stops` of a route read or a plan's route).
pub fn stop_order_ids(stops: &[Value]) -> Vec<Vec<i64>> {
    stops
        .iter()
        .map(|s| {
            s["orders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["id"].as_i64().unwrap())
                .collect()
        })
        .collect()
}

/// The first order of each stop of `route` (a route read or a plan's route), stop by stop.
pub fn first_order_ids(route: &Value) -> Vec<i64> {
    route["stops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["orders"][0]["id"].as_i64().unwrap())
        .collect()
}

/// A valid minimal vehicle body.
pub fn van(name: &str) -> Value {
    json!({"name": name, "availability": "full_day", "start_location": "depot", "end_location": "depot"})
}
