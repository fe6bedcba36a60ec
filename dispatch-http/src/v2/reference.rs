//! Reference data: depots (and `PUT /depots/{id}`, the depot's name, address and position),
//! capacity types, custom fields, third parties, notification templates.

use super::registry::ApiRoutes;
use axum::extract::State;
use axum::Json;
use dispatch_core::ports::store::{StoreError, StoreTx};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

use super::shapes::Num;
use super::wire::{closed_body, ts_text};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::AppState;
use dispatch_core::error::ValidationErrors;
use dispatch_core::service::depots::{self, DepotPatch};
use serde_json::Value;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(depots))
        .routes(routes!(read_depot, update_depot))
        .routes(routes!(capacities))
        .routes(routes!(custom_fields))
        .routes(routes!(third_parties))
        .routes(routes!(templates))
}

/// Reads a list in one store transaction off the async runtime and renders each row.
async fn listed<T: Send + 'static, R>(
    state: &AppState,
    read: impl FnOnce(&mut dyn StoreTx) -> Result<Vec<T>, StoreError> + Send + 'static,
    render: fn(T) -> R,
) -> Result<Vec<R>, ApiError> {
    let rows = state.blocking(move |s| Ok(s.store.read(read)?)).await?;
    Ok(rows.into_iter().map(render).collect())
}

/// A depot as the spec lists it.
#[derive(Serialize, ToSchema)]
pub struct Depot {
    id: i64,
    name: String,
    created: String,
    updated: String,
}

/// A depot with its address and position (`GET` and `PUT /depots/{id}`).
#[derive(Serialize, ToSchema)]
pub struct DepotDetail {
    id: i64,
    name: String,
    /// Street address (null until set).
    #[schema(required = true)]
    address: Option<String>,
    /// Latitude of the depot's position: where `depot` starts and ends of vehicles are. Null
    /// until set; a depot without a position cannot be planned for.
    #[schema(required = true)]
    lat: Option<Num>,
    /// Longitude of the depot's position (null until set).
    #[schema(required = true)]
    lng: Option<Num>,
    created: String,
    updated: String,
}

fn depot_json(d: dispatch_core::model::organisation::Depot) -> DepotDetail {
    DepotDetail {
        id: d.id,
        name: d.name,
        address: d.address,
        lat: d.lat.map(Num),
        lng: d.lng.map(Num),
        created: ts_text(d.created),
        updated: ts_text(d.updated),
    }
}

/// `{ depot }`.
#[derive(Serialize, ToSchema)]
pub struct OneDepot {
    depot: DepotDetail,
}

/// The caller's depot with its address and position.
#[utoipa::path(get, path = "/depots/{id}", tag = "reference", summary = "The depot with its address and position.", params(("id" = i64, Path, description = "The caller's depot id (GET /depots).")), responses((status = 200, description = "`{ depot }`", body = OneDepot), (status = 404, description = "RESOURCE_NOT_FOUND: not the caller's depot.", body = crate::error::Envelope)))]
async fn read_depot(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<OneDepot>, ApiError> {
    let scope = p.scope();
    let depot = state
        .blocking(move |s| {
            let found = s.store.read(|tx| tx.get_depot(scope))?;
            found.filter(|d| d.id == id).ok_or(ApiError::from(
                dispatch_core::service::ServiceError::NotFound("depot"),
            ))
        })
        .await?;
    Ok(Json(OneDepot {
        depot: depot_json(depot),
    }))
}

/// Reads a depot write; type errors at their path, the rules by the core.
fn depot_patch(body: &Value) -> Result<DepotPatch, ValidationErrors> {
    closed_body::<super::request_shapes::DepotBody, _>(body, |r| DepotPatch {
        name: r.string("name"),
        address: r.string("address"),
        lat: r.number("lat"),
        lng: r.number("lng"),
    })
}

/// Sets the caller's depot's name, address and position.
#[utoipa::path(put, path = "/depots/{id}", tag = "reference", summary = "Set the depot's name, address and position.", params(("id" = i64, Path, description = "The caller's depot id (GET /depots).")), request_body(content = super::request_shapes::DepotBody, description = "`{ name, address, lat, lng }`, each optional; an address without lat and lng is geocoded."), responses((status = 200, description = "`{ depot }`", body = OneDepot), (status = 400, description = "INVALID_INPUT (`details.validationErrors`) or GEOCODING_FAILED (the address could not be geocoded).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not the caller's depot.", body = crate::error::Envelope)))]
async fn update_depot(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<OneDepot>, ApiError> {
    let patch = depot_patch(&body)?;
    let depot = state
        .blocking(move |s| {
            Ok(depots::update(
                &*s.store,
                &*s.geocoder,
                p.scope(),
                id,
                &patch,
                s.clock.now(),
            )?)
        })
        .await?;
    Ok(Json(OneDepot {
        depot: depot_json(depot),
    }))
}

/// `{ depots }`.
#[derive(Serialize, ToSchema)]
pub struct Depots {
    depots: Vec<Depot>,
}

/// A capacity type.
#[derive(Serialize, ToSchema)]
pub struct CapacityType {
    id: i64,
    /// The display name.
    #[serde(rename = "type")]
    name: String,
    default: String,
    created: String,
    updated: String,
}

/// `{ capacities }`.
#[derive(Serialize, ToSchema)]
pub struct CapacityTypes {
    capacities: Vec<CapacityType>,
}

/// A custom field.
#[derive(Serialize, ToSchema)]
pub struct CustomField {
    id: i64,
    name: String,
    created: String,
    updated: String,
}

/// `{ custom_fields }`.
#[derive(Serialize, ToSchema)]
pub struct CustomFields {
    custom_fields: Vec<CustomField>,
}

/// A third party (organisation-wide).
#[derive(Serialize, ToSchema)]
pub struct ThirdParty {
    id: i64,
    name: String,
}

/// `{ third_parties }`.
#[derive(Serialize, ToSchema)]
pub struct ThirdParties {
    third_parties: Vec<ThirdParty>,
}

/// A notification template.
#[derive(Serialize, ToSchema)]
pub struct Template {
    id: i64,
    /// `SMS` or `EMAIL`.
    #[serde(rename = "type")]
    channel: &'static str,
    name: String,
}

/// The caller's own depot (a key reaches exactly one depot).
#[utoipa::path(get, path = "/depots", tag = "reference",
    responses((status = 200, description = "The caller's depot.", body = Depots)))]
