//! The operator's endpoints beside the API, documented with it: `GET /healthz` (the process
//! answers) and `GET /metrics` (Prometheus text, `observability`). Both are public, as the
//! operator interface fixes them.

use axum::extract::State;
use axum::response::Response;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

use crate::v2::registry::{ApiRoutes, Parts};
use crate::AppState;

/// Both routes, as the document lists them.
pub fn api() -> Parts {
    ApiRoutes::new()
        .routes(routes!(healthz))
        .merge(metrics_only())
        .into_parts()
}

/// `/healthz` alone (`serve --metrics-listen` serves `/metrics` on its own listener).
pub fn health_only() -> Parts {
    ApiRoutes::new().routes(routes!(healthz)).into_parts()
}

/// `/metrics` alone.
pub fn metrics_only() -> ApiRoutes {
    ApiRoutes::new().routes(routes!(metrics))
}

/// `{ status: "ok" }`.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// Always `ok`: the process answers.
    #[schema(pattern = "^ok$")]
    pub status: &'static str,
}

#[utoipa::path(get, path = "/healthz", tag = "operator", summary = "Liveness: the process answers.", responses((status = 200, description = "`{ status: \"ok\" }`", body = Health)))]
async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

#[utoipa::path(get, path = "/metrics", tag = "operator", summary = "Metrics in the Prometheus text format (requests, latency, rate limits, jobs, webhooks, notifications, database).", description = "Served here unless `serve --metrics-listen` gives it a listener of its own.", responses((status = 200, description = "The Prometheus text exposition format 0.0.4.", content_type = "text/plain", body = String), (status = 404, description = "RESOURCE_NOT_FOUND: `serve --metrics-listen` serves it on its own listener.", body = crate::error::Envelope), (status = 503, description = "Another metrics recorder is installed in this process.", content_type = "text/plain", body = String)))]
async fn metrics(state: State<AppState>) -> Response {
    crate::observability::metrics(state).await
}
