//! Booking: `POST /booking/availability`, `/booking/available-dates` and
//! `/booking/available-slots` (strict tier). Each check plans the whole day from scratch on a
//! blocking thread; a depot's checks queue one at a time (the spec's BOOKING_CHECK
//! concurrency 1) while other depots' run beside them.
//!
//! - availability: `{date, order, vehicles?}` -> `{booking: {available}}`.
//! - available-dates: `{from, to, order, vehicles?}` (at most [`MAX_DATES`] days) ->
//!   `{available_dates: [date], dates: [{date, available}]}`.
//! - available-slots: `{date, order, vehicles?, from?, to?, slot_minutes?}` (default 08:00 to
//!   18:00 in 120-minute slots) -> `{date, slots: [{from, to, available}]}`; the order's visit
//!   must start inside the slot.

use axum::extract::State;
use axum::Json;
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::order::{Endpoint, OrderType};
use dispatch_core::model::order_fields::CapacityAmount;
use dispatch_core::service::booking::{self, BookingQuestion, Candidate};
use dispatch_core::time::{Date, TimeOfDay};
use serde_json::{Map, Value};

use super::booking_shapes::{
    Availability, Available, AvailableDates, AvailableSlots, DateAvailability, Slot,
};
use super::registry::ApiRoutes;
use super::wire::type_name;
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody};
use crate::rejection::invalid;
use crate::AppState;
use utoipa_axum::routes;

/// Most days one available-dates call checks.
pub const MAX_DATES: i64 = 14;
/// Most slots one available-slots call checks.
pub const MAX_SLOTS: u32 = 24;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(availability))
        .routes(routes!(available_dates))
        .routes(routes!(available_slots))
}

struct Issues(ValidationErrors);

impl Issues {
    fn push(
        &mut self,
        path: Vec<PathSegment>,
        code: IssueCode,
        expected: &str,
        got: &str,
        message: &str,
    ) {
        self.0
            .push(ValidationIssue::new(code, path, expected, got, message));
    }

    fn wrong(&mut self, path: Vec<PathSegment>, expected: &str, got: Option<&Value>) {
        let received = got.map_or("undefined", type_name);
        let message = format!(
            "{} must be {expected}",
            path.last().map_or_else(String::new, |p| match p {
                PathSegment::Key(k) => k.clone(),
                PathSegment::Index(i) => i.to_string(),
            })
        );
        self.push(path, IssueCode::InvalidType, expected, received, &message);
    }
}

fn key(parent: &[&str], k: &str) -> Vec<PathSegment> {
    parent
        .iter()
        .map(|p| PathSegment::from(*p))
        .chain([PathSegment::from(k)])
        .collect()
}

fn text(o: &Map<String, Value>, parent: &[&str], k: &str, issues: &mut Issues) -> Option<String> {
    match o.get(k) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            issues.wrong(key(parent, k), "string", Some(other));
            None
        }
    }
}

fn number(o: &Map<String, Value>, parent: &[&str], k: &str, issues: &mut Issues) -> Option<f64> {
    match o.get(k) {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => n.as_f64().filter(|f| f.is_finite()),
        Some(other) => {
            issues.wrong(key(parent, k), "number", Some(other));
            None
        }
    }
}

fn date(o: &Map<String, Value>, k: &str, issues: &mut Issues) -> Option<Date> {
    match o.get(k) {
        Some(Value::String(s)) => match Date::parse(s) {
            Some(d) => Some(d),
            None => {
                issues.push(
                    key(&[], k),
                    IssueCode::InvalidString,
                    "YYYY-MM-DD",
                    s,
                    &format!("{k} must be a date YYYY-MM-DD"),
                );
                None
            }
        },
        other => {
            issues.wrong(key(&[], k), "date string YYYY-MM-DD", other);
            None
        }
    }
}

