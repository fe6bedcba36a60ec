//! Idempotency keys (spec, Limits: Idempotency).
//!
//! Applies to `idempotency-key` on exactly the POSTs in [`IDEMPOTENT_ENDPOINTS`]; other requests,
//! and multipart uploads, pass untouched. Decisions, where the spec leaves room:
//! - "Same body" means the same JSON document: bodies that parse as JSON are compared by a
//!   SHA-256 of their canonical form (object keys sorted, insignificant whitespace dropped), so a
//!   client that re-serialises its retry with another key order is still recognised; other
//!   bodies are compared byte for byte.
//! - The endpoint scope is the concrete path (`POST /depots/3/orders`), with `/v2` and a
//!   trailing slash removed (`/customers/` is `/customers`).
//! - The request runs in a task of its own once the key is claimed, so a client that hangs up
//!   does not cancel it half-way and leave the key claimed: the outcome is recorded either way.
//! - Crash safety: a response that reports an effect is recorded by the handler in the write
//!   transaction of the effect (`in_transaction`); this layer records only responses that
//!   changed nothing (refused input), so an unfinished claim found after a restart had no
//!   effect and is released.
//! - A claim that never finishes (the process died) blocks its key for
//!   [`ABANDONED_AFTER_MILLIS`](dispatch_core::ports::idempotency::ABANDONED_AFTER_MILLIS), then
//!   counts as abandoned; the SQLite store also releases such claims when the service restarts.
//!   While a claim blocks, callers get 409 with `Retry-After: 1`.
//! - Replays carry the original status, `Content-Type` and body, plus `idempotency-replay: true`.
//!   POST /customers replays have an empty body (its spec entry says so) and therefore no
//!   `Content-Type`.
//! - 5xx responses and rate-limit rejections release the key (a retry after `Retry-After` must
//!   execute, not replay the rejection); every other response is recorded and replayed.

use std::sync::Arc;

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{Request, State};
use axum::http::header::{HeaderName, CONTENT_TYPE, RETRY_AFTER};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::idempotency::{
    Claim, ClaimToken, IdempotencyScope, IdempotencyStore, IdempotencyStoreError, StoredResponse,
};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::auth::Principal;
use crate::bounded_json::BodyBytes;
use crate::error::{ApiError, ErrorName};
use crate::middleware::rate_limit::RateLimited;
use crate::middleware::route_key::strip_api_prefix;
use crate::middleware::RouteKey;

mod in_transaction;

pub use in_transaction::{IdempotencyClaim, InTransaction, RecordedInTransaction};

/// The request header naming the key.
pub const IDEMPOTENCY_KEY_HEADER: HeaderName = HeaderName::from_static("idempotency-key");
/// The response header marking a replay.
pub const IDEMPOTENCY_REPLAY_HEADER: HeaderName = HeaderName::from_static("idempotency-replay");
/// Longest key accepted, in characters.
pub const MAX_KEY_CHARS: usize = 255;
/// `Retry-After` of a 409 while the original request runs.
pub const IN_PROGRESS_RETRY_AFTER_SECONDS: u64 = 1;

/// The POST routes (relative to `/v2`) that honour `idempotency-key`.
pub const IDEMPOTENT_ENDPOINTS: &[&str] = &[
    "/orders",
    "/depots/{id}/orders",
    "/plans/optimise/orders",
    "/plans/optimise/orders-for-ids",
    "/customers",
    "/vehicles",
    "/notifications/schedule/orders",
];

/// Routes whose replays have an empty body.
const EMPTY_BODY_REPLAYS: &[&str] = &["/customers"];

/// State of the idempotency layer.
pub struct Idempotency {
    store: Arc<dyn IdempotencyStore>,
    clock: Arc<dyn Clock>,
}

impl Idempotency {
    /// The layer's state over `store`, with retention measured by `clock`.
    pub fn new(store: Arc<dyn IdempotencyStore>, clock: Arc<dyn Clock>) -> Self {
        Idempotency { store, clock }
    }

    /// Where the keys are recorded.
    pub(crate) fn store(&self) -> &Arc<dyn IdempotencyStore> {
        &self.store
    }

