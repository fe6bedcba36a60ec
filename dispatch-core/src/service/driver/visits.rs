//! What the driver does at a stop: arrive, complete it (with what was delivered of each line
//! item) or fail it, write notes, record phone calls. A stop's record is kept for each order it
//! serves (see [`DriverVisit`]).
//!
//! Statuses change only through the one transition function
//! ([`apply_status_event`]): all of an order's line-item outcomes are one event
//! (`LineItemsReplaced`), so `orders.status` fires once per order whose status changed, in the
//! same transaction. An order without line items takes DELIVERED or UNDELIVERED as a whole.

use super::access::owned_stop;
use super::rules::{check_text, not_before, on_the_road, state_error, Reported};
use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::driver::Driver;
use crate::model::driver_visit::{DriverVisit, ItemOutcome, PhoneCall, VisitOutcome};
use crate::model::route::Route;
use crate::model::stop::Stop;
use crate::ports::store::{Store, StoreTx};
use crate::service::order_events::apply_status_event;
use crate::service::Found;
use crate::service::ServiceError;
use crate::status::{OrderEvent, Status, DELIVERED, UNDELIVERED};
use crate::time::Timestamp;

/// Longest driver note and failure reason, in characters.
pub const MAX_NOTES_CHARS: usize = 40_000;
/// Longest failure reason, in characters.
pub const MAX_REASON_CHARS: usize = 1_000;

/// What was delivered of one line item (items not listed are delivered in full).
#[derive(Debug, Clone, PartialEq)]
pub struct ItemReport {
    /// The line item.
    pub line_item_id: i64,
    /// Delivered quantity, 0 to the item's quantity.
    pub delivered_quantity: i64,
    /// Why not all of it, if given.
    pub failed_reason: Option<String>,
}

/// Completing a stop.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompleteStop {
    /// When and where.
    pub reported: Reported,
    /// Outcomes of some or all of the stop's line items.
    pub line_items: Vec<ItemReport>,
    /// The driver's notes (replace earlier ones when given).
    pub notes: Option<String>,
}

/// Failing a stop.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FailStop {
    /// When and where.
    pub reported: Reported,
    /// Why (required).
    pub reason: String,
    /// The driver's notes (replace earlier ones when given).
    pub notes: Option<String>,
}

/// The stop's visit records among a route's `stored` ones, one per order it serves (new ones
/// for orders not visited yet).
pub(super) fn stop_visits(stored: &[DriverVisit], route_id: i64, stop: &Stop) -> Vec<DriverVisit> {
    stop.visit
        .order_ids
        .iter()
        .map(|order_id| {
            stored
                .iter()
                .find(|v| v.order_id == *order_id)
                .cloned()
                .unwrap_or(DriverVisit {
                    route_id,
                    order_id: *order_id,
                    ..DriverVisit::default()
                })
        })
        .collect()
}

/// The stop's visit records, one per order it serves (new ones for orders not visited yet).
fn visits_of(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    route: &Route,
    stop: &Stop,
) -> Result<Vec<DriverVisit>, ServiceError> {
    let stored = tx.driver_visits(driver.scope, route.id)?;
    Ok(stop_visits(&stored, route.id, stop))
}

fn save(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    visits: &[DriverVisit],
    now: Timestamp,
) -> Result<(), ServiceError> {
    for v in visits {
        tx.put_driver_visit(driver.scope, v, now)?;
    }
    Ok(())
}

/// The driver's stop `stop_id` with its route and visit records, when the stop can still be
/// visited: arriving and ending a visit both need the route under way and no outcome yet.
fn open_visits(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    stop_id: i64,
) -> Result<(Route, Stop, Vec<DriverVisit>), ServiceError> {
    let (route, stop) = owned_stop(tx, driver, stop_id)?;
    on_the_road(&route)?;
    let visits = visits_of(tx, driver, &route, &stop)?;
    if let Some(outcome) = visits.iter().find_map(|v| v.outcome) {
        return Err(state_error(
            outcome.as_str(),
            &format!("the stop is already {}", outcome.as_str()),
        ));
    }
    Ok((route, stop, visits))
}

/// Records the arrival at a stop of a started route (`actual_arrival_time`). The first
/// arrival stands; a repeat changes nothing. A finished stop is refused. Returns the route.
pub fn arrive(
    store: &dyn Store,
    driver: &Driver,
    stop_id: i64,
    reported: Reported,
    now: Timestamp,
) -> Result<i64, ServiceError> {
    let time = reported.checked(now)?;
    store.transaction_in(driver.scope, |tx| {
        let (route, _, mut visits) = open_visits(tx, driver, stop_id)?;
        let started = route.started_ts.map(|t| (t, "the route's start"));
        let time = not_before(&reported, time, started)?;
        for v in &mut visits {
            v.arrived.get_or_insert(time);
        }
        save(tx, driver, &visits, now)?;
        Ok(route.id)
    })
}

