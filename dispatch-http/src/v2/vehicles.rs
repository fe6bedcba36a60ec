//! Vehicles: `POST /vehicles` (and `/vehicles/`), `GET /vehicles`, `GET`, `PUT`, `PATCH` and
//! `DELETE /vehicles/{id}`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::Json;
use dispatch_core::error::ValidationErrors;
use dispatch_core::model::vehicle::{
    Availability, CapacityWrite, EndLocation, StartLocation, Vehicle, VehiclePatch,
};
use dispatch_core::service::vehicles;
use dispatch_core::time::TimeOfDay;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::registry::ApiRoutes;
use super::shapes::{to_json, Num};
use super::wire::{closed_body, ts_text};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::middleware::idempotency::IdempotencyClaim;
use crate::AppState;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        // The spec's `/vehicles/` spelling too, documented as its own path.
        .routes_with_alias("/vehicles/", routes!(list, create))
        .routes(routes!(read, update, remove))
}

/// Reads a vehicle write; type errors are reported at their path, the rules by the core.
fn patch(body: &Value) -> Result<VehiclePatch, ValidationErrors> {
    closed_body::<super::request_shapes::VehicleBody, _>(body, |r| VehiclePatch {
        name: r.string("name"),
        active: r.boolean("active"),
        availability: r.string("availability"),
        shift_start: r.string("shift_start"),
        shift_end: r.string("shift_end"),
        start_location: r.string("start_location"),
        start_address: r.string("start_address"),
        start_lat: r.number("start_lat"),
        start_lng: r.number("start_lng"),
        end_location: r.string("end_location"),
        end_address: r.string("end_address"),
        end_lat: r.number("end_lat"),
        end_lng: r.number("end_lng"),
        has_break: r.boolean("break"),
        break_start: r.string("break_start"),
        break_end: r.string("break_end"),
        break_duration: r.number("break_duration"),
        skills: r.strings("skills"),
        capacities: r.objects("capacities", |c| CapacityWrite {
            id: c.integer("id").value().copied(),
            capacity: c.number("capacity").value().copied(),
        }),
    })
}

/// Which fields a rendering carries.
#[derive(Clone, Copy, PartialEq, Eq)]
enum View {
    /// Every field, unused ones as null (list, create, update).
    Full,
    /// The single read: shift times only for availability `shift`, address and coordinates only
    /// for `other` locations, break fields only when break is true.
    Single,
}

/// A field the single read leaves out (see [`View::Single`]): `None` is absent, `Some(None)`
/// is null.
type Shown<T> = Option<Option<T>>;

/// A vehicle as every read and write returns it.
#[derive(Serialize, ToSchema)]
pub struct VehicleWire {
    id: i64,
    name: String,
    active: bool,
    /// `shift`, `full_day` or `always`.
    availability: &'static str,
    /// `HH:mm`; on the single read only for availability `shift`.
    #[serde(skip_serializing_if = "Option::is_none")]
    shift_start: Shown<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shift_end: Shown<String>,
    /// `depot`, `other` or `app-location`.
    start_location: &'static str,
    /// On the single read only for `other`.
    #[serde(skip_serializing_if = "Option::is_none")]
    start_address: Shown<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_lat: Shown<Num>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_lng: Shown<Num>,
    /// `depot`, `other` or `none`.
    end_location: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_address: Shown<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_lat: Shown<Num>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_lng: Shown<Num>,
    #[serde(rename = "break")]
    has_break: bool,
    /// On the single read only when break is true.
    #[serde(skip_serializing_if = "Option::is_none")]
    break_start: Shown<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    break_end: Shown<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    break_duration: Shown<Num>,
    skills: Vec<String>,
    capacities: Vec<CapacityRead>,
    created: String,
    updated: String,
    /// The shift schedule (managed in the web application, read only here).
    shift: Vec<ShiftWire>,
}

/// A capacity entry as read.
#[derive(Serialize, ToSchema)]
pub struct CapacityRead {
    id: i64,
    #[serde(rename = "type")]
    type_name: String,
    capacity: Num,
}

/// A shift of the schedule.
#[derive(Serialize, ToSchema)]
pub struct ShiftWire {
    enabled: bool,
    availability: &'static str,
    #[schema(required = true)]
    shift_start: Option<String>,
    #[schema(required = true)]
    shift_end: Option<String>,
    force_shift_start: bool,
    #[schema(required = true)]
    max_route_duration: Option<Num>,
    #[schema(required = true)]
    day_of_week: Option<&'static str>,
    vehicle_breaks: Vec<ShiftBreakWire>,
}

/// A break of a shift.
#[derive(Serialize, ToSchema)]
pub struct ShiftBreakWire {
    enabled: bool,
    #[schema(required = true)]
    break_start: Option<String>,
    #[schema(required = true)]
    break_end: Option<String>,
    #[schema(required = true)]
    break_duration: Option<Num>,
}

/// `{ vehicle }`.
#[derive(Serialize, ToSchema)]
pub struct OneVehicle {
    vehicle: VehicleWire,
}

/// `{ vehicles }`.
#[derive(Serialize, ToSchema)]
pub struct Vehicles {
    vehicles: Vec<VehicleWire>,
}

fn time(t: Option<TimeOfDay>) -> Option<String> {
    t.map(|t| t.to_string())
}

