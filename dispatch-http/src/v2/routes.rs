//! Routes: `GET /routes` (every route of the depot across all plans, including those left
//! behind by re-optimisation) and `GET /routes/{id}` (any route of the depot).

use axum::extract::State;
use axum::response::Response;
use axum::Json;
use dispatch_core::paging::PageRequest;
use dispatch_core::service::plan_reads;

use super::plan_render::{render_route, render_route_summary};
use super::plan_shapes::{OneRoute, Routes};
use super::registry::ApiRoutes;
use crate::error::ApiError;
use crate::extract::{Caller, IdPath};
use crate::links::Links;
use crate::paging::PageParams;
use crate::AppState;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new().routes(routes!(list)).routes(routes!(read))
}

#[utoipa::path(get, path = "/routes/{id}", tag = "routes", summary = "One route with its stops.", params(("id" = i64, Path, description = "The route id.")), responses((status = 200, description = "`{ route }`", body = OneRoute), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn read(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<OneRoute>, ApiError> {
    let (view, catalog) = state
        .blocking(move |s| Ok(plan_reads::get_route(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(OneRoute {
        route: render_route(&view, &catalog, &Links::of(&state)),
    }))
}

#[utoipa::path(get, path = "/routes", tag = "routes", summary = "Route summaries of every plan, most recently updated first (paged).", params(crate::paging::PageQuery), responses((status = 200, description = "`{ routes }` and a `Link` header to the next page.", body = Routes), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
    page: PageParams,
) -> Result<Response, ApiError> {
    let read =
        move |s: &AppState, r: &PageRequest| plan_reads::list_routes(&*s.store, p.scope(), r);
    page.list(&state, read, |rows| {
        Json(Routes {
            routes: rows.iter().map(render_route_summary).collect(),
        })
    })
    .await
}
