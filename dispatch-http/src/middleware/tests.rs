//! The layers together on a small router of their own (auth stand-in: `x-access-key: N` becomes
//! access key N), nested under `/v2` like the real service.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::middleware::{from_fn, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use dispatch_core::ports::clock::ManualClock;
use dispatch_core::ports::store::InMemoryStore;
use dispatch_core::time::Timestamp;
use serde_json::{json, Value};
use tokio::sync::Semaphore;
use tower::ServiceExt;

use super::*;
use crate::auth::{Permission, Principal};
use crate::error::{ApiError, ErrorName};

const T0: Timestamp = Timestamp::from_millis(1_800_000_000_000);

#[derive(Clone)]
struct Probe {
    executions: Arc<AtomicUsize>,
    /// Held by the slow endpoint until the test adds permits.
    gate: Arc<Semaphore>,
    entered: Arc<AtomicUsize>,
}

impl Probe {
    fn new() -> Self {
        Probe {
            executions: Arc::default(),
            gate: Arc::new(Semaphore::new(0)),
            entered: Arc::default(),
        }
    }

    fn executions(&self) -> usize {
        self.executions.load(Ordering::SeqCst)
    }
}

async fn test_auth(mut req: Request, next: Next) -> Response {
    let id = req
        .headers()
        .get("x-access-key")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i64>().ok());
    let Some(access_key_id) = id else {
        return ApiError::new(ErrorName::Unauthorized, "missing or unknown access key")
            .into_response();
    };
    req.extensions_mut().insert(Principal {
        access_key_id,
        depot_id: 100 + access_key_id,
        organisation_id: 1,
        permission: Permission::All,
    });
    next.run(req).await
}

/// Executes, counts, and answers with the status named in the body's `status` (default 201).
/// The body is read as the real handlers read it.
async fn counted(
    State(probe): State<Probe>,
    body: Result<crate::extract::JsonBody, crate::error::ApiError>,
) -> Response {
    let n = probe.executions.fetch_add(1, Ordering::SeqCst) + 1;
    let body = body.map_or(Value::Null, |crate::extract::JsonBody(b)| b);
    let status = body["status"]
        .as_u64()
        .and_then(|s| StatusCode::from_u16(s as u16).ok())
        .unwrap_or(StatusCode::CREATED);
    (status, Json(json!({ "execution": n, "echo": body }))).into_response()
}

async fn slow(State(probe): State<Probe>) -> Response {
    probe.entered.fetch_add(1, Ordering::SeqCst);
    let _permit = probe.gate.acquire().await.expect("gate open");
    let n = probe.executions.fetch_add(1, Ordering::SeqCst) + 1;
    (StatusCode::OK, Json(json!({ "execution": n }))).into_response()
}

async fn paged() -> Response {
    (
        [(
            "link",
            "<http://h/v2/customers?page_info=abc&limit=2>; rel=\"next\"",
        )],
        Json(json!({ "customers": [] })),
    )
        .into_response()
}

#[derive(Clone)]
struct TestApp {
    app: Router,
    clock: Arc<ManualClock>,
    probe: Probe,
}

fn test_app(rate_limits_enabled: bool) -> TestApp {
    test_app_with(
        rate_limits_enabled,
        Arc::new(ManualClock::new(T0)),
        Arc::new(InMemoryStore::new()),
        Probe::new(),
    )
}

fn test_app_with(
    rate_limits_enabled: bool,
    clock: Arc<ManualClock>,
    idempotency_store: Arc<dyn IdempotencyStore>,
    probe: Probe,
) -> TestApp {
    let api = Router::new()
        .route(
            "/vehicles",
            post(counted).get(|| async { Json(json!({"vehicles": []})) }),
        )
        .route("/vehicles/", post(counted))
        .route("/customers", post(counted).get(paged))
        .route("/orders", post(counted))
        .route("/plans/optimise/orders", post(counted))
        .route("/plans/optimise/orders-for-ids", post(slow))
        .route("/routes/{id}/reverse", post(counted))
        .with_state(probe.clone());
    let config = MiddlewareConfig {
        clock: clock.clone(),
        rate_limits_enabled,
        idempotency_store,
        shared_rate_limits: None,
        docs_url: crate::public_url::PublicUrl::parse("https://docs.example.org/dispatch").unwrap(),
    };
    let api = apply_inner(api, &config).layer(from_fn(test_auth));
    let app = apply_outer(Router::new().nest("/v2", api), &config);
    TestApp { app, clock, probe }
}

struct Reply {
    status: StatusCode,
    headers: HeaderMap,
    body: Vec<u8>,
}