    /// The time of claims.
    pub(crate) fn now(&self) -> dispatch_core::time::Timestamp {
        self.clock.now()
    }
}

fn is_route(route: &RouteKey, templates: &[&str]) -> bool {
    templates
        .iter()
        .any(|t| RouteKey::new(Method::POST, t) == *route)
}

fn is_multipart(req: &Request) -> bool {
    req.headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("multipart/")
        })
}

/// The layer.
pub async fn enforce(State(state): State<Arc<Idempotency>>, req: Request, next: Next) -> Response {
    let Some(route) = RouteKey::of_request(&req) else {
        return next.run(req).await;
    };
    if !is_route(&route, IDEMPOTENT_ENDPOINTS) || is_multipart(&req) {
        return next.run(req).await;
    }
    let (Some(raw_key), Some(principal)) = (
        req.headers().get(IDEMPOTENCY_KEY_HEADER),
        req.extensions().get::<Principal>(),
    ) else {
        return next.run(req).await;
    };
    let key = match parse_key(raw_key) {
        Ok(key) => key,
        Err(refused) => return refused.into_response(),
    };
    let scope = IdempotencyScope {
        access_key_id: principal.access_key_id,
        endpoint: format!("POST {}", strip_api_prefix(req.uri().path())),
        key,
    };

    let (parts, body) = req.into_parts();
    let bytes = match crate::extract::read_bounded(&parts.headers, body).await {
        Ok(bytes) => bytes,
        Err(refused) => return refused.into_response(),
    };
    // Read and parsed once, here: the handler takes what reading gave, so a large body is
    // never held twice, nor beside its parsed form.
    let (digest, read) = fingerprint(bytes);
    let token = ClaimToken(uuid::Uuid::new_v4().to_string());
    let now = state.clock.now();
    let claim = {
        let (store, scope, token) = (state.store.clone(), scope.clone(), token.clone());
        blocking(move || store.claim(&scope, &digest, &token, now)).await
    };
    match claim {
        Err(e) => ApiError::internal(e).into_response(),
        Ok(Claim::Claimed) => {
            let mut req = Request::from_parts(parts, Body::empty());
            req.extensions_mut()
                .insert(IdempotencyClaim::new(scope.clone(), token.clone()));
            req.extensions_mut().insert(crate::extract::ReadJson(read));
            execute(
                state,
                scope,
                token,
                req,
                next,
                Successes::RecordedWithEffect,
            )
            .await
        }
        Ok(Claim::InProgress) => in_progress(),
        Ok(Claim::BodyMismatch) => body_mismatch(),
        Ok(Claim::Completed(stored)) => replay(stored, is_route(&route, EMPTY_BODY_REPLAYS)),
    }
}

/// The key of an `idempotency-key` header, or the refusal of a malformed one.
pub(crate) fn parse_key(raw_key: &HeaderValue) -> Result<String, ApiError> {
    // Decoding lossily would let two different keys collide.
    let Ok(key) = std::str::from_utf8(raw_key.as_bytes()).map(str::to_owned) else {
        return Err(ApiError::new(
            ErrorName::IdempotencyInvalidKey,
            "idempotency-key must be UTF-8 text",
        ));
    };
    let chars = key.chars().count();
    if chars == 0 || chars > MAX_KEY_CHARS {
        return Err(ApiError::new(
            ErrorName::IdempotencyInvalidKey,
            format!("idempotency-key must be 1 to {MAX_KEY_CHARS} characters"),
        )
        .with_detail("length", json!(chars)));
    }
    Ok(key)
}

/// 409 while the request that claimed the key still runs.
pub(crate) fn in_progress() -> Response {
    ApiError::new(
        ErrorName::IdempotencyRequestInProgress,
        "a request with this idempotency-key is still in progress",
    )
    .with_detail(
        "retry_after_seconds",
        json!(IN_PROGRESS_RETRY_AFTER_SECONDS),
    )
    .with_header(
        RETRY_AFTER,
        HeaderValue::from(IN_PROGRESS_RETRY_AFTER_SECONDS),
    )
    .into_response()
}

