//! Zone groups and the zone lookup.

use axum::extract::State;
use axum::routing::{get, post};
use axum::{Json, Router};
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::service::zones::{self, LocationQuery};
use serde_json::{json, Value};

use super::wire::{object, ts, Reader};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/zone-groups", get(list))
        .route("/zone-groups/{id}/bounds/contains", post(contains))
}

async fn list(State(state): State<AppState>, Caller(p): Caller) -> Result<Json<Value>, ApiError> {
    let rows = state
        .blocking(move |s| Ok(s.store.read(|tx| tx.list_zone_groups(p.scope()))?))
        .await?;
    let rows: Vec<Value> = rows
        .into_iter()
        .map(|g| json!({"id": g.id, "name": g.name, "created": ts(g.created), "updated": ts(g.updated)}))
        .collect();
    Ok(Json(json!({ "zone_groups": rows })))
}

fn location(body: &Value) -> Result<LocationQuery, ValidationErrors> {
    let obj = object(body)?;
    let mut errors = ValidationErrors::default();
    let Some(loc) = obj.get("location") else {
        errors.push(ValidationIssue::new(
            IssueCode::Required,
            vec!["location".into()],
            "object",
            "undefined",
            "location is required",
        ));
        return Err(errors);
    };
    let Some(loc) = loc.as_object() else {
        errors.push(ValidationIssue::new(
            IssueCode::InvalidType,
            vec!["location".into()],
            "object",
            super::wire::type_name(loc),
            "location must be an object",
        ));
        return Err(errors);
    };
    let mut r = Reader::new(loc, vec!["location".into()], &mut errors);
    let query = LocationQuery {
        lat: r.number("lat").into_value(),
        lng: r.number("lng").into_value(),
        address: r.string("address").into_value(),
        postcode: r.string("postcode").into_value(),
        country: r.string("country").into_value(),
    };
    errors.into_result().map(|()| query)
}

/// `POST /zone-groups/{id}/bounds/contains`.
async fn contains(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, ApiError> {
    let query = location(&body)?;
    let found = state
        .blocking(move |s| {
            Ok(zones::contains(
                &*s.store,
                &*s.geocoder,
                p.scope(),
                id,
                &query,
            )?)
        })
        .await?;
    Ok(Json(match found {
        Some((zone, group)) => {
            json!({"zone": {"id": zone.id, "name": zone.name, "zone_group": {"id": group.id, "name": group.name}}})
        }
        None => json!({ "zone": null }),
    }))
}
