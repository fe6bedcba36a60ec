//! `POST /routes/{id}/add-orders` and `/remove-orders`. Each reference is resolved and decided
//! on its own ([`crate::model::route_edit`]); accepted orders change the route's stops, their
//! status goes through the transition function, the route remembers every order that was on
//! it, and an edit of a dispatched route writes the route audit log and `routes.edited`.
//!
//! Stops are timed through the bridge after every edit: appended stops (no feasibility check:
//! late visits start on arrival) or, with `reoptimize`, the route re-solved by the solver with a
//! fixed seed and iteration budget (not when the route keeps more than
//! [`REOPTIMIZE_STOP_LIMIT`] stops after a removal: it is re-timed as it is). A route that
//! cannot be timed (its vehicle was deleted, an order lost its coordinates) keeps its stored
//! times and gets the new stops without times of their own: they reuse the last stop's
//! departure.
//!
//! The travel matrix (a routing server over HTTP, perhaps) and the solver never run inside a
//! write transaction, where they would hold up every other writer: an edit is computed from a
//! snapshot read first (`draft`), then a write transaction reads the snapshot again and writes
//! the computed stops only if nothing they were computed from changed (the route, its stops,
//! the orders, the vehicle, the depot). If something did, the edit is computed again, up to
//! [`EDIT_ATTEMPTS`] times, and then answered 503 SERVICE_UNAVAILABLE with `Retry-After`.

mod deleted;
mod draft;

pub(crate) use deleted::{retime_route, take_off_routes};
use draft::{record, served_side, AddDraft, RemoveDraft};

use super::notifications::on_dispatch;
use super::order_events::apply_status_event_to;
pub use super::route_day::EDIT_ATTEMPTS;
use super::route_day::{
    clock_text, resolve_config, route_order, stop_visits, write_planned, write_untimed, ToBudget,
};
use super::ServiceError;
use crate::model::order::Order;
use crate::model::organisation::DepotScope;
use crate::model::route::Route;
use crate::model::route_edit::{EditFailure, REOPTIMIZE_STOP_LIMIT};
use crate::model::stop::{Stop, StopVisit};
use crate::optimise::{self, PlannedRoute, Visit};
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::ports::tracking::TrackingLinks;
use crate::status::{OrderEvent, OPEN, ROUTED};
use crate::time::Timestamp;

/// One entry of the request's `orders`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderRef {
    /// `id`.
    pub id: Option<i64>,
    /// `order_number`.
    pub order_number: Option<String>,
}

/// The request's `settings`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EditSettings {
    /// Edit a dispatched route.
    pub allow_dispatched: bool,
    /// Re-solve the route.
    pub reoptimize: bool,
}

/// A resolved order and the stops the call added or removed for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditedOrder {
    /// Position of the reference in the request.
    pub position: usize,
    /// The order.
    pub id: i64,
    /// Its number.
    pub order_number: String,
    /// Stop ids (on the call's route) added for it, or removed.
    pub stops: Vec<i64>,
}

/// A per-order failure, with the reference as sent (or resolved).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditError {
    /// Position of the reference in the request.
    pub position: usize,
    /// The failure.
    pub failure: EditFailure,
    /// The order's id (resolved, or as sent).
    pub id: Option<i64>,
    /// The order's number (resolved, or as sent).
    pub order_number: Option<String>,
}

/// The outcome of an add or remove call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditOutcome {
    /// The route.
    pub route_id: i64,
    /// Every resolved order, in request order.
    pub orders: Vec<EditedOrder>,
    /// Every failure, in request order.
    pub errors: Vec<EditError>,
}

impl EditOutcome {
    fn new(route_id: i64) -> EditOutcome {
        EditOutcome {
            route_id,
            orders: Vec::new(),
            errors: Vec::new(),
        }
    }

    /// The entry of the reference at `position`.
    fn entry(&mut self, position: usize) -> &mut EditedOrder {
        let i = self
            .orders
            .iter()
            .position(|o| o.position == position)
            .expect("accepted orders have an entry");
        &mut self.orders[i]
    }

    /// Errors in request order.
    fn sorted(mut self) -> EditOutcome {
        self.errors.sort_by_key(|e| e.position);
        self
    }

    fn fail(&mut self, position: usize, failure: EditFailure, order: &Order) {
        self.errors.push(EditError {
            position,
            failure,
            id: Some(order.id),
            order_number: Some(order.order_number.clone()),
        });
    }
}

