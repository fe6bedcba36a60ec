//! Driver request bodies: every property typed and checked at its path; unknown properties are
//! refused (a misspelt field must not silently do nothing on the road).

use axum::extract::{FromRequest, Request};
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::driver_visit::{LatLng, TrackPoint};
use dispatch_core::patch::Patch;
use dispatch_core::service::driver::rules::Reported;
use dispatch_core::service::driver::visits::ItemReport;
use dispatch_core::time::Timestamp;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::bodies::{
    CompleteStopBody, FailStopBody, LineItemOutcomeBody, NotesBody, PhoneCallBody, PositionBody,
    PositionsBody, ReportedBody,
};
use crate::error::ApiError;
use crate::extract::OptionalJsonBody;
use crate::rejection::invalid;
use crate::v2::request_shapes::refuse_undocumented;
use crate::v2::wire::{object, type_name, Reader};

/// The body as an object with only the properties the schema `T` documents (the others are
/// reported); an empty body reads as `{}`.
pub fn fields<'a, T: ToSchema>(
    body: &'a Value,
    errors: &mut ValidationErrors,
) -> Result<&'a Map<String, Value>, ApiError> {
    let obj = object(body)?;
    refuse_undocumented::<T>(obj, &[], errors);
    Ok(obj)
}

/// A timestamp property (`YYYY-MM-DDTHH:mm:ss.SSSZ`).
pub fn timestamp(r: &mut Reader<'_>, key: &str, path_prefix: &[PathSegment]) -> Option<Timestamp> {
    let raw = match r.string(key) {
        Patch::Value(s) => s,
        _ => return None,
    };
    let parsed = Timestamp::parse(&raw);
    if parsed.is_none() {
        let mut path = path_prefix.to_vec();
        path.push(key.into());
        r.errors.push(ValidationIssue::new(
            IssueCode::InvalidString,
            path,
            "a timestamp YYYY-MM-DDTHH:mm:ss.SSSZ",
            raw,
            format!("{key} must be a UTC timestamp like 2026-11-24T09:30:00.000Z"),
        ));
    }
    parsed
}

/// `lat` and `lng`, both or neither.
pub fn lat_lng(r: &mut Reader<'_>, required: bool, path_prefix: &[PathSegment]) -> Option<LatLng> {
    let lat = r.number("lat");
    let lng = r.number("lng");
    match (lat, lng) {
        (Patch::Value(lat), Patch::Value(lng)) => Some(LatLng { lat, lng }),
        (lat, lng) => {
            let lat_given = matches!(lat, Patch::Value(_));
            let lng_given = matches!(lng, Patch::Value(_));
            for (key, given, other) in
                [("lat", lat_given, lng_given), ("lng", lng_given, lat_given)]
            {
                if !given && (required || other) && r.raw(key).is_none_or(Value::is_null) {
                    let mut path = path_prefix.to_vec();
                    path.push(key.into());
                    r.errors.push(ValidationIssue::new(
                        IssueCode::Required,
                        path,
                        "a number",
                        "undefined",
                        if required {
                            format!("{key} is required")
                        } else {
                            "lat and lng go together".to_owned()
                        },
                    ));
                }
            }
            None
        }
    }
}

/// `time`, `lat`, `lng` of an action, from a reader.
pub fn reported(r: &mut Reader<'_>) -> Reported {
    Reported {
        time: timestamp(r, "time", &[]),
        at: lat_lng(r, false, &[]),
    }
}

/// `{time?, lat?, lng?}` (an empty body is fine).
pub fn reported_body(body: &Value) -> Result<Reported, ApiError> {
    let mut errors = ValidationErrors::default();
    let obj = fields::<ReportedBody>(body, &mut errors)?;
    let out = reported(&mut Reader::new(obj, vec![], &mut errors));
    done(errors, out)
}

/// `{positions: [{lat, lng, time}]}`.
pub fn positions(body: &Value) -> Result<Vec<TrackPoint>, ApiError> {
    let mut errors = ValidationErrors::default();
    let obj = fields::<PositionsBody>(body, &mut errors)?;
    let mut points = Vec::new();
    match obj.get("positions") {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                // The index as a number, as every other issue path has it.
                let prefix: [PathSegment; 2] = ["positions".into(), i.into()];
                let Some(item) = entry::<PositionBody>(item, "positions", i, &mut errors) else {
                    continue;
                };
                let mut r = Reader::new(item, vec!["positions".into(), i.into()], &mut errors);
                let at = lat_lng(&mut r, true, &prefix);
                let time = timestamp(&mut r, "time", &prefix);
                required(item, "positions", i, "time", "a timestamp", &mut errors);
                points.extend(at.zip(time).map(|(at, time)| TrackPoint { at, time }));
            }
        }
        None | Some(Value::Null) => errors.push(ValidationIssue::new(
            IssueCode::Required,
            vec!["positions".into()],
            "an array of positions",
            "undefined",
            "positions is required",
        )),
        Some(other) => errors.push(ValidationIssue::new(
            IssueCode::InvalidType,
            vec!["positions".into()],
            "array",
            type_name(other),
            "positions must be an array",
        )),
    }
    done(errors, points)
}

