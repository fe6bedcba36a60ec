//! `POST /vroom`: the solver behind VROOM's HTTP interface (vroom-express's), so that clients
//! written for VROOM work against `dispatch serve` with an `x-access-key` header added. Off
//! unless `serve --vroom-api on`.
//!
//! The body is a VROOM problem (`formats::vroom`, the reader `dispatch solve --format vroom`
//! uses; vroom-express's `options` object is accepted, `options.t` choosing the threads up to
//! the server's cores) and a success is VROOM's answer (`formats::vroom_solution`). Every
//! failure, the access key's and the rate limit's included, is VROOM's `{code, error}` with the
//! HTTP status vroom-express gives it: 400 and code 2 for input errors (malformed JSON, no
//! vehicles or no tasks, keys the reader refuses), 413 and code 4 for a body beyond the limit,
//! 500 and code 1 for internal errors; 401, 403 and 429 keep their status, with code 2.
//! The endpoint is in the strict rate tier.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::{to_bytes, Body, Bytes};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use dispatch_core::solver::checker;
use dispatch_core::solver::formats::vroom;
use dispatch_core::solver::formats::vroom_solution::{self, ComputingTimes, ErrorCode};
use dispatch_core::solver::problem::Objective;
use dispatch_core::solver::{solve, Config, Control};

use crate::middleware::{apply_inner, MiddlewareConfig};
use crate::{auth, AppState};

/// The path of the endpoint.
pub const PATH: &str = "/vroom";

/// How the endpoint solves (`serve` flags).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VroomApi {
    /// Wall-clock budget of one request's search.
    pub time_limit: Duration,
    /// Most worker threads a request may ask for with `options.t`.
    pub max_threads: usize,
}

/// vroom-express's message for a body that is not a problem.
const NOT_A_PROBLEM: &str =
    "Invalid JSON object in request, please add vehicles and jobs or shipments to the object body";

/// The endpoint with the access-key, rate-limit and error-shape layers.
pub fn router(state: AppState, config: &MiddlewareConfig, api: VroomApi) -> Router<AppState> {
    let api = Arc::new(api);
    let routes = Router::new().route(
        PATH,
        post(move |body: Bytes| {
            let api = api.clone();
            async move { answer(&api, body).await }
        }),
    );
    apply_inner(routes, config)
        .route_layer(axum::middleware::from_fn_with_state(
            state,
            auth::require_access_key,
        ))
        .layer(axum::middleware::map_response(in_vroom_shape))
}

fn error(status: StatusCode, code: ErrorCode, message: &str) -> Response {
    json(status, vroom_solution::error(code, message))
}

fn json(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// Ends the search at a deadline.
struct Deadline {
    started: Instant,
    limit: Duration,
}

impl Control for Deadline {
    fn should_stop(&self) -> bool {
        self.started.elapsed() >= self.limit
    }

    fn elapsed_fraction(&self) -> Option<f64> {
        Some((self.started.elapsed().as_secs_f64() / self.limit.as_secs_f64().max(1e-9)).min(1.0))
    }
}

async fn answer(api: &VroomApi, body: Bytes) -> Response {
    let started = Instant::now();
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(&body) else {
        return error(StatusCode::BAD_REQUEST, ErrorCode::Input, NOT_A_PROBLEM);
    };
    let has = |key: &str| value.get(key).is_some();
    if !value.is_object() || !has("vehicles") || !(has("jobs") || has("shipments")) {
        return error(StatusCode::BAD_REQUEST, ErrorCode::Input, NOT_A_PROBLEM);
    }
    let threads = value
        .pointer("/options/t")
        .and_then(serde_json::Value::as_u64)
        .map_or(1, |t| (t as usize).clamp(1, api.max_threads.max(1)));
    let Ok(text) = std::str::from_utf8(&body) else {
        return error(StatusCode::BAD_REQUEST, ErrorCode::Input, NOT_A_PROBLEM);
    };
    let instance = match vroom::read(text, Objective::Duration) {
        Ok(instance) => instance,
        Err(e) => return error(StatusCode::BAD_REQUEST, ErrorCode::Input, &e.to_string()),
    };
    drop(value);
    let limit = api.time_limit;
    let solved = tokio::task::spawn_blocking(move || {
        let loading = started.elapsed();
        let control = Deadline {
            started: Instant::now(),
            limit,
        };
        let config = Config {
            seed: 1,
            threads,
            max_iterations: None,
        };
        let solution = solve(&instance.problem, &config, &control);
        let report = checker::check(&instance.problem, &solution);
        if let Some(v) = report.violations.first() {
            tracing::error!(violation = %v, "the solver's answer to a VROOM request fails the checker");
            return Err(());
        }
        let times = ComputingTimes {
            loading: loading.as_millis() as u64,
            solving: control.started.elapsed().as_millis() as u64,
        };
        Ok(vroom_solution::write(&instance, &solution, times))
    })
    .await;
    match solved {
        Ok(Ok(body)) => json(StatusCode::OK, body),
        _ => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            "Internal error",
        ),
    }
}

/// Largest error body read back to restate it: the service's envelopes are far smaller.
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Restates every failure (the access key's, the rate limit's, a body beyond the limit) as
/// VROOM's `{code, error}`, keeping its status and headers (`Retry-After`).
async fn in_vroom_shape(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let bytes = to_bytes(body, MAX_ERROR_BODY).await.unwrap_or_default();
    let parsed: Option<serde_json::Value> = serde_json::from_slice(&bytes).ok();
    if parsed
        .as_ref()
        .is_some_and(|v| v.get("code").is_some() && v.get("error").is_some())
    {
        return Response::from_parts(parts, Body::from(bytes));
    }
    let message = parsed
        .as_ref()
        .and_then(|v| v.get("description"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned)
        .unwrap_or_else(|| {
            let text = String::from_utf8_lossy(&bytes).trim().to_owned();
            if text.is_empty() {
                status.canonical_reason().unwrap_or("error").to_owned()
            } else {
                text
            }
        });
    let code = if status == StatusCode::PAYLOAD_TOO_LARGE {
        ErrorCode::TooLarge
    } else if status.is_server_error() {
        ErrorCode::Internal
    } else {
        ErrorCode::Input
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(vroom_solution::error(code, &message)))
}