/// A snapshot read for an edit: the edit to compute, or the outcome when nothing is to be
/// written.
enum Step<D> {
    Done(EditOutcome),
    Edit(D),
}

/// Reads a draft, computes on it outside any transaction, and applies the computation in a
/// write transaction whose own reading of the draft must equal the first (else again).
fn edit_route<D: PartialEq, P>(
    store: &dyn Store,
    scope: DepotScope,
    read: impl Fn(&mut dyn StoreTx) -> Result<Step<D>, ServiceError>,
    compute: impl Fn(&D) -> P,
    apply: impl Fn(&mut dyn StoreTx, D, P) -> Result<EditOutcome, ServiceError>,
) -> Result<EditOutcome, ServiceError> {
    for _ in 0..EDIT_ATTEMPTS {
        let draft = match store.read(&read)? {
            Step::Done(out) => return Ok(out),
            Step::Edit(draft) => draft,
        };
        let computed = compute(&draft);
        let applied = store.transaction_in(scope, |tx| match read(tx)? {
            Step::Edit(again) if again == draft => apply(tx, again, computed).map(Some),
            _ => Ok(None),
        })?;
        if let Some(out) = applied {
            return Ok(out);
        }
    }
    Err(ServiceError::Unavailable {
        message: "the route kept changing while this edit was computed; try again".to_owned(),
        retry_after_s: 1,
    })
}

/// `POST /routes/{id}/add-orders`; an order added to a dispatched route gets its customer
/// tracking link from `links`.
#[allow(clippy::too_many_arguments)]
pub fn add_orders(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    route_id: i64,
    refs: &[OrderRef],
    settings: EditSettings,
    now: Timestamp,
) -> Result<EditOutcome, ServiceError> {
    edit_route(
        store,
        scope,
        |tx| draft::add(tx, scope, route_id, refs, settings),
        |d| plan_add(d, matrix, settings),
        |tx, d, planned| apply_add(tx, links, scope, d, planned, now),
    )
}

/// What the matrix and the solver made of an add: the timed route (`None`: the new stops are
/// appended untimed) and the orders a re-solve declined.
struct PlannedAdd {
    route: Option<PlannedRoute>,
    declined: Vec<(i64, EditFailure)>,
}

fn plan_add(d: &AddDraft, matrix: &dyn TravelMatrix, settings: EditSettings) -> PlannedAdd {
    let untimed = PlannedAdd {
        route: None,
        declined: Vec::new(),
    };
    let Some((day, vehicle)) = d
        .day
        .as_ref()
        .and_then(|day| Some((day, day.vehicle.clone()?)))
    else {
        return untimed;
    };
    let vehicles = [vehicle.clone()];
    let req = day.request(&d.edit.route, &vehicles);
    let current = stop_visits(&d.present);
    let added: Vec<Visit> = d
        .accepted
        .iter()
        .map(|o| Visit {
            order_id: o.id,
            side: served_side(o),
        })
        .collect();
    if !settings.reoptimize {
        let mut all = current;
        all.extend(added.iter().map(|a| vec![*a]));
        return PlannedAdd {
            route: optimise::time_route(&req, matrix, vehicle.id, &all).ok(),
            declined: Vec::new(),
        };
    }
    let solved = optimise::reoptimise_with_additions(
        &req,
        matrix,
        vehicle.id,
        &current,
        &added,
        &resolve_config(),
        &ToBudget,
    );
    let Ok(solved) = solved else {
        return untimed;
    };
    let declined = solved
        .declined
        .iter()
        .map(|d| {
            let failure = EditFailure::NotPlaced {
                reason: d.reason.code().to_owned(),
                description: d.description.clone(),
            };
            (d.order_id, failure)
        })
        .collect();
    PlannedAdd {
        route: Some(solved.route),
        declined,
    }
}

