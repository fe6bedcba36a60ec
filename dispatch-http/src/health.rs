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

/// `{ status: "ok" }`, and the clock when the service runs on a simulated one.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// Always `ok`: the process answers.
    #[schema(pattern = "^ok$")]
    pub status: &'static str,
    /// Only when `serve --simulate` runs the service on a simulated clock.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub clock: Option<SimulatedClock>,
}

/// The simulated clock a simulation runs on (`serve --simulate`).
#[derive(Serialize, ToSchema)]
pub struct SimulatedClock {
    /// Always true: this is a simulation, not a production service.
    pub simulated: bool,
    /// The clock's current instant, `YYYY-MM-DDTHH:mm:ss.SSSZ`: the service's "now".
    pub now: String,
    /// How many times as fast as the wall clock it runs.
    pub speed: f64,
}

#[utoipa::path(get, path = "/healthz", tag = "operator", summary = "Liveness: the process answers.", description = "Under `serve --simulate` it also shows the simulated clock (`clock`).", responses((status = 200, description = "`{ status: \"ok\" }`", body = Health)))]
async fn healthz(State(state): State<AppState>) -> Json<Health> {
    let clock = state.clock.is_simulated().then(|| SimulatedClock {
        simulated: true,
        now: state.clock.now().to_string(),
        speed: state.clock.speed(),
    });
    Json(Health {
        status: "ok",
        clock,
    })
}

#[utoipa::path(get, path = "/metrics", tag = "operator", summary = "Metrics in the Prometheus text format (requests, latency, rate limits, jobs, webhooks, notifications, database).", description = "Served here unless `serve --metrics-listen` gives it a listener of its own.", responses((status = 200, description = "The Prometheus text exposition format 0.0.4.", content_type = "text/plain", body = String), (status = 404, description = "RESOURCE_NOT_FOUND: `serve --metrics-listen` serves it on its own listener.", body = crate::error::Envelope), (status = 503, description = "Another metrics recorder is installed in this process.", content_type = "text/plain", body = String)))]
async fn metrics(state: State<AppState>) -> Response {
    crate::observability::metrics(state).await
}
