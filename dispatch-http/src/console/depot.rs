//! `GET /console/depot`: where the caller's depot is, for the map. The v2 depot object has no
//! position (the spec fixes its fields), so the console asks here, with the same access key in
//! the same `x-access-key` header and the same envelope for errors.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::extract::Caller;
use crate::middleware::request_log::expose_principal;
use crate::{auth, AppState};

/// The route, behind the access-key layer.
pub fn routes(state: AppState) -> Router {
    Router::new()
        .route("/console/depot", get(depot))
        .layer(axum::middleware::from_fn(expose_principal))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::require_access_key,
        ))
        .with_state(state)
}

/// `{ depot: {id, name, address, lat, lng} }`; address and coordinates are null when the
/// depot was set up without them.
async fn depot(State(state): State<AppState>, Caller(p): Caller) -> Result<Json<Value>, ApiError> {
    let depot = state
        .blocking(move |s| Ok(s.store.read(move |tx| tx.get_depot(p.scope()))?))
        .await?;
    Ok(Json(json!({
        "depot": depot.map(|d| json!({
            "id": d.id, "name": d.name, "address": d.address, "lat": d.lat, "lng": d.lng,
        })),
    })))
}
