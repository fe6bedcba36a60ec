//! Zone groups and the zone lookup.

use axum::extract::State;
use axum::Json;
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::service::zones::{self, LocationQuery};
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::registry::ApiRoutes;
use super::shapes::NamedRef;
use super::wire::{object, ts_text, Reader};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::AppState;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(list))
        .routes(routes!(contains))
}

#[utoipa::path(get, path = "/zone-groups", tag = "reference", summary = "The depot's zone groups (zones inside not included).", responses((status = 200, description = "`{ zone_groups }`", body = ZoneGroups)))]
async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<ZoneGroups>, ApiError> {
    let rows = state
        .blocking(move |s| Ok(s.store.read(|tx| tx.list_zone_groups(p.scope()))?))
        .await?;
    let zone_groups = rows
        .into_iter()
        .map(|g| ZoneGroup {
            id: g.id,
            name: g.name,
            created: ts_text(g.created),
            updated: ts_text(g.updated),
        })
        .collect();
    Ok(Json(ZoneGroups { zone_groups }))
}

fn location(body: &Value) -> Result<LocationQuery, ValidationErrors> {
    let obj = object(body)?;
    let mut errors = ValidationErrors::default();
    super::request_shapes::refuse_undocumented::<super::request_shapes::ZoneLookupBody>(
        obj,
        &[],
        &mut errors,
    );
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
    r.refuse_undocumented::<super::request_shapes::LocationBody>();
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
#[utoipa::path(post, path = "/zone-groups/{id}/bounds/contains", tag = "reference", summary = "The zone of the group containing a location.", params(("id" = i64, Path, description = "The zone group id.")), request_body(content = super::request_shapes::ZoneLookupBody, description = "`{ location: {lat, lng, address, postcode, country} }`; without lat and lng, address or postcode is geocoded."), responses((status = 200, description = "`{ zone }`, null when no zone contains the location.", body = ZoneLookup), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn contains(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<ZoneLookup>, ApiError> {
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
    Ok(Json(ZoneLookup {
        zone: found.map(|(zone, group)| Zone {
            id: zone.id,
            name: zone.name,
            zone_group: NamedRef {
                id: group.id,
                name: group.name,
            },
        }),
    }))
}

/// A zone group (its zones are not included).
#[derive(Serialize, ToSchema)]
pub struct ZoneGroup {
    id: i64,
    name: String,
    created: String,
    updated: String,
}

/// `{ zone_groups }`.
#[derive(Serialize, ToSchema)]
pub struct ZoneGroups {
    zone_groups: Vec<ZoneGroup>,
}

/// The zone containing a location.
#[derive(Serialize, ToSchema)]
pub struct Zone {
    id: i64,
    name: String,
    zone_group: NamedRef,
}

/// `{ zone }`: null when no zone of the group contains the location.
#[derive(Serialize, ToSchema)]
pub struct ZoneLookup {
    #[schema(required = true)]
    zone: Option<Zone>,
}