/// The outcome of each line item of the stop's orders from the driver's reports: unknown ids,
/// repeats and quantities out of range are 400 at their place in `line_items`.
fn item_outcomes(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    stop: &Stop,
    reports: &[ItemReport],
) -> Result<Vec<(i64, Vec<ItemOutcome>)>, ServiceError> {
    let mut errors = ValidationErrors::default();
    let mut per_order = Vec::new();
    let mut known = Vec::new();
    for order_id in &stop.visit.order_ids {
        // An order the depot deleted since dispatch has no line items or status to settle;
        // the visit itself is still recorded (see `finish`).
        let Some(order) = tx.get_order(driver.scope, *order_id)? else {
            continue;
        };
        let mut outcomes = Vec::new();
        for item in &order.line_items {
            known.push(item.id);
            let report = reports.iter().position(|r| r.line_item_id == item.id);
            let (quantity, reason) = match report {
                Some(i) => {
                    let r = &reports[i];
                    if r.delivered_quantity < 0 || r.delivered_quantity > item.quantity {
                        let code = if r.delivered_quantity < 0 {
                            IssueCode::TooSmall
                        } else {
                            IssueCode::TooBig
                        };
                        errors.push(ValidationIssue::new(
                            code,
                            path(i, "delivered_quantity"),
                            format!("0 to {}", item.quantity),
                            r.delivered_quantity.to_string(),
                            format!(
                                "delivered_quantity must be between 0 and the line item's quantity {}",
                                item.quantity
                            ),
                        ));
                    }
                    if let Some(reason) = &r.failed_reason {
                        if let Err(ServiceError::Invalid(e)) =
                            check_text("failed_reason", reason, 1, MAX_REASON_CHARS)
                        {
                            for mut issue in e.0 {
                                issue.path = path(i, "failed_reason");
                                errors.push(issue);
                            }
                        }
                    }
                    (r.delivered_quantity, r.failed_reason.clone())
                }
                None => (item.quantity, None),
            };
            outcomes.push(ItemOutcome {
                line_item_id: item.id,
                ordered: item.quantity,
                delivered: quantity,
                failed_reason: reason,
            });
        }
        per_order.push((*order_id, outcomes));
    }
    for (i, r) in reports.iter().enumerate() {
        if !known.contains(&r.line_item_id) {
            errors.push(ValidationIssue::new(
                IssueCode::Custom,
                path(i, "id"),
                "a line item of the stop's orders",
                r.line_item_id.to_string(),
                "this line item is not served by the stop",
            ));
        } else if reports[..i]
            .iter()
            .any(|x| x.line_item_id == r.line_item_id)
        {
            errors.push(ValidationIssue::new(
                IssueCode::Custom,
                path(i, "id"),
                "each line item once",
                r.line_item_id.to_string(),
                "this line item is listed twice",
            ));
        }
    }
    if errors.is_empty() {
        Ok(per_order)
    } else {
        Err(errors.into())
    }
}

fn path(i: usize, field: &str) -> Vec<PathSegment> {
    vec!["line_items".into(), i.into(), field.into()]
}

/// The status a line item takes from its outcome: anything delivered makes it DELIVERED (a
/// short delivery keeps the rest in `quantity_outstanding`), nothing makes it UNDELIVERED.
fn item_status(outcome: &ItemOutcome) -> Status {
    Status::from_stored(if outcome.delivered > 0 {
        DELIVERED
    } else {
        UNDELIVERED
    })
}

/// Sets the statuses of one order from its line-item outcomes in one transition, then
/// records what is still outstanding.
fn settle_order(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    order_id: i64,
    outcomes: &[ItemOutcome],
    whole: &str,
    now: Timestamp,
) -> Result<(), ServiceError> {
    let event = if outcomes.is_empty() {
        OrderEvent::StatusSet(Status::from_stored(whole))
    } else {
        OrderEvent::LineItemsReplaced(outcomes.iter().map(item_status).collect())
    };
    apply_status_event(tx, driver.scope, order_id, event, now)?;
    if outcomes.iter().any(|o| o.delivered < o.ordered) {
        let mut order = tx.get_order(driver.scope, order_id).found("order")?;
        for item in &mut order.line_items {
            if let Some(o) = outcomes.iter().find(|o| o.line_item_id == item.id) {
                item.quantity_outstanding = Some((o.ordered - o.delivered) as f64);
            }
        }
        order.updated = now;
        tx.update_order(driver.scope, &order)?;
    }
    Ok(())
}

/// How a visit ended, as completing and failing record it.
struct Ending<'a> {
    time: Timestamp,
    outcome: VisitOutcome,
    reported: &'a Reported,
    failed_reason: Option<&'a str>,
    notes: &'a Option<String>,
    /// The status of an order without line items.
    whole: &'a str,
}

