//! Route edits: `PUT /routes/{id}` (`is_locked` only; the response is the route without its
//! stops) and `POST /routes/{id}/reverse` (no body; the response is the full route).

use axum::extract::State;
use axum::routing::{post, put};
use axum::{Json, Router};
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::service::plan_reads;
use dispatch_core::service::routes as route_service;
use serde_json::{json, Value};

use super::plan_render::render_route;
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::links::Links;
use crate::rejection::invalid;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/routes/{id}", put(update))
        .route("/routes/{id}/reverse", post(reverse))
}

/// `{is_locked: boolean}`; no other property.
fn read_lock(body: &Value) -> Result<bool, ApiError> {
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
    for key in object.keys().filter(|k| k.as_str() != "is_locked") {
        errors.push(ValidationIssue::new(
            IssueCode::UnrecognizedKeys,
            vec![key.as_str().into()],
            "is_locked",
            key,
            "only is_locked can be changed on a route",
        ));
    }
    let locked = match object.get("is_locked") {
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
        None => {
            errors.push(ValidationIssue::new(
                IssueCode::InvalidType,
                vec!["is_locked".into()],
                "boolean",
                "undefined",
                "is_locked is required",
            ));
            None
        }
    };
    match locked {
        Some(b) if errors.0.is_empty() => Ok(b),
        _ => Err(invalid(&errors)),
    }
}

async fn update(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, ApiError> {
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
    if let Some(o) = route.as_object_mut() {
        o.remove("stops");
    }
    Ok(Json(json!({ "route": route })))
}

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
    Ok(Json(
        json!({ "route": render_route(&view, &catalog, &Links::of(&state)) }),
    ))
}