/// 422: the key was used with another body.
pub(crate) fn body_mismatch() -> Response {
    ApiError::new(
        ErrorName::IdempotencyKeyReusedWithDifferentBody,
        "this idempotency-key was used with a different request body",
    )
    .into_response()
}

/// Where the answer of a success is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Successes {
    /// By the handler, in the transaction of its effect (`/v2`): an unrecorded success is a
    /// fault, logged, and recorded here late.
    RecordedWithEffect,
    /// Here, right after the effect committed (the driver's actions, whose rules refuse a
    /// repeated outcome).
    RecordedAfter,
}

/// Runs the claimed request to the end in its own task and records or releases the key.
pub(crate) async fn execute(
    state: Arc<Idempotency>,
    scope: IdempotencyScope,
    token: ClaimToken,
    req: Request,
    next: Next,
    successes: Successes,
) -> Response {
    let task = {
        let (state, scope, token) = (state.clone(), scope.clone(), token.clone());
        tokio::spawn(async move {
            let response = next.run(req).await;
            settle(&state, scope, token, response, successes).await
        })
    };
    match task.await {
        Ok(response) => response,
        Err(panic) => {
            release(&state, scope, token).await;
            ApiError::internal(format!("request task failed: {panic}")).into_response()
        }
    }
}

/// Records the answer (any but a server error or a rate-limit refusal, which release the key
/// so the retry runs).
async fn settle(
    state: &Idempotency,
    scope: IdempotencyScope,
    token: ClaimToken,
    response: Response,
    successes: Successes,
) -> Response {
    let (parts, body) = response.into_parts();
    let bytes: Bytes = match to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(e) => {
            release(state, scope, token).await;
            return ApiError::internal(format!("response body failed: {e}")).into_response();
        }
    };
    if parts.extensions.get::<RecordedInTransaction>().is_some() {
        // Recorded with the effect, in the handler's transaction.
        if let Some(hold) = committed_response_hold() {
            tokio::time::sleep(hold).await;
        }
    } else if parts.status.is_server_error() || parts.extensions.get::<RateLimited>().is_some() {
        release(state, scope, token).await;
    } else {
        if parts.status.is_success() && successes == Successes::RecordedWithEffect {
            // A success reports an effect, which must have recorded its response in its own
            // transaction; recording it only now is not crash-safe.
            tracing::error!(
                endpoint = %scope.endpoint,
                "an idempotent success was not recorded in the transaction of its effect"
            );
        }
        let stored = StoredResponse {
            status: parts.status.as_u16(),
            content_type: parts
                .headers
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned),
            body: bytes.to_vec(),
        };
        let store = state.store.clone();
        let (s, t) = (scope.clone(), token.clone());
        if let Err(e) = blocking(move || store.complete(&s, &t, &stored)).await {
            // Unrecorded, the key must not stay claimed: a retry would wait for nothing.
            tracing::error!(error = %e, "recording an idempotent response failed");
            release(state, scope, token).await;
        }
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// Environment variable of a test hook: holds every response recorded with its effect for that
/// many milliseconds before sending it, so a crash test can `kill -9` the process between the
/// commit and the response. Unset in production.
pub const HOLD_COMMITTED_RESPONSE_ENV: &str = "DISPATCH_TEST_HOLD_COMMITTED_RESPONSE_MS";

fn committed_response_hold() -> Option<std::time::Duration> {
    static HOLD: std::sync::OnceLock<Option<std::time::Duration>> = std::sync::OnceLock::new();
    *HOLD.get_or_init(|| {
        let millis = std::env::var(HOLD_COMMITTED_RESPONSE_ENV)
            .ok()?
            .parse()
            .ok()?;
        Some(std::time::Duration::from_millis(millis))
    })
}

pub(crate) async fn release(state: &Idempotency, scope: IdempotencyScope, token: ClaimToken) {
    let store = state.store.clone();
    if let Err(e) = blocking(move || store.release(&scope, &token)).await {
        tracing::error!(error = %e, "releasing an idempotency key failed");
    }
}