fn time(o: &Map<String, Value>, k: &str, default: &str, issues: &mut Issues) -> Option<TimeOfDay> {
    match o.get(k) {
        None | Some(Value::Null) => TimeOfDay::parse(default),
        Some(Value::String(s)) => match TimeOfDay::parse(s) {
            Some(t) => Some(t),
            None => {
                issues.push(
                    key(&[], k),
                    IssueCode::InvalidString,
                    "HH:mm",
                    s,
                    &format!("{k} must be a time of day HH:mm"),
                );
                None
            }
        },
        other => {
            issues.wrong(key(&[], k), "time of day HH:mm", other);
            None
        }
    }
}

fn endpoint(o: &Map<String, Value>, side: &str, issues: &mut Issues) -> Endpoint {
    let p = ["order"];
    Endpoint {
        address: text(o, &p, &format!("{side}_address"), issues),
        country_code: text(o, &p, &format!("{side}_country_code"), issues),
        postcode: text(o, &p, &format!("{side}_postcode"), issues),
        lat: number(o, &p, &format!("{side}_lat"), issues),
        lng: number(o, &p, &format!("{side}_lng"), issues),
        duration: number(o, &p, &format!("{side}_duration"), issues),
        ..Endpoint::default()
    }
}

fn candidate(body: &Map<String, Value>, issues: &mut Issues) -> Candidate {
    let Some(o) = body.get("order").and_then(Value::as_object) else {
        issues.wrong(key(&[], "order"), "object", body.get("order"));
        return Candidate::default();
    };
    let kind = match o.get("type") {
        Some(Value::String(s)) if s == "delivery" => Some(OrderType::Delivery),
        Some(Value::String(s)) if s == "pickup" => Some(OrderType::Pickup),
        Some(Value::String(s)) => {
            issues.push(
                key(&["order"], "type"),
                IssueCode::InvalidEnumValue,
                "delivery | pickup",
                s,
                "type must be delivery or pickup",
            );
            None
        }
        other => {
            issues.wrong(key(&["order"], "type"), "delivery | pickup", other);
            None
        }
    };
    let mut capacities = Vec::new();
    match o.get("capacities") {
        None | Some(Value::Null) => {}
        Some(Value::Array(list)) => {
            for (i, c) in list.iter().enumerate() {
                let at = |k: &str| -> Vec<PathSegment> {
                    vec!["order".into(), "capacities".into(), i.into(), k.into()]
                };
                if !c.is_object() {
                    let entry = vec!["order".into(), "capacities".into(), i.into()];
                    issues.wrong(entry, "object", Some(c));
                    continue;
                }
                let id = c.get("id").and_then(Value::as_i64);
                let amount = c.get("capacity").and_then(Value::as_f64);
                if id.is_none() {
                    issues.wrong(at("id"), "integer", c.get("id"));
                }
                if amount.is_none() {
                    issues.wrong(at("capacity"), "number", c.get("capacity"));
                }
                if let (Some(id), Some(amount)) = (id, amount) {
                    capacities.push(CapacityAmount {
                        capacity_type_id: id,
                        amount,
                    });
                }
            }
        }
        Some(other) => issues.wrong(key(&["order"], "capacities"), "array", Some(other)),
    }
    let candidate = Candidate {
        kind,
        delivery: endpoint(o, "delivery", issues),
        pickup: endpoint(o, "pickup", issues),
        capacities,
        window: None,
    };
    issues.0.extend(candidate.validate().0);
    candidate
}

fn vehicles(body: &Map<String, Value>, issues: &mut Issues) -> Option<Vec<i64>> {
    match body.get("vehicles") {
        None | Some(Value::Null) => None,
        Some(Value::Array(list)) => Some(
            list.iter()
                .enumerate()
                .filter_map(|(i, v)| match v.get("id").and_then(Value::as_i64) {
                    Some(id) => Some(id),
                    None if !v.is_object() => {
                        issues.wrong(vec!["vehicles".into(), i.into()], "object", Some(v));
                        None
                    }
                    None => {
                        issues.wrong(
                            vec!["vehicles".into(), i.into(), "id".into()],
                            "integer",
                            v.get("id"),
                        );
                        None
                    }
                })
                .collect(),
        ),
        Some(other) => {
            issues.wrong(key(&[], "vehicles"), "array", Some(other));
            None
        }
    }
}

