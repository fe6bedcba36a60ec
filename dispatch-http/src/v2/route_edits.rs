//! Route edits: `PUT /routes/{id}` (`is_locked` only; the response is the route without its
//! stops) and `POST /routes/{id}/reverse` (no body; the response is the full route).

use axum::extract::State;
use axum::Json;
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::service::plan_reads;
use dispatch_core::service::routes as route_service;
use serde_json::Value;

use super::plan_render::render_route;
use super::plan_shapes::OneRoute;
use super::registry::ApiRoutes;
use super::shapes::to_json;
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::links::Links;
use crate::rejection::invalid;
use crate::AppState;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(update))
        .routes(routes!(reverse))
}

/// `{is_locked?: boolean}`; no other property. A partial update: absent or null changes nothing.
fn read_lock(body: &Value) -> Result<Option<bool>, ApiError> {
    let mut errors = ValidationErrors::default();
    let Some(object) = body.as_object() else {
        errors.push(ValidationIssue::new(
            IssueCode::InvalidType,
            vec![],
            "object",
            super::wire::type_name(body),
            "the body must be an object",
        ));
        return Err(invalid(&errors));
    };
    super::request_shapes::refuse_undocumented::<super::request_shapes::RouteLockBody>(
        object,
        &[],
        &mut errors,
    );
    let locked = match object.get("is_locked") {
        None | Some(Value::Null) => None,
        Some(Value::Bool(b)) => Some(*b),
        Some(other) => {
            errors.push(ValidationIssue::new(
                IssueCode::InvalidType,
                vec!["is_locked".into()],
                "boolean",
                super::wire::type_name(other),
                "is_locked must be a boolean",
            ));
            None
        }
    };
    if errors.0.is_empty() {
        Ok(locked)
    } else {
        Err(invalid(&errors))
    }
}

#[utoipa::path(put, path = "/routes/{id}", tag = "routes", summary = "Set a route's is_locked flag (a partial update: `{}` changes nothing).", params(("id" = i64, Path, description = "The route id.")), request_body(content = super::request_shapes::RouteLockBody, description = "`{ is_locked }`."), responses((status = 200, description = "`{ route }` (without stops).", body = OneRoute), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn update(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<OneRoute>, ApiError> {
    let locked = read_lock(&body)?;
    let scope = p.scope();
    let view = state
        .blocking(move |s| {
            Ok(route_service::set_locked(
                &*s.store,
                scope,
                id,
                locked,
                s.clock.now(),
            )?)
        })
        .await?;
    // Without stops, the depot's custom-field names are not needed.
    let mut route = render_route(&view, &Catalog::default(), &Links::of(&state));
    route.stops = None;
    Ok(Json(OneRoute { route }))
}

#[utoipa::path(post, path = "/routes/{id}/reverse", tag = "routes", summary = "Reverse a route's visiting order.", params(("id" = i64, Path, description = "The route id.")), responses((status = 200, description = "`{ route }`: the updated full route.", body = OneRoute), (status = 400, description = "INVALID_INPUT: fewer than two stops.", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope), (status = 503, description = "SERVICE_UNAVAILABLE: timed out; check the route before retrying.", body = crate::error::Envelope)))]
async fn reverse(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let scope = p.scope();
    let (view, catalog) = state
        .blocking(move |s| {
            let view =
                route_service::reverse(&*s.store, &*s.routing.matrix, scope, id, s.clock.now())?;
            Ok((view, plan_reads::get_route(&*s.store, scope, id)?.1))
        })
        .await?;
    Ok(Json(to_json(OneRoute {
        route: render_route(&view, &catalog, &Links::of(&state)),
    })))
}