pub(crate) fn replay(stored: StoredResponse, empty_body: bool) -> Response {
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::OK);
    let mut response = if empty_body {
        Response::new(Body::empty())
    } else {
        Response::new(Body::from(stored.body))
    };
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(IDEMPOTENCY_REPLAY_HEADER, HeaderValue::from_static("true"));
    if !empty_body {
        if let Some(ct) = stored
            .content_type
            .and_then(|ct| HeaderValue::from_str(&ct).ok())
        {
            headers.insert(CONTENT_TYPE, ct);
        }
    }
    response
}

pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, IdempotencyStoreError> + Send + 'static,
) -> Result<T, IdempotencyStoreError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(IdempotencyStoreError(e.to_string())))
}

/// The body's digest — SHA-256 (hex) of its canonical JSON, or of its bytes when it is not JSON
/// within the bounds of [`crate::bounded_json`] (which the handler refuses anyway) — and what
/// reading it gave, for the handler. The bytes are hashed as parsing frees them.
pub fn fingerprint(bytes: BodyBytes) -> (String, Result<Option<Value>, ApiError>) {
    let mut raw = Sha256::new();
    raw.update(b"raw:");
    let read = crate::extract::json_of(bytes, &mut |segment| raw.update(segment));
    let digest = match &read {
        Ok(Some(value)) => {
            let mut canonical = Sha256::new();
            canonical.update(b"json:");
            write_canonical(value, &mut canonical);
            canonical.finalize()
        }
        _ => raw.finalize(),
    };
    let hex = digest.iter().map(|b| format!("{b:02x}")).collect();
    (hex, read)
}

/// Feeds the canonical form straight into the hash: no copy of the document is built.
fn write_canonical(value: &Value, out: &mut Sha256) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.update(b"{");
            for (i, (key, value)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.update(b",");
                }
                write_json_string(key, out);
                out.update(b":");
                write_canonical(value, out);
            }
            out.update(b"}");
        }
        Value::Array(items) => {
            out.update(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.update(b",");
                }
                write_canonical(item, out);
            }
            out.update(b"]");
        }
        Value::String(s) => write_json_string(s, out),
        scalar => out.update(scalar.to_string().as_bytes()),
    }
}

fn write_json_string(s: &str, out: &mut Sha256) {
    struct Hashing<'h>(&'h mut Sha256);
    impl std::io::Write for Hashing<'_> {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    // Writing a string to an infallible writer cannot fail.
    let _ = serde_json::to_writer(Hashing(out), s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_bodies_are_compared_as_documents_and_other_bodies_as_bytes() {
        let body_digest = |bytes: &[u8]| fingerprint(bytes.into()).0;
        assert_eq!(
            body_digest(br#"{"b": [1, {"y":2,"x":1}], "a": "s"}"#),
            body_digest(br#"{"a":"s","b":[1,{"x":1,"y":2}]}"#)
        );
        assert_ne!(body_digest(br#"{"a":1}"#), body_digest(br#"{"a":2}"#));
        assert_ne!(body_digest(br#"[1,2]"#), body_digest(br#"[2,1]"#));
        assert_ne!(body_digest(b"not json "), body_digest(b"not json"));
        assert_eq!(body_digest(b""), body_digest(b""));
    }

    #[test]
    fn exactly_the_listed_posts_are_idempotent() {
        let yes = |p: &str| is_route(&RouteKey::new(Method::POST, p), IDEMPOTENT_ENDPOINTS);
        for p in [
            "/v2/orders",
            "/depots/{depot_id}/orders",
            "/plans/optimise/orders",
            "/plans/optimise/orders-for-ids",
            "/customers",
            "/customers/",
            "/vehicles",
            "/vehicles/",
            "/notifications/schedule/orders",
        ] {
            assert!(yes(p), "{p}");
        }
        for p in [
            "/routes/{id}/reverse",
            "/orders/{id}/attachments",
            "/order-statuses",
        ] {
            assert!(!yes(p), "{p}");
        }
        assert!(!is_route(
            &RouteKey::new(Method::GET, "/orders"),
            IDEMPOTENT_ENDPOINTS
        ));
    }
}
