//! The driver's routes: `GET /driver/routes/{id}` (one route dispatched to the vehicle, shaped
//! as `GET /v2/routes/{id}`).

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use dispatch_core::service::driver::day;
use serde_json::{json, Value};

use super::auth::DriverAuth;
use crate::error::ApiError;
use crate::extract::IdPath;
use crate::links::Links;
use crate::v2::plan_render::render_route;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new().route("/routes/{id}", get(read))
}

async fn read(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let (view, catalog) = state
        .blocking(move |s| Ok(day::route(&*s.store, &auth.driver(), id)?))
        .await?;
    Ok(Json(
        json!({ "route": render_route(&view, &catalog, &Links::of(&state)) }),
    ))
}
