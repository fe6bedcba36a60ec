//! Dispatch and plan deletion: `POST /plans/{id}/dispatch`, `POST /routes/{id}/dispatch`,
//! `DELETE /plans/{id}`.
//!
//! A dispatch that has not finished within the deadline (the spec's two minutes) answers 503
//! SERVICE_UNAVAILABLE. Its transaction is not abandoned: it commits or rolls back on its own,
//! so a retry tells the truth — 409 ALREADY_DISPATCHED when the first attempt went through
//! (a retry queues behind it for the write lock), a normal dispatch when it did not.

use axum::extract::State;
use axum::routing::{delete, post};
use axum::{Json, Router};
use dispatch_core::service::dispatch::{self, Dispatched};
use dispatch_core::service::ServiceError;
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::extract::{Caller, IdPath};
use crate::links::Links;
use crate::AppState;

/// Seconds a client is told to wait before re-posting a dispatch that timed out.
const RETRY_AFTER_S: u64 = 5;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/plans/{id}/dispatch", post(dispatch_plan))
        .route("/routes/{id}/dispatch", post(dispatch_route))
        .route("/plans/{id}", delete(delete_plan))
}

/// Runs a dispatch on a blocking thread within the deadline.
async fn within_deadline(
    state: &AppState,
    work: impl FnOnce(&AppState) -> Result<Dispatched, ServiceError> + Send + 'static,
) -> Result<Dispatched, ApiError> {
    let deadline = state.routing.dispatch_deadline;
    let task = state.blocking(move |s| Ok(work(s)?));
    match tokio::time::timeout(deadline, task).await {
        Ok(result) => result,
        Err(_) => Err(ServiceError::Unavailable {
            message: format!(
                "the dispatch did not finish within {} seconds; re-post it: 409 ALREADY_DISPATCHED then means it went through",
                deadline.as_secs()
            ),
            retry_after_s: RETRY_AFTER_S,
        }
        .into()),
    }
}

async fn dispatch_plan(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let scope = p.scope();
    let done = within_deadline(&state, move |s| {
        dispatch::dispatch_plan(&*s.store, &Links::of(s), scope, id, s.clock.now())
    })
    .await?;
    let routes: Vec<Value> = done.routes.iter().map(|id| json!({ "id": id })).collect();
    Ok(Json(json!({
        "plan": { "id": done.plan_id, "dispatched": done.plan_dispatched, "routes": routes }
    })))
}

async fn dispatch_route(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let scope = p.scope();
    within_deadline(&state, move |s| {
        dispatch::dispatch_route(&*s.store, &Links::of(s), scope, id, s.clock.now())
    })
    .await?;
    Ok(Json(json!({ "route": { "id": id, "dispatched": true } })))
}

async fn delete_plan(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let scope = p.scope();
    state
        .blocking(move |s| Ok(dispatch::delete_plan(&*s.store, scope, id, s.clock.now())?))
        .await?;
    Ok(Json(json!({ "deleted": { "plans_count": 1 } })))
}