fn object(body: &Value) -> Result<&Map<String, Value>, ApiError> {
    body.as_object().ok_or_else(|| {
        let mut issues = Issues(ValidationErrors::default());
        issues.wrong(vec![], "object", Some(body));
        invalid(&issues.0)
    })
}

fn done<T>(issues: Issues, value: T) -> Result<T, ApiError> {
    if issues.0 .0.is_empty() {
        Ok(value)
    } else {
        Err(invalid(&issues.0))
    }
}

/// Runs `check` for the caller's depot when its turn in the depot's booking queue comes.
async fn queued<R: Send + 'static>(
    state: &AppState,
    depot_id: i64,
    check: impl FnOnce(&AppState) -> Result<R, ApiError> + Send + 'static,
) -> Result<R, ApiError> {
    let queue = state.routing.booking_queue(depot_id);
    let _turn = queue.lock().await;
    state.blocking(check).await
}

#[utoipa::path(post, path = "/booking/availability", tag = "booking", summary = "Whether one more order fits on a date.", request_body(content = super::request_shapes::AvailabilityBody, description = "`{ date, order: {type, delivery_*/pickup_* location, capacities}, vehicles: [{id}] }`."), responses((status = 200, description = "`{ booking: { available } }`", body = Availability), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 503, description = "SERVICE_UNAVAILABLE: the booking queue is full or the run timed out.", body = crate::error::Envelope)))]
async fn availability(
    State(state): State<AppState>,
    Caller(p): Caller,
    JsonBody(body): JsonBody,
) -> Result<Json<Availability>, ApiError> {
    let o = object(&body)?;
    let mut issues = Issues(ValidationErrors::default());
    let d = date(o, "date", &mut issues);
    let question = BookingQuestion {
        date: d,
        candidate: candidate(o, &mut issues),
        vehicle_ids: vehicles(o, &mut issues),
    };
    let d = done(issues, d)?.expect("a valid date");
    let scope = p.scope();
    let available = queued(&state, scope.depot_id, move |s| {
        Ok(booking::availability(
            &*s.store,
            &*s.geocoder,
            &*s.routing.matrix,
            scope,
            &question,
            d,
            s.clock.now(),
        )?)
    })
    .await?;
    Ok(Json(Availability {
        booking: Available { available },
    }))
}

#[utoipa::path(post, path = "/booking/available-dates", tag = "booking", summary = "The dates on which one more order fits.", request_body(content = super::request_shapes::AvailableDatesBody, description = "See the schema."), responses((status = 200, description = "`{ available_dates, dates: [{date, available}] }`.", body = AvailableDates), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn available_dates(
    State(state): State<AppState>,
    Caller(p): Caller,
    JsonBody(body): JsonBody,
) -> Result<Json<AvailableDates>, ApiError> {
    let o = object(&body)?;
    let mut issues = Issues(ValidationErrors::default());
    let from = date(o, "from", &mut issues);
    let to = date(o, "to", &mut issues);
    if let (Some(a), Some(b)) = (from, to) {
        if b < a || b > a.add_days(MAX_DATES - 1) {
            issues.push(
                key(&[], "to"),
                IssueCode::Custom,
                &format!("a date from `from` to {} days after it", MAX_DATES - 1),
                &b.to_string(),
                &format!(
                    "to must be on or after from and at most {} days later",
                    MAX_DATES - 1
                ),
            );
        }
    }
    let mut c = candidate(o, &mut issues);
    let ids = vehicles(o, &mut issues);
    let (from, to) = done(issues, (from, to))?;
    let (from, to) = (from.expect("valid"), to.expect("valid"));
    let scope = p.scope();
    let results = queued(&state, scope.depot_id, move |s| {
        booking::locate(&*s.geocoder, scope, &mut c)?;
        let mut out = Vec::new();
        let mut day = from;
        while day <= to {
            let plan = booking::read_day(&*s.store, scope, day, ids.as_deref())?;
            out.push((
                day,
                booking::fits(&plan, &*s.routing.matrix, &c, day, s.clock.now())?,
            ));
            day = day.add_days(1);
        }
        Ok(out)
    })
    .await?;
    let available: Vec<String> = results
        .iter()
        .filter(|(_, ok)| *ok)
        .map(|(d, _)| d.to_string())
        .collect();
    let dates = results
        .iter()
        .map(|(d, ok)| DateAvailability {
            date: d.to_string(),
            available: *ok,
        })
        .collect();
    Ok(Json(AvailableDates {
        available_dates: available,
        dates,
    }))
}

