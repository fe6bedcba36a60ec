//! Vehicles: `POST /vehicles` (and `/vehicles/`), `GET /vehicles`, `GET`, `PUT`, `PATCH` and
//! `DELETE /vehicles/{id}`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::{Json, Router};
use dispatch_core::error::ValidationErrors;
use dispatch_core::model::vehicle::{
    Availability, CapacityWrite, EndLocation, StartLocation, Vehicle, VehiclePatch,
};
use dispatch_core::service::vehicles;
use serde_json::{json, Map, Value};

use super::wire::{num, object, opt_num, opt_time, ts, Reader};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::middleware::idempotency::IdempotencyClaim;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    let collection = get(list).post(create);
    Router::new()
        .route("/vehicles", collection.clone())
        .route("/vehicles/", collection)
        .route(
            "/vehicles/{id}",
            get(read).put(update).patch(update).delete(remove),
        )
}

/// Reads a vehicle write; type errors are reported at their path, the rules by the core.
fn patch(body: &Value) -> Result<VehiclePatch, ValidationErrors> {
    let obj = object(body)?;
    let mut errors = ValidationErrors::default();
    let mut r = Reader::new(obj, vec![], &mut errors);
    let patch = VehiclePatch {
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
    };
    errors.into_result().map(|()| patch)
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

fn render(v: &Vehicle, view: View) -> Value {
    let f = &v.fields;
    let mut m = Map::new();
    let mut put = |k: &str, value: Value| {
        m.insert(k.to_owned(), value);
    };
    put("id", json!(v.id));
    put("name", json!(f.name));
    put("active", json!(f.active));
    put("availability", json!(f.availability.as_str()));
    let full = view == View::Full;
    if full || f.availability == Availability::Shift {
        put("shift_start", opt_time(f.shift_start));
        put("shift_end", opt_time(f.shift_end));
    }
    put("start_location", json!(f.start_location.as_str()));
    if full || f.start_location == StartLocation::Other {
        put("start_address", json!(f.start.address));
        put("start_lat", opt_num(f.start.lat));
        put("start_lng", opt_num(f.start.lng));
    }
    put("end_location", json!(f.end_location.as_str()));
    if full || f.end_location == EndLocation::Other {
        put("end_address", json!(f.end.address));
        put("end_lat", opt_num(f.end.lat));
        put("end_lng", opt_num(f.end.lng));
    }
    put("break", json!(f.has_break));
    if full || f.has_break {
        put("break_start", opt_time(f.break_start));
        put("break_end", opt_time(f.break_end));
        put("break_duration", opt_num(f.break_duration));
    }
    put("skills", json!(f.skills));
    put(
        "capacities",
        Value::Array(
            f.capacities
                .iter()
                .map(|c| json!({"id": c.id, "type": c.type_name, "capacity": num(c.capacity)}))
                .collect(),
        ),
    );
    put("created", ts(v.created));
    put("updated", ts(v.updated));
    put(
        "shift",
        Value::Array(v.shifts().iter().map(shift).collect()),
    );
    Value::Object(m)
}

fn shift(s: &dispatch_core::model::vehicle::Shift) -> Value {
    json!({
        "enabled": s.enabled,
        "availability": s.availability.as_str(),
        "shift_start": opt_time(s.shift_start),
        "shift_end": opt_time(s.shift_end),
        "force_shift_start": s.force_shift_start,
        "max_route_duration": opt_num(s.max_route_duration),
        "day_of_week": s.day_of_week.map(|d| d.as_str()),
        "vehicle_breaks": s.breaks.iter().map(|b| json!({
            "enabled": b.enabled,
            "break_start": opt_time(b.break_start),
            "break_end": opt_time(b.break_end),
            "break_duration": opt_num(b.break_duration),
        })).collect::<Vec<_>>(),
    })
}

async fn create(
    State(state): State<AppState>,
    Caller(p): Caller,
    claim: IdempotencyClaim,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let patch = patch(&body)?;
    state
        .blocking(move |s| {
            let reply = claim.reply(
                StatusCode::OK,
                |v: &Vehicle| json!({ "vehicle": render(v, View::Full) }),
            );
            vehicles::create(&*s.store, p.scope(), &patch, s.clock.now(), &reply)?;
            Ok(reply.into_response())
        })
        .await
}

async fn list(State(state): State<AppState>, Caller(p): Caller) -> Result<Json<Value>, ApiError> {
    let rows = state
        .blocking(move |s| Ok(vehicles::list(&*s.store, p.scope())?))
        .await?;
    let rows: Vec<Value> = rows.iter().map(|v| render(v, View::Full)).collect();
    Ok(Json(json!({ "vehicles": rows })))
}

async fn read(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let vehicle = state
        .blocking(move |s| Ok(vehicles::get(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(json!({ "vehicle": render(&vehicle, View::Single) })))
}

async fn update(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
    JsonBody(body): JsonBody,
) -> Result<Json<Value>, ApiError> {
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
    Ok(Json(json!({ "vehicle": render(&vehicle, View::Full) })))
}

async fn remove(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    state
        .blocking(move |s| Ok(vehicles::delete(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(json!({ "deleted": { "vehicles_count": 1 } })))
}
