//! Reference data: depots, capacity types, custom fields, third parties, notification templates.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use dispatch_core::ports::store::{StoreError, StoreTx};
use serde_json::{json, Value};

use super::wire::ts;
use crate::error::ApiError;
use crate::extract::Caller;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/depots", get(depots))
        .route("/capacities", get(capacities))
        .route("/custom-fields", get(custom_fields))
        .route("/third-parties", get(third_parties))
        .route("/notifications/templates", get(templates))
}

/// Reads a list in one store transaction off the async runtime and renders each row.
async fn listed<T: Send + 'static>(
    state: &AppState,
    read: impl FnOnce(&mut dyn StoreTx) -> Result<Vec<T>, StoreError> + Send + 'static,
    render: fn(T) -> Value,
) -> Result<Vec<Value>, ApiError> {
    let rows = state.blocking(move |s| Ok(s.store.read(read)?)).await?;
    Ok(rows.into_iter().map(render).collect())
}

/// `GET /depots`: the caller's own depot (a key reaches exactly one depot).
async fn depots(State(state): State<AppState>, Caller(p): Caller) -> Result<Json<Value>, ApiError> {
    let depots = listed(
        &state,
        move |tx| Ok(tx.get_depot(p.scope())?.into_iter().collect()),
        |d| json!({"id": d.id, "name": d.name, "created": ts(d.created), "updated": ts(d.updated)}),
    )
    .await?;
    Ok(Json(json!({ "depots": depots })))
}

async fn capacities(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Value>, ApiError> {
    let rows = listed(
        &state,
        move |tx| tx.list_capacity_types(p.scope()),
        |c| json!({"id": c.id, "type": c.name, "default": c.default, "created": ts(c.created), "updated": ts(c.updated)}),
    )
    .await?;
    Ok(Json(json!({ "capacities": rows })))
}

async fn custom_fields(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Value>, ApiError> {
    let rows = listed(
        &state,
        move |tx| tx.list_custom_fields(p.scope()),
        |c| json!({"id": c.id, "name": c.name, "created": ts(c.created), "updated": ts(c.updated)}),
    )
    .await?;
    Ok(Json(json!({ "custom_fields": rows })))
}

/// `GET /third-parties`: organisation-wide.
async fn third_parties(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Value>, ApiError> {
    let rows = listed(
        &state,
        move |tx| tx.list_third_parties(p.organisation_id),
        |t| json!({"id": t.id, "name": t.name}),
    )
    .await?;
    Ok(Json(json!({ "third_parties": rows })))
}

/// `GET /notifications/templates`: a plain array.
async fn templates(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Value>, ApiError> {
    let rows = listed(
        &state,
        move |tx| tx.list_notification_templates(p.scope()),
        |t| json!({"id": t.id, "type": t.channel.as_str(), "name": t.name}),
    )
    .await?;
    Ok(Json(Value::Array(rows)))
}
