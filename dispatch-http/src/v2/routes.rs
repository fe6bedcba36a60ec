//! Routes: `GET /routes` (every route of the depot across all plans, including those left
//! behind by re-optimisation) and `GET /routes/{id}` (any route of the depot).

use axum::extract::State;
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use dispatch_core::service::plan_reads;
use serde_json::{json, Value};

use super::plan_render::{render_route, render_route_summary};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath};
use crate::links::Links;
use crate::paging::PageParams;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/routes", get(list))
        .route("/routes/{id}", get(read))
}

async fn read(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let (view, catalog) = state
        .blocking(move |s| Ok(plan_reads::get_route(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(
        json!({ "route": render_route(&view, &catalog, &Links::of(&state)) }),
    ))
}

async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
    page: PageParams,
) -> Result<Response, ApiError> {
    let request = page.request;
    let rows = state
        .blocking(move |s| Ok(plan_reads::list_routes(&*s.store, p.scope(), &request)?))
        .await?;
    let items: Vec<Value> = rows.items.iter().map(render_route_summary).collect();
    Ok(page.respond(rows.next, Json(json!({ "routes": items }))))
}