#[utoipa::path(post, path = "/booking/available-slots", tag = "booking", summary = "The time slots of a date in which one more order fits.", request_body(content = super::request_shapes::AvailableSlotsBody, description = "See the schema."), responses((status = 200, description = "`{ date, slots: [{from, to, available}] }`.", body = AvailableSlots), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn available_slots(
    State(state): State<AppState>,
    Caller(p): Caller,
    JsonBody(body): JsonBody,
) -> Result<Json<AvailableSlots>, ApiError> {
    let o = object(&body)?;
    let mut issues = Issues(ValidationErrors::default());
    let d = date(o, "date", &mut issues);
    let from = time(o, "from", "08:00", &mut issues);
    let to = time(o, "to", "18:00", &mut issues);
    let minutes = match o.get("slot_minutes") {
        None | Some(Value::Null) => Some(120),
        Some(Value::Number(n)) => match n.as_u64().filter(|m| (15..=720).contains(m)) {
            Some(m) => Some(m as u32),
            None => {
                issues.push(
                    key(&[], "slot_minutes"),
                    IssueCode::TooSmall,
                    "an integer from 15 to 720",
                    &n.to_string(),
                    "slot_minutes must be an integer from 15 to 720",
                );
                None
            }
        },
        Some(other) => {
            issues.wrong(key(&[], "slot_minutes"), "integer", Some(other));
            None
        }
    };
    let mut slots = Vec::new();
    if let (Some(a), Some(b), Some(m)) = (from, to, minutes) {
        let mut t = a.minutes();
        while t + m <= b.minutes() && (slots.len() as u32) < MAX_SLOTS {
            slots.push((
                TimeOfDay::from_minutes(t).expect("in the day"),
                TimeOfDay::from_minutes(t + m).expect("in the day"),
            ));
            t += m;
        }
        if slots.is_empty() {
            issues.push(
                key(&[], "to"),
                IssueCode::Custom,
                "a window holding at least one slot",
                &b.to_string(),
                "from to to must hold at least one slot of slot_minutes",
            );
        }
    }
    let mut c = candidate(o, &mut issues);
    let ids = vehicles(o, &mut issues);
    let d = done(issues, d)?.expect("a valid date");
    let scope = p.scope();
    let results = queued(&state, scope.depot_id, move |s| {
        booking::locate(&*s.geocoder, scope, &mut c)?;
        let plan = booking::read_day(&*s.store, scope, d, ids.as_deref())?;
        let mut out = Vec::new();
        for (a, b) in slots {
            let mut slot = c.clone();
            slot.window = Some((a, b));
            out.push((
                a,
                b,
                booking::fits(&plan, &*s.routing.matrix, &slot, d, s.clock.now())?,
            ));
        }
        Ok(out)
    })
    .await?;
    let slots = results
        .iter()
        .map(|(a, b, ok)| Slot {
            from: a.to_string(),
            to: b.to_string(),
            available: *ok,
        })
        .collect();
    Ok(Json(AvailableSlots {
        date: d.to_string(),
        slots,
    }))
}