/// Ends the visit of a stop of a started route: each order's line items take their outcome
/// (one status transition per order) and the visits record the ending. An order deleted by the
/// depot since dispatch keeps its (deleted) record untouched — no status change, no
/// `orders.status` — but its visit still records what the driver reported at the door.
fn finish(
    store: &dyn Store,
    driver: &Driver,
    stop_id: i64,
    ending: &Ending<'_>,
    now: Timestamp,
    outcomes: impl FnOnce(&mut dyn StoreTx, &Stop) -> Result<Vec<(i64, Vec<ItemOutcome>)>, ServiceError>,
) -> Result<i64, ServiceError> {
    store.transaction_in(driver.scope, |tx| {
        let (route, stop, mut visits) = open_visits(tx, driver, stop_id)?;
        let started = route.started_ts.map(|t| (t, "the route's start"));
        let arrived = visits.iter().filter_map(|v| v.arrived).max();
        let earliest = arrived.map(|t| (t, "the arrival at the stop")).or(started);
        let time = not_before(ending.reported, ending.time, earliest)?;
        let mut settled = outcomes(tx, &stop)?;
        for v in &mut visits {
            let items = match settled.iter().position(|(id, _)| *id == v.order_id) {
                Some(i) => {
                    let (order_id, items) = settled.swap_remove(i);
                    settle_order(tx, driver, order_id, &items, ending.whole, now)?;
                    items
                }
                None => Vec::new(),
            };
            v.arrived.get_or_insert(time);
            v.completed = Some(time);
            v.outcome = Some(ending.outcome);
            v.completed_at = ending.reported.at;
            v.failed_reason = ending.failed_reason.map(str::to_owned);
            v.delivered = items;
            v.eta = None;
            v.start_eta = None;
            if ending.notes.is_some() {
                v.notes.clone_from(ending.notes);
            }
        }
        save(tx, driver, &visits, now)?;
        Ok(route.id)
    })
}

/// Completes a stop of a started route: each line item of its orders is delivered in full
/// unless reported otherwise; statuses follow; `actual_completed_ts` and the position are
/// recorded. A finished stop is refused. Returns the route.
pub fn complete(
    store: &dyn Store,
    driver: &Driver,
    stop_id: i64,
    input: &CompleteStop,
    now: Timestamp,
) -> Result<i64, ServiceError> {
    let time = input.reported.checked(now)?;
    if let Some(notes) = &input.notes {
        check_text("notes", notes, 0, MAX_NOTES_CHARS)?;
    }
    let ending = Ending {
        time,
        outcome: VisitOutcome::Completed,
        reported: &input.reported,
        failed_reason: None,
        notes: &input.notes,
        whole: DELIVERED,
    };
    finish(store, driver, stop_id, &ending, now, |tx, stop| {
        item_outcomes(tx, driver, stop, &input.line_items)
    })
}

/// Fails a stop of a started route: every line item of its orders becomes UNDELIVERED (the
/// orders' statuses derived from them) and `failed_reason` is recorded. Returns the route.
pub fn fail(
    store: &dyn Store,
    driver: &Driver,
    stop_id: i64,
    input: &FailStop,
    now: Timestamp,
) -> Result<i64, ServiceError> {
    let time = input.reported.checked(now)?;
    check_text("reason", &input.reason, 1, MAX_REASON_CHARS)?;
    if let Some(notes) = &input.notes {
        check_text("notes", notes, 0, MAX_NOTES_CHARS)?;
    }
    let ending = Ending {
        time,
        outcome: VisitOutcome::Failed,
        reported: &input.reported,
        failed_reason: Some(&input.reason),
        notes: &input.notes,
        whole: UNDELIVERED,
    };
    finish(store, driver, stop_id, &ending, now, |tx, stop| {
        let all = item_outcomes(tx, driver, stop, &[])?;
        Ok(all
            .into_iter()
            .map(|(order_id, items)| {
                let none = items
                    .into_iter()
                    .map(|o| ItemOutcome { delivered: 0, ..o })
                    .collect();
                (order_id, none)
            })
            .collect())
    })
}

/// Sets the driver's notes of a stop (`driver_notes`; empty clears), at any time while the
/// route is dispatched to the vehicle.
pub fn set_notes(
    store: &dyn Store,
    driver: &Driver,
    stop_id: i64,
    notes: &str,
    now: Timestamp,
) -> Result<(), ServiceError> {
    check_text("notes", notes, 0, MAX_NOTES_CHARS)?;
    store.transaction_in(driver.scope, |tx| {
        let (route, stop) = owned_stop(tx, driver, stop_id)?;
        let mut visits = visits_of(tx, driver, &route, &stop)?;
        for v in &mut visits {
            v.notes = (!notes.is_empty()).then(|| notes.to_owned());
        }
        save(tx, driver, &visits, now)
    })
}

/// Records a phone call the driver made to a stop's contact (`driver_phone_calls`).
pub fn record_call(
    store: &dyn Store,
    driver: &Driver,
    stop_id: i64,
    reported: Reported,
    now: Timestamp,
) -> Result<PhoneCall, ServiceError> {
    let initiated = reported.checked(now)?;
    store.transaction_in(driver.scope, |tx| {
        let (route, stop) = owned_stop(tx, driver, stop_id)?;
        let order_id = *stop
            .visit
            .order_ids
            .first()
            .ok_or(ServiceError::NotFound("stop"))?;
        Ok(tx.insert_phone_call(
            driver.scope,
            &PhoneCall {
                id: 0,
                route_id: route.id,
                order_id,
                initiated_at: initiated,
                recorded_at: now,
                position: reported.at,
            },
        )?)
    })
}