/// Entry `i` of the array `list` as an object with only the properties `T` documents.
fn entry<'a, T: ToSchema>(
    item: &'a Value,
    list: &str,
    i: usize,
    errors: &mut ValidationErrors,
) -> Option<&'a Map<String, Value>> {
    let Some(obj) = item.as_object() else {
        errors.push(ValidationIssue::new(
            IssueCode::InvalidType,
            vec![list.into(), i.into()],
            "object",
            type_name(item),
            format!("{list} entries must be objects"),
        ));
        return None;
    };
    refuse_undocumented::<T>(obj, &[list.into(), i.into()], errors);
    Some(obj)
}

/// A required property of entry `i` of `list`.
fn required(
    item: &Map<String, Value>,
    list: &str,
    i: usize,
    key: &str,
    expected: &str,
    errors: &mut ValidationErrors,
) {
    if item.get(key).is_none_or(Value::is_null) {
        errors.push(ValidationIssue::new(
            IssueCode::Required,
            vec![list.into(), i.into(), key.into()],
            expected,
            "undefined",
            format!("{key} is required"),
        ));
    }
}

/// The body of completing a stop: `{time?, lat?, lng?, notes?, line_items?: [{id,
/// delivered_quantity, failed_reason?}]}`.
pub fn complete_stop(
    body: &Value,
) -> Result<(Reported, Vec<ItemReport>, Option<String>), ApiError> {
    let mut errors = ValidationErrors::default();
    let obj = fields::<CompleteStopBody>(body, &mut errors)?;
    let mut r = Reader::new(obj, vec![], &mut errors);
    let reported = reported(&mut r);
    let notes = r.string("notes").into_value();
    let mut reports = Vec::new();
    match obj.get("line_items") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let Some(item) = entry::<LineItemOutcomeBody>(item, "line_items", i, &mut errors)
                else {
                    continue;
                };
                let mut r = Reader::new(item, vec!["line_items".into(), i.into()], &mut errors);
                let id = r.integer("id").into_value();
                let quantity = r.integer("delivered_quantity").into_value();
                let reason = r.string("failed_reason").into_value();
                required(item, "line_items", i, "id", "an integer", &mut errors);
                required(
                    item,
                    "line_items",
                    i,
                    "delivered_quantity",
                    "an integer",
                    &mut errors,
                );
                if let (Some(line_item_id), Some(delivered_quantity)) = (id, quantity) {
                    reports.push(ItemReport {
                        line_item_id,
                        delivered_quantity,
                        failed_reason: reason,
                    });
                }
            }
        }
        Some(other) => errors.push(ValidationIssue::new(
            IssueCode::InvalidType,
            vec!["line_items".into()],
            "array",
            type_name(other),
            "line_items must be an array",
        )),
    }
    done(errors, (reported, reports, notes))
}

/// The body of failing a stop: `{reason, time?, lat?, lng?, notes?}`.
pub fn fail_stop(body: &Value) -> Result<(Reported, String, Option<String>), ApiError> {
    let mut errors = ValidationErrors::default();
    let obj = fields::<FailStopBody>(body, &mut errors)?;
    let mut r = Reader::new(obj, vec![], &mut errors);
    let reported = reported(&mut r);
    let notes = r.string("notes").into_value();
    let reason = r.string("reason").into_value();
    if reason.is_none() && r.raw("reason").is_none_or(Value::is_null) {
        r.errors.push(ValidationIssue::new(
            IssueCode::Required,
            vec!["reason".into()],
            "a string",
            "undefined",
            "reason is required",
        ));
    }
    done(errors, (reported, reason.unwrap_or_default(), notes))
}

/// `{notes}` (a string; empty clears).
pub fn notes(body: &Value) -> Result<String, ApiError> {
    let mut errors = ValidationErrors::default();
    let obj = fields::<NotesBody>(body, &mut errors)?;
    let mut r = Reader::new(obj, vec![], &mut errors);
    let notes = match r.string("notes") {
        Patch::Value(s) => s,
        Patch::Null => String::new(),
        Patch::Absent => {
            if r.raw("notes").is_none() {
                r.errors.push(ValidationIssue::new(
                    IssueCode::Required,
                    vec!["notes".into()],
                    "a string",
                    "undefined",
                    "notes is required",
                ));
            }
            String::new()
        }
    };
    done(errors, notes)
}

/// `{initiated_at?, lat?, lng?}`: a phone call.
pub fn phone_call(body: &Value) -> Result<Reported, ApiError> {
    let mut errors = ValidationErrors::default();
    let obj = fields::<PhoneCallBody>(body, &mut errors)?;
    let mut r = Reader::new(obj, vec![], &mut errors);
    let out = Reported {
        time: timestamp(&mut r, "initiated_at", &[]),
        at: lat_lng(&mut r, false, &[]),
    };
    done(errors, out)
}

fn done<T>(errors: ValidationErrors, value: T) -> Result<T, ApiError> {
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(invalid(&errors))
    }
}

/// A driver request body: JSON, or nothing at all (read as `{}`, for actions whose every
/// property is optional), read within the bounds of every JSON body ([`OptionalJsonBody`]).
#[derive(Debug, Clone)]
pub struct DriverBody(pub Value);

impl<S: Send + Sync> FromRequest<S> for DriverBody {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let OptionalJsonBody(body) = OptionalJsonBody::from_request(req, state).await?;
        Ok(DriverBody(
            body.unwrap_or_else(|| Value::Object(Map::new())),
        ))
    }
}