fn render(v: &Vehicle, view: View) -> VehicleWire {
    let f = &v.fields;
    let full = view == View::Full;
    let when = |shown: bool| full || shown;
    let shift = when(f.availability == Availability::Shift);
    let start = when(f.start_location == StartLocation::Other);
    let end = when(f.end_location == EndLocation::Other);
    let brk = when(f.has_break);
    VehicleWire {
        id: v.id,
        name: f.name.clone(),
        active: f.active,
        availability: f.availability.as_str(),
        shift_start: shift.then(|| time(f.shift_start)),
        shift_end: shift.then(|| time(f.shift_end)),
        start_location: f.start_location.as_str(),
        start_address: start.then(|| f.start.address.clone()),
        start_lat: start.then(|| f.start.lat.map(Num)),
        start_lng: start.then(|| f.start.lng.map(Num)),
        end_location: f.end_location.as_str(),
        end_address: end.then(|| f.end.address.clone()),
        end_lat: end.then(|| f.end.lat.map(Num)),
        end_lng: end.then(|| f.end.lng.map(Num)),
        has_break: f.has_break,
        break_start: brk.then(|| time(f.break_start)),
        break_end: brk.then(|| time(f.break_end)),
        break_duration: brk.then(|| f.break_duration.map(Num)),
        skills: f.skills.clone(),
        capacities: f
            .capacities
            .iter()
            .map(|c| CapacityRead {
                id: c.id,
                type_name: c.type_name.clone(),
                capacity: Num(c.capacity),
            })
            .collect(),
        created: ts_text(v.created),
        updated: ts_text(v.updated),
        shift: v.shifts().iter().map(shift_wire).collect(),
    }
}

fn shift_wire(s: &dispatch_core::model::vehicle::Shift) -> ShiftWire {
    ShiftWire {
        enabled: s.enabled,
        availability: s.availability.as_str(),
        shift_start: time(s.shift_start),
        shift_end: time(s.shift_end),
        force_shift_start: s.force_shift_start,
        max_route_duration: s.max_route_duration.map(Num),
        day_of_week: s.day_of_week.map(|d| d.as_str()),
        vehicle_breaks: s
            .breaks
            .iter()
            .map(|b| ShiftBreakWire {
                enabled: b.enabled,
                break_start: time(b.break_start),
                break_end: time(b.break_end),
                break_duration: b.break_duration.map(Num),
            })
            .collect(),
    }
}

#[utoipa::path(post, path = "/vehicles", tag = "vehicles", summary = "Create a vehicle.", request_body(content = super::request_shapes::VehicleCreateBody, description = "Vehicle fields; required: name, availability, start_location, end_location."), responses((status = 200, description = "`{ vehicle }`", body = OneVehicle), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn create(
    State(state): State<AppState>,
    Caller(p): Caller,
    claim: IdempotencyClaim,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let patch = patch(&body)?;
    state
        .blocking(move |s| {
            let reply = claim.reply(StatusCode::OK, |v: &Vehicle| {
                to_json(OneVehicle {
                    vehicle: render(v, View::Full),
                })
            });
            vehicles::create(&*s.store, p.scope(), &patch, s.clock.now(), &reply)?;
            Ok(reply.response())
        })
        .await
}

#[utoipa::path(get, path = "/vehicles", tag = "vehicles", summary = "Every vehicle of the depot, inactive included.", responses((status = 200, description = "`{ vehicles }`", body = Vehicles)))]
async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
) -> Result<Json<Vehicles>, ApiError> {
    let rows = state
        .blocking(move |s| Ok(vehicles::list(&*s.store, p.scope())?))
        .await?;
    Ok(Json(Vehicles {
        vehicles: rows.iter().map(|v| render(v, View::Full)).collect(),
    }))
}

#[utoipa::path(get, path = "/vehicles/{id}", tag = "vehicles", summary = "One vehicle.", params(("id" = i64, Path, description = "The vehicle id.")), responses((status = 200, description = "`{ vehicle }`", body = OneVehicle), (status = 400, description = "INVALID_INPUT: not in the depot or deleted.", body = crate::error::Envelope)))]
async fn read(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<OneVehicle>, ApiError> {
    let vehicle = state
        .blocking(move |s| Ok(vehicles::get(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(OneVehicle {
        vehicle: render(&vehicle, View::Single),
    }))
}

#[utoipa::path(method(put, patch), path = "/vehicles/{id}", tag = "vehicles", summary = "Update a vehicle (partial).", params(("id" = i64, Path, description = "The vehicle id.")), request_body(content = super::request_shapes::VehicleBody, description = "Any vehicle fields; capacities and skills replace the set."), responses((status = 200, description = "`{ vehicle }`", body = OneVehicle), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn update(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<OneVehicle>, ApiError> {
    let patch = patch(&body)?;
    let vehicle = state
        .blocking(move |s| {
            Ok(vehicles::update(
                &*s.store,
                p.scope(),
                id,
                &patch,
                s.clock.now(),
            )?)
        })
        .await?;
    Ok(Json(OneVehicle {
        vehicle: render(&vehicle, View::Full),
    }))
}

#[utoipa::path(delete, path = "/vehicles/{id}", tag = "vehicles", summary = "Delete a vehicle.", params(("id" = i64, Path, description = "The vehicle id.")), responses((status = 200, description = "`{ deleted: { vehicles_count: 1 } }`", body = DeletedVehicles), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn remove(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<DeletedVehicles>, ApiError> {
    state
        .blocking(move |s| Ok(vehicles::delete(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(DeletedVehicles {
        deleted: VehiclesCount { vehicles_count: 1 },
    }))
}

/// `{ vehicles_count }`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct VehiclesCount {
    vehicles_count: u64,
}

/// `{ deleted: { vehicles_count } }`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct DeletedVehicles {
    deleted: VehiclesCount,
}
