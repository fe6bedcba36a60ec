//! Order statuses of the organisation: `GET`/`POST /order-statuses` and `DELETE
//! /order-statuses/{status}` (paths fixed by the operator interface).

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get};
use axum::{Json, Router};
use dispatch_core::service::order_statuses;
use dispatch_core::service::ServiceError;
use serde_json::{json, Value};

use super::wire::{object, type_name};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody, PathText};
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/order-statuses", get(list).post(add))
        .route("/order-statuses/{status}", delete(remove))
}

async fn list(State(state): State<AppState>, Caller(p): Caller) -> Result<Json<Value>, ApiError> {
    let entries = state
        .blocking(move |s| Ok(order_statuses::list(&*s.store, p.organisation_id)?))
        .await?;
    let items: Vec<Value> = entries
        .iter()
        .map(|e| json!({"status": e.status, "is_custom": e.is_custom}))
        .collect();
    Ok(Json(json!({ "order_statuses": items })))
}

async fn add(
    State(state): State<AppState>,
    Caller(p): Caller,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let obj = object(&body)?;
    let status = match obj.get("status") {
        Some(serde_json::Value::String(s)) => s.clone(),
        other => {
            let received = other.map_or("undefined", type_name);
            return Err(ServiceError::invalid(
                vec!["status".into()],
                "a string of 1 to 255 characters",
                received,
                "status must be a string",
            )
            .into());
        }
    };
    let added = state
        .blocking(move |s| {
            Ok(order_statuses::add(
                &*s.store,
                p.organisation_id,
                &status,
                s.clock.now(),
            )?)
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "order_status": {"status": added, "is_custom": true} })),
    )
        .into_response())
}

async fn remove(
    State(state): State<AppState>,
    Caller(p): Caller,
    PathText(status): PathText,
) -> Result<Json<Value>, ApiError> {
    let name = status.clone();
    state
        .blocking(move |s| Ok(order_statuses::remove(&*s.store, p.organisation_id, &name)?))
        .await?;
    Ok(Json(json!({ "deleted": {"status": status} })))
}
