//! Reference data: depots, capacity types, custom fields, third parties, notification templates.

use axum::routing::get;
use axum::{Json, Router};
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

/// `GET /depots`: the caller's own depot (a key reaches exactly one depot).
async fn depots(
    state: axum::extract::State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Value>, ApiError> {
    let depot = state
        .blocking(move |s| Ok(s.store.read(|tx| tx.get_depot(p.scope()))?))
        .await?;
    let depots: Vec<Value> = depot
        .into_iter()
        .map(|d| json!({"id": d.id, "name": d.name, "created": ts(d.created), "updated": ts(d.updated)}))
        .collect();
    Ok(Json(json!({ "depots": depots })))
}

async fn capacities(
    state: axum::extract::State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Value>, ApiError> {
    let rows = state
        .blocking(move |s| Ok(s.store.read(|tx| tx.list_capacity_types(p.scope()))?))
        .await?;
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|c| json!({"id": c.id, "type": c.name, "default": c.default, "created": ts(c.created), "updated": ts(c.updated)}))
        .collect();
    Ok(Json(json!({ "capacities": rows })))
}

async fn custom_fields(
    state: axum::extract::State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Value>, ApiError> {
    let rows = state
        .blocking(move |s| Ok(s.store.read(|tx| tx.list_custom_fields(p.scope()))?))
        .await?;
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|c| json!({"id": c.id, "name": c.name, "created": ts(c.created), "updated": ts(c.updated)}))
        .collect();
    Ok(Json(json!({ "custom_fields": rows })))
}

/// `GET /third-parties`: organisation-wide.
async fn third_parties(
    state: axum::extract::State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Value>, ApiError> {
    let rows = state
        .blocking(move |s| {
            Ok(s.store
                .read(|tx| tx.list_third_parties(p.organisation_id))?)
        })
        .await?;
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|t| json!({"id": t.id, "name": t.name}))
        .collect();
    Ok(Json(json!({ "third_parties": rows })))
}

/// `GET /notifications/templates`: a plain array.
async fn templates(
    state: axum::extract::State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Value>, ApiError> {
    let rows = state
        .blocking(move |s| {
            Ok(s.store
                .read(|tx| tx.list_notification_templates(p.scope()))?)
        })
        .await?;
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|t| json!({"id": t.id, "type": t.channel.as_str(), "name": t.name}))
        .collect();
    Ok(Json(Value::Array(rows)))
}