impl Reply {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }
    #[track_caller]
    fn assert_replayed(&self) {
        assert_eq!(self.header("idempotency-replay"), Some("true"));
    }
    #[track_caller]
    fn assert_not_replayed(&self) {
        assert_eq!(self.header("idempotency-replay"), None);
    }
    #[track_caller]
    fn assert_no_deprecation_headers(&self) {
        for h in ["sunset", "deprecation", "link"] {
            assert_eq!(self.header(h), None, "{h}");
        }
    }
    /// Asserts the error envelope: `status`, its `name` and its `statusCode`.
    #[track_caller]
    fn assert_error(&self, status: StatusCode, name: &str) {
        assert_eq!(self.status, status);
        assert_eq!(self.json()["name"], name);
        assert_eq!(self.json()["statusCode"], status.as_u16());
    }
}

impl TestApp {
    async fn get(&self, uri: &str, headers: &[(&str, &str)]) -> Reply {
        call(&self.app, "GET", uri, headers, "").await
    }
    async fn post(&self, uri: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        call(&self.app, "POST", uri, headers, body).await
    }
    /// POSTs `body` to `uri` as access key 1 with idempotency key `key`.
    async fn send(&self, uri: &str, key: &str, body: &str) -> Reply {
        self.post(uri, &[KEY1, (IK, key)], body).await
    }
}

async fn call(
    app: &Router,
    method: &str,
    uri: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Reply {
    let mut req = Request::builder().method(method).uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if !body.is_empty() {
        req = req.header("content-type", "application/json");
    }
    let response = app
        .clone()
        .oneshot(req.body(Body::from(body.to_owned())).unwrap())
        .await
        .unwrap();
    let (parts, body) = response.into_parts();
    Reply {
        status: parts.status,
        headers: parts.headers,
        body: to_bytes(body, usize::MAX).await.unwrap().to_vec(),
    }
}

const KEY1: (&str, &str) = ("x-access-key", "1");
const KEY2: (&str, &str) = ("x-access-key", "2");
const OPT_IN: (&str, &str) = ("x-svc-api-features", "rate-limit-429");
const IK: &str = "idempotency-key";

// ---------------------------------------------------------------- rate limits

#[tokio::test]
async fn a_tripped_limit_answers_403_forbidden_with_retry_after_equal_to_the_detail() {
    let t = test_app(true);
    assert_eq!(t.get("/v2/vehicles", &[KEY1]).await.status, StatusCode::OK);
    let r = t.get("/v2/vehicles", &[KEY1]).await;
    r.assert_error(StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_eq!(r.json()["details"]["retry_after_seconds"], 1);
    assert_eq!(r.header("retry-after"), Some("1"));
    t.clock.advance_millis(1000);
    assert_eq!(t.get("/v2/vehicles", &[KEY1]).await.status, StatusCode::OK);
}

#[tokio::test]
async fn the_429_token_changes_only_status_and_name() {
    let t = test_app(true);
    t.post("/v2/routes/1/reverse", &[KEY1], "").await;
    t.post("/v2/routes/1/reverse", &[KEY1], "").await;
    let forbidden = t.post("/v2/routes/1/reverse", &[KEY1], "").await;
    let too_many = t.post("/v2/routes/1/reverse", &[KEY1, OPT_IN], "").await;
    assert_eq!(forbidden.status, StatusCode::FORBIDDEN);
    too_many.assert_error(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMIT_EXCEEDED");
    assert_eq!(
        forbidden.json()["description"],
        too_many.json()["description"]
    );
    assert_eq!(forbidden.json()["details"], too_many.json()["details"]);
    assert_eq!(forbidden.json()["details"]["retry_after_seconds"], 15);
    assert_eq!(too_many.header("retry-after"), Some("15"));
    assert_eq!(forbidden.header("retry-after"), Some("15"));
    assert_eq!(t.probe.executions(), 2);
}

#[tokio::test]
async fn from_2028_03_01_every_caller_gets_429() {
    let t = test_app(true);
    t.clock
        .set(Timestamp::parse("2028-03-01T00:00:00.000Z").unwrap());
    t.get("/v2/vehicles", &[KEY1]).await;
    let r = t.get("/v2/vehicles", &[KEY1]).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(r.json()["name"], "RATE_LIMIT_EXCEEDED");
    assert_eq!(r.header("retry-after"), Some("1"));
}

#[tokio::test]
async fn rate_limits_off_lets_everything_through() {
    let t = test_app(false);
    for _ in 0..100 {
        assert_eq!(t.get("/v2/vehicles", &[KEY1]).await.status, StatusCode::OK);
    }
}

#[tokio::test]
async fn each_access_key_has_its_own_quota() {
    let t = test_app(true);
    t.get("/v2/vehicles", &[KEY1]).await;
    assert_eq!(
        t.get("/v2/vehicles", &[KEY1]).await.status,
        StatusCode::FORBIDDEN
    );
    assert_eq!(t.get("/v2/vehicles", &[KEY2]).await.status, StatusCode::OK);
}

mod features_and_logs_tests;
mod idempotency_tests;