async fn depots(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Depots>, ApiError> {
    let depots = listed(
        &state,
        move |tx| Ok(tx.get_depot(p.scope())?.into_iter().collect()),
        |d| Depot {
            id: d.id,
            name: d.name,
            created: ts_text(d.created),
            updated: ts_text(d.updated),
        },
    )
    .await?;
    Ok(Json(Depots { depots }))
}

/// The depot's capacity types, no paging.
#[utoipa::path(get, path = "/capacities", tag = "reference",
    responses((status = 200, description = "Every capacity type of the depot.", body = CapacityTypes)))]
async fn capacities(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<CapacityTypes>, ApiError> {
    let capacities = listed(
        &state,
        move |tx| tx.list_capacity_types(p.scope()),
        |c| CapacityType {
            id: c.id,
            name: c.name,
            default: c.default,
            created: ts_text(c.created),
            updated: ts_text(c.updated),
        },
    )
    .await?;
    Ok(Json(CapacityTypes { capacities }))
}

/// The depot's custom fields, no paging.
#[utoipa::path(get, path = "/custom-fields", tag = "reference",
    responses((status = 200, description = "Every custom field of the depot.", body = CustomFields)))]
async fn custom_fields(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<CustomFields>, ApiError> {
    let custom_fields = listed(
        &state,
        move |tx| tx.list_custom_fields(p.scope()),
        |c| CustomField {
            id: c.id,
            name: c.name,
            created: ts_text(c.created),
            updated: ts_text(c.updated),
        },
    )
    .await?;
    Ok(Json(CustomFields { custom_fields }))
}

/// The organisation's third parties, no paging.
#[utoipa::path(get, path = "/third-parties", tag = "reference",
    responses((status = 200, description = "Every third party of the organisation.", body = ThirdParties)))]
async fn third_parties(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<ThirdParties>, ApiError> {
    let third_parties = listed(
        &state,
        move |tx| tx.list_third_parties(p.organisation_id),
        |t| ThirdParty {
            id: t.id,
            name: t.name,
        },
    )
    .await?;
    Ok(Json(ThirdParties { third_parties }))
}

/// The depot's notification templates: a plain array.
#[utoipa::path(get, path = "/notifications/templates", tag = "notifications",
    responses((status = 200, description = "Every notification template of the depot.", body = Vec<Template>)))]
async fn templates(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Vec<Template>>, ApiError> {
    let rows = listed(
        &state,
        move |tx| tx.list_notification_templates(p.scope()),
        |t| Template {
            id: t.id,
            channel: t.channel.as_str(),
            name: t.name,
        },
    )
    .await?;
    Ok(Json(rows))
}
