//! HTTP tests of customers, orders, order statuses and attachments: the real router over a
//! real database (a SQLite file in a temp dir, or PostgreSQL with `DISPATCH_TEST_DB=postgres`),
//! spoken to in JSON. Each test is named after the rule it pins.

use crate::common::{test_db, test_sql};

mod attachments;
mod customers;
mod key_lengths;
mod order_statuses;
mod orders;
mod orders_put;

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use axum::Router;
use dispatch_adapters::images::Codec;
use dispatch_core::events::DomainEvent;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::clock::ManualClock;
use dispatch_core::ports::store::Store;
use dispatch_core::service::seed;
use dispatch_core::time::Timestamp;
use dispatch_http::keys::DerivedKeys;
use dispatch_http::{app, AppState};
use dispatch_server::cli::database::Database;
use serde_json::{json, Value};

/// One response.
pub struct Reply {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Value,
}

impl Reply {
    /// The `name` of an error envelope.
    pub fn name(&self) -> &str {
        self.body["name"].as_str().unwrap_or("")
    }

    /// The paths of `details.validationErrors`, rendered `a.b.0`.
    pub fn paths(&self) -> Vec<String> {
        self.body["details"]["validationErrors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|i| {
                        i["path"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|s| match s {
                                Value::String(s) => s.clone(),
                                other => other.to_string(),
                            })
                            .collect::<Vec<_>>()
                            .join(".")
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The `rel="next"` URL, path and query only. Responses carry other `Link` values too (the
    /// feature layer's `rel="deprecation"`), in separate headers or comma-separated.
    pub fn next_link(&self) -> Option<String> {
        let values = self
            .headers
            .get_all("link")
            .iter()
            .filter_map(|v| v.to_str().ok());
        let next = values
            .flat_map(|v| v.split(','))
            .find(|link| link.contains("rel=\"next\""))?;
        let url = next.split('<').nth(1)?.split('>').next()?;
        let start = url.find("/v2/").unwrap_or(0);
        Some(url[start..].to_owned())
    }
}

/// A service over a temp SQLite file, seeded with organisation Acme: depot North (everything
/// allowed), depot South (another depot of the same organisation) and depot Strict (orders
/// need a customer).
pub struct Api {
    app: Router,
    pub(crate) store: Arc<dyn Store>,
    /// Where the store keeps its data.
    pub db: Database,
    pub(crate) clock: Arc<ManualClock>,
    pub(crate) key: String,
    pub(crate) read_key: String,
    pub(crate) other_key: String,
    pub(crate) strict_key: String,
    pub(crate) north: DepotScope,
    _dir: tempfile::TempDir,
}

const SEED: &str = r#"{
  "organisations": [{
    "name": "Acme",
    "order_statuses": ["RETURNED"],
    "third_parties": [{"name": "Courier X"}],
    "depots": [
      {
        "name": "North",
        "access_keys": [{"name": "integration", "permission": "all"}, {"name": "reporting", "permission": "read"}],
        "capacity_types": [{"type": "Weight", "default": "0"}],
        "custom_fields": [{"name": "Gate code"}],
        "tags": ["Fragile"],
        "gazetteer": [
          {"address": "1 High St", "postcode": "AB1 2CD", "lat": 51.5, "lng": -0.12},
          {"address": "2 Low St", "lat": 52.5, "lng": -1.5}
        ]
      },
      {"name": "South", "access_keys": [{"name": "integration", "permission": "all"}]},
      {
        "name": "Strict",
        "settings": {"allow_orders_without_customer": false},
        "access_keys": [{"name": "integration", "permission": "all"}]
      }
    ]
  }]
}"#;

pub(crate) const T0: i64 = 1_800_000_000_000;

impl Api {
    pub(crate) fn start() -> Api {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dispatch.db");
        let service = test_db::open_service(&path, Arc::new(|| {}));
        let store = service.store;
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(T0)));
        let seed = seed::parse(SEED).unwrap();
        let out = test_db::off_runtime(|| {
            seed::apply(&*store, &DerivedKeys, &seed, Timestamp::from_millis(T0)).unwrap()
        });
        let depot = |i: usize| &out["organisations"][0]["depots"][i];
        let key = |i: usize, k: usize| {
            depot(i)["access_keys"][k]["key"]
                .as_str()
                .unwrap()
                .to_owned()
        };
        let north = DepotScope {
            organisation_id: out["organisations"][0]["id"].as_i64().unwrap(),
            depot_id: depot(0)["id"].as_i64().unwrap(),
        };
        let state = AppState::new(
            store.clone(),
            clock.clone(),
            service.geocoder,
            service.idempotency,
            Arc::new(Codec),
        );
        Api {
            app: app(state),
            store,
            db: test_db::database(&path),
            clock,
            key: key(0, 0),
            read_key: key(0, 1),
            other_key: key(1, 0),
            strict_key: key(2, 0),
            north,
            _dir: dir,
        }
    }

    /// Sends a request with `key`; the clock moves 1 s after every call so `updated` differs.
    pub async fn call_as(
        &self,
        key: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> Reply {
        let mut req = Request::builder()
            .method(method)
            .uri(path)
            .header("x-access-key", key);
        let body = match body {
            Some(b) => {
                req = req.header("content-type", "application/json");
                Body::from(b.to_string())
            }
            None => Body::empty(),
        };
        self.send(req.body(body).unwrap()).await
    }

    /// Sends a prepared request.
    pub async fn send(&self, req: Request<Body>) -> Reply {
        let (status, headers, bytes) = crate::exchange::exchange(&self.app, req).await;
        self.clock.advance_millis(1000);
        let body = if bytes.is_empty() {
            Value::Null
        } else {
            serde_json::from_slice(&bytes).unwrap_or(Value::Null)
        };
        Reply {
            status,
            headers,
            body,
        }
    }

    pub(crate) async fn get(&self, path: &str) -> Reply {
        self.call_as(&self.key.clone(), Method::GET, path, None)
            .await
    }

    pub(crate) async fn post(&self, path: &str, body: Value) -> Reply {
        self.call_as(&self.key.clone(), Method::POST, path, Some(body))
            .await
    }

    pub(crate) async fn put(&self, path: &str, body: Value) -> Reply {
        self.call_as(&self.key.clone(), Method::PUT, path, Some(body))
            .await
    }

    pub(crate) async fn delete(&self, path: &str) -> Reply {
        self.call_as(&self.key.clone(), Method::DELETE, path, None)
            .await
    }

    /// The North depot's outbox.
    pub fn events(&self) -> Vec<DomainEvent> {
        let store = &*self.store;
        let scope = self.north;
        test_db::off_runtime(|| store.read(|tx| tx.list_events(scope))).unwrap()
    }

    /// Posts orders and returns their ids.
    pub async fn post_orders(&self, orders: Value) -> Vec<i64> {
        let r = self.post("/v2/orders", orders).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        r.body["orders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().parse().unwrap())
            .collect()
    }
}

/// A delivery order at the gazetteer's address.
pub fn delivery(number: &str) -> Value {
    json!({"order_number": number, "type": "delivery", "delivery_address": "1 High St"})
}