fn apply_add(
    tx: &mut dyn StoreTx,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    d: AddDraft,
    planned: PlannedAdd,
    now: Timestamp,
) -> Result<EditOutcome, ServiceError> {
    let AddDraft {
        mut edit,
        mut out,
        accepted,
        entry_of,
        present,
        day,
    } = d;
    let stops = match (&planned.route, &day) {
        (Some(route), Some(day)) => {
            write_planned(tx, scope, &mut edit.route, route, &day.orders, now)?
        }
        _ => append_untimed(tx, scope, &mut edit.route, &present, &accepted, now)?,
    };
    let mut placed = Vec::new();
    for (order, entry) in accepted.into_iter().zip(&entry_of) {
        if let Some((_, failure)) = planned.declined.iter().find(|(id, _)| *id == order.id) {
            out.fail(*entry, failure.clone(), &order);
            continue;
        }
        let on: Vec<&Stop> = stops
            .iter()
            .filter(|s| s.visit.order_ids.contains(&order.id))
            .collect();
        out.entry(*entry).stops = on.iter().map(|s| s.id).collect();
        let id = order.id;
        if edit.route.dispatched && order.status.as_str() == OPEN {
            let eta = on.first().map(|s| clock_text(s.visit.service_start().1));
            let routed = route_order(tx, links, scope, order, eta, now)?;
            on_dispatch(tx, scope, &[routed], now)?;
        }
        placed.push(id);
    }
    if !placed.is_empty() {
        record(tx, scope, &edit.route, "orders_added", &placed, now)?;
    }
    Ok(out.sorted())
}

/// Appends one stop per order after `present` with the last stop's departure as its times.
fn append_untimed(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route: &mut Route,
    present: &[StopVisit],
    orders: &[Order],
    now: Timestamp,
) -> Result<Vec<Stop>, StoreError> {
    let mut stops = present.to_vec();
    let (date, t) = present
        .last()
        .map_or((route.date, route.timing.end_time_s), |s| {
            (s.departure_date, s.departure_s)
        });
    for o in orders {
        let side = served_side(o);
        let end = o.endpoint(side);
        stops.push(StopVisit {
            order_ids: vec![o.id],
            side,
            lat: end.lat,
            lng: end.lng,
            address: end.address.clone(),
            postcode: end.postcode.clone(),
            phone: end.contact_number.clone(),
            arrival_date: date,
            arrival_s: t,
            wait_s: 0,
            departure_date: date,
            departure_s: t,
            planned_distance_m: 0,
        });
    }
    write_untimed(tx, scope, route, &stops, now)
}

/// `POST /routes/{id}/remove-orders`.
pub fn remove_orders(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    scope: DepotScope,
    route_id: i64,
    refs: &[OrderRef],
    settings: EditSettings,
    now: Timestamp,
) -> Result<EditOutcome, ServiceError> {
    edit_route(
        store,
        scope,
        |tx| draft::remove(tx, scope, route_id, refs, settings),
        |d| plan_remove(d, matrix, settings),
        |tx, d, planned| apply_remove(tx, scope, d, planned, now),
    )
}

/// The remaining stops timed: re-solved with `reoptimize` (unless more than
/// [`REOPTIMIZE_STOP_LIMIT`] remain), else, or when that fails, re-timed as they are; `None`
/// when the route cannot be timed. A failed re-sequencing leaves the removal standing.
fn plan_remove(
    d: &RemoveDraft,
    matrix: &dyn TravelMatrix,
    settings: EditSettings,
) -> Option<PlannedRoute> {
    let day = d.day.as_ref()?;
    let vehicle = day.vehicle.clone()?;
    let vehicles = [vehicle.clone()];
    let req = day.request(&d.edit.route, &vehicles);
    let current = stop_visits(&d.kept);
    let resolved = if settings.reoptimize && d.kept.len() <= REOPTIMIZE_STOP_LIMIT {
        optimise::reoptimise_route(
            &req,
            matrix,
            vehicle.id,
            &current,
            &resolve_config(),
            &ToBudget,
        )
        .ok()
    } else {
        None
    };
    resolved.or_else(|| optimise::time_route(&req, matrix, vehicle.id, &current).ok())
}

fn apply_remove(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    d: RemoveDraft,
    planned: Option<PlannedRoute>,
    now: Timestamp,
) -> Result<EditOutcome, ServiceError> {
    let RemoveDraft {
        mut edit,
        out,
        accepted,
        kept,
        day,
    } = d;
    match (&planned, &day) {
        (Some(route), Some(day)) => {
            write_planned(tx, scope, &mut edit.route, route, &day.orders, now)?;
        }
        _ => {
            write_untimed(tx, scope, &mut edit.route, &kept, now)?;
        }
    }
    let mut removed = Vec::new();
    for order in accepted {
        removed.push(order.id);
        if order.status.as_str() == ROUTED || order.status.as_str() == OPEN {
            apply_status_event_to(tx, scope, order, OrderEvent::RemovedFromRoute, now)?;
        }
    }
    record(tx, scope, &edit.route, "orders_removed", &removed, now)?;
    Ok(out.sorted())
}
