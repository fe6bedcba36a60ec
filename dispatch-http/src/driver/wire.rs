//! Driver request bodies: every property typed and checked at its path; unknown properties are
//! refused (a misspelt field must not silently do nothing on the road).

use axum::extract::{FromRequest, Request};
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::model::driver_visit::{LatLng, TrackPoint};
use dispatch_core::patch::Patch;
use dispatch_core::service::driver::rules::Reported;
use dispatch_core::service::driver::visits::ItemReport;
use dispatch_core::time::Timestamp;
use serde_json::{Map, Value};

use crate::error::ApiError;
use crate::extract::OptionalJsonBody;
use crate::rejection::invalid;
use crate::v2::wire::{object, type_name, Reader};

/// The body as an object whose properties are all among `allowed`; an empty body reads as `{}`.
pub fn fields<'a>(
    body: &'a Value,
    allowed: &[&str],
    errors: &mut ValidationErrors,
) -> Result<&'a Map<String, Value>, ApiError> {
    let obj = object(body)?;
    for key in obj.keys().filter(|k| !allowed.contains(&k.as_str())) {
        errors.push(ValidationIssue::new(
            IssueCode::UnrecognizedKeys,
            vec![key.as_str().into()],
            allowed.join(", "),
            key,
            format!("unknown property {key}"),
        ));
    }
    Ok(obj)
}

/// A timestamp property (`YYYY-MM-DDTHH:mm:ss.SSSZ`).
pub fn timestamp(r: &mut Reader<'_>, key: &str, path_prefix: &[&str]) -> Option<Timestamp> {
    let raw = match r.string(key) {
        Patch::Value(s) => s,
        _ => return None,
    };
    let parsed = Timestamp::parse(&raw);
    if parsed.is_none() {
        let mut path: Vec<_> = path_prefix.iter().map(|s| (*s).into()).collect();
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
pub fn lat_lng(r: &mut Reader<'_>, required: bool, path_prefix: &[&str]) -> Option<LatLng> {
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
                    let mut path: Vec<_> = path_prefix.iter().map(|s| (*s).into()).collect();
                    path.push(key.into());
                    r.errors.push(ValidationIssue::new(
                        IssueCode::Required,
                        path,
                        "a number",
                        "nothing",
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
    let obj = fields(body, &["time", "lat", "lng"], &mut errors)?;
    let out = reported(&mut Reader::new(obj, vec![], &mut errors));
    done(errors, out)
}

/// `{positions: [{lat, lng, time}]}`.
pub fn positions(body: &Value) -> Result<Vec<TrackPoint>, ApiError> {
    let mut errors = ValidationErrors::default();
    let obj = fields(body, &["positions"], &mut errors)?;
    let mut points = Vec::new();
    match obj.get("positions") {
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let index = i.to_string();
                let prefix = ["positions", index.as_str()];
                let Some(item) = entry(item, "positions", i, &["lat", "lng", "time"], &mut errors)
                else {
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
            "nothing",
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

/// Entry `i` of the array `list` as an object with only `allowed` properties.
fn entry<'a>(
    item: &'a Value,
    list: &str,
    i: usize,
    allowed: &[&str],
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
    for key in obj.keys().filter(|k| !allowed.contains(&k.as_str())) {
        errors.push(ValidationIssue::new(
            IssueCode::UnrecognizedKeys,
            vec![list.into(), i.into(), key.as_str().into()],
            allowed.join(", "),
            key,
            format!("unknown property {key}"),
        ));
    }
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
            "nothing",
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
    let obj = fields(
        body,
        &["time", "lat", "lng", "notes", "line_items"],
        &mut errors,
    )?;
    let mut r = Reader::new(obj, vec![], &mut errors);
    let reported = reported(&mut r);
    let notes = r.string("notes").into_value();
    let mut reports = Vec::new();
    match obj.get("line_items") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let allowed = ["id", "delivered_quantity", "failed_reason"];
                let Some(item) = entry(item, "line_items", i, &allowed, &mut errors) else {
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
    let obj = fields(
        body,
        &["reason", "time", "lat", "lng", "notes"],
        &mut errors,
    )?;
    let mut r = Reader::new(obj, vec![], &mut errors);
    let reported = reported(&mut r);
    let notes = r.string("notes").into_value();
    let reason = r.string("reason").into_value();
    if reason.is_none() && r.raw("reason").is_none_or(Value::is_null) {
        r.errors.push(ValidationIssue::new(
            IssueCode::Required,
            vec!["reason".into()],
            "a string",
            "nothing",
            "reason is required",
        ));
    }
    done(errors, (reported, reason.unwrap_or_default(), notes))
}

/// `{notes}` (a string; empty clears).
pub fn notes(body: &Value) -> Result<String, ApiError> {
    let mut errors = ValidationErrors::default();
    let obj = fields(body, &["notes"], &mut errors)?;
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
                    "nothing",
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
    let obj = fields(body, &["initiated_at", "lat", "lng"], &mut errors)?;
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
