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
use dispatch_core::error::{IssueCode, ValidationErrors};
use dispatch_core::service::booking::{self, BookingQuestion};
use dispatch_core::time::TimeOfDay;
use serde_json::Value;

use super::booking_input::{candidate, date, done, key, object, time, vehicles, Issues};
use super::booking_shapes::{
    Availability, Available, AvailableDates, AvailableSlots, DateAvailability, Slot,
};
use super::registry::ApiRoutes;
use super::request_shapes::{
    refuse_undocumented, AvailabilityBody, AvailableDatesBody, AvailableSlotsBody,
};
use crate::error::ApiError;
use crate::extract::{Caller, JsonBody};
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
    refuse_undocumented::<AvailabilityBody>(o, &[], &mut issues.0);
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
    refuse_undocumented::<AvailableDatesBody>(o, &[], &mut issues.0);
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
    refuse_undocumented::<AvailableSlotsBody>(o, &[], &mut issues.0);
    let d = date(o, "date", &mut issues);
    let from = time(o, "from", "08:00", &mut issues);
    let to = time(o, "to", "18:00", &mut issues);
    let minutes = match o.get("slot_minutes") {
        None | Some(Value::Null) => Some(120),
        Some(Value::Number(n)) => match n.as_u64().filter(|m| (15..=720).contains(m)) {
            Some(m) => Some(m as u32),
            None => {
                let code = if n.as_f64().is_some_and(|m| m > 720.0) {
                    IssueCode::TooBig
                } else {
                    IssueCode::TooSmall
                };
                issues.push(
                    key(&[], "slot_minutes"),
                    code,
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
        while t + m <= b.minutes() {
            slots.push((
                TimeOfDay::from_minutes(t).expect("in the day"),
                TimeOfDay::from_minutes(t + m).expect("in the day"),
            ));
            t += m;
        }
        // A window cut short would leave its later slots out without a word.
        if slots.len() > MAX_SLOTS as usize {
            issues.push(
                key(&[], "to"),
                IssueCode::TooBig,
                &format!("a window holding at most {MAX_SLOTS} slots of slot_minutes"),
                &b.to_string(),
                &format!(
                    "from to to holds {} slots of {m} minutes; at most {MAX_SLOTS} are checked in one call",
                    slots.len()
                ),
            );
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
