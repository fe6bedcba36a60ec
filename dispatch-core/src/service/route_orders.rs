//! `POST /routes/{id}/add-orders` and `/remove-orders`: one write transaction per call. Each
//! reference is resolved and decided on its own ([`crate::model::route_edit`]); accepted orders
//! change the route's stops, their status goes through the transition function, the route
//! remembers every order that was on it, and an edit of a dispatched route writes the route
//! audit log and `routes.edited`.
//!
//! Stops are timed through the bridge after every edit: appended stops (no feasibility check:
//! late visits start on arrival) or, with `reoptimize`, the route re-solved by the solver with a
//! fixed seed and iteration budget. A route that cannot be timed (its vehicle was deleted, an
//! order lost its coordinates) keeps its stored times and gets the new stops without times of
//! their own: they reuse the last stop's departure.

use std::collections::HashSet;

use super::notifications::{on_dispatch, DispatchedOrder};
use super::orders::apply_status_event;
use super::route_day::{
    resolve_config, stop_visits, write_planned, write_untimed, RouteDay, ToBudget,
};
use super::ServiceError;
use crate::events::DomainEvent;
use crate::model::driver_visit::FeedKind;
use crate::model::order::{Order, OrderType, Side};
use crate::model::organisation::DepotScope;
use crate::model::route::Route;
use crate::model::route_edit::{
    decide_add, decide_remove, EditFailure, OrderEditFacts, RouteEditFacts, REOPTIMIZE_STOP_LIMIT,
};
use crate::model::stop::{Stop, StopVisit};
use crate::optimise::{self, Visit};
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::ports::tracking::TrackingLinks;
use crate::service::driver::feed::route_changed;
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

/// Resolves a reference to a live order of the depot.
fn resolve(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    r: &OrderRef,
) -> Result<Result<Order, EditFailure>, StoreError> {
    let by_id = match r.id {
        Some(id) => match tx.get_order(scope, id)? {
            Some(o) => Some(o),
            None => return Ok(Err(EditFailure::OrderNotFound)),
        },
        None => None,
    };
    let by_number = match &r.order_number {
        Some(n) => match tx.find_order_by_number(scope, n)? {
            Some(found) if !found.deleted => Some(found.order),
            _ => return Ok(Err(EditFailure::OrderNotFound)),
        },
        None => None,
    };
    Ok(match (by_id, by_number) {
        (Some(a), Some(b)) if a.id != b.id => Err(EditFailure::IdNumberMismatch),
        (Some(o), _) | (None, Some(o)) => Ok(o),
        (None, None) => Err(EditFailure::OrderNotFound),
    })
}

fn on_stops(stops: &[Stop], order: i64) -> bool {
    stops.iter().any(|s| s.visit.order_ids.contains(&order))
}

/// Whether `order` has a stop on an active route other than `route_id`: a dispatched route,
/// or one of its plan's current optimisation.
fn on_other_active_route(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route_id: i64,
    order: i64,
) -> Result<bool, StoreError> {
    for r in tx.routes_of_order(scope, order)? {
        if r.id == route_id {
            continue;
        }
        if r.dispatched {
            return Ok(true);
        }
        if let Some(plan) = tx.get_plan(scope, r.plan_id)? {
            if plan.active_solution_id == Some(r.solution_id) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

fn served_side(order: &Order) -> Side {
    if order.kind == OrderType::Pickup {
        Side::Pickup
    } else {
        Side::Delivery
    }
}

struct Edit {
    route: Route,
    stops: Vec<Stop>,
    remembered: Vec<i64>,
    facts: RouteEditFacts,
}

fn open_edit(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route_id: i64,
    settings: EditSettings,
) -> Result<Edit, ServiceError> {
    let route = tx
        .get_route(scope, route_id)?
        .ok_or(ServiceError::NotFound("route"))?;
    let stops = tx.list_stops(scope, route_id)?;
    let remembered = tx.remembered_route_orders(scope, route_id)?;
    let facts = RouteEditFacts {
        dispatched: route.dispatched,
        allow_dispatched: settings.allow_dispatched,
    };
    Ok(Edit {
        route,
        stops,
        remembered,
        facts,
    })
}

fn facts_of(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    edit: &Edit,
    order: &Order,
    on_route: bool,
) -> Result<OrderEditFacts, StoreError> {
    let side = served_side(order);
    let end = order.endpoint(side);
    Ok(OrderEditFacts {
        kind: order.kind,
        exchange_linked: order.exchange_reference.is_some(),
        status: order.status.clone(),
        on_this_route: on_route,
        ever_on_this_route: on_route || edit.remembered.contains(&order.id),
        on_other_active_route: on_other_active_route(tx, scope, edit.route.id, order.id)?,
        locatable: end.lat.is_some() && end.lng.is_some(),
    })
}

/// After an accepted edit: remember the orders, and for a dispatched route write the audit
/// row and `routes.edited`.
fn record(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route: &Route,
    action: &str,
    orders: &[i64],
    now: Timestamp,
) -> Result<(), StoreError> {
    tx.remember_route_orders(scope, route.id, orders)?;
    if route.dispatched {
        tx.append_route_audit(scope, route.id, action, orders, now)?;
        tx.append_event(scope, &DomainEvent::RouteEdited { id: route.id }, now)?;
        route_changed(tx, scope, route, FeedKind::Edited, now)?;
    }
    Ok(())
}

impl Edit {
    const ADD: bool = false;
    const REMOVE: bool = true;
}

/// Resolves and decides every reference in request order: resolved orders get an entry in
/// `out.orders`, failures one in `out.errors`. Returns the accepted orders and, per accepted
/// order, its request position (a repeated reference is decided against the earlier one).
fn decide_all(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    edit: &Edit,
    refs: &[OrderRef],
    out: &mut EditOutcome,
    removing: bool,
) -> Result<(Vec<Order>, Vec<usize>), StoreError> {
    let mut accepted: Vec<Order> = Vec::new();
    let mut positions = Vec::new();
    for (position, r) in refs.iter().enumerate() {
        let order = match resolve(tx, scope, r)? {
            Ok(o) => o,
            Err(failure) => {
                out.errors.push(EditError {
                    position,
                    failure,
                    id: r.id,
                    order_number: r.order_number.clone(),
                });
                continue;
            }
        };
        let repeated = accepted.iter().any(|a| a.id == order.id);
        let on_route = if removing {
            on_stops(&edit.stops, order.id) && !repeated
        } else {
            on_stops(&edit.stops, order.id) || repeated
        };
        let facts = facts_of(tx, scope, edit, &order, on_route)?;
        out.orders.push(EditedOrder {
            position,
            id: order.id,
            order_number: order.order_number.clone(),
            stops: Vec::new(),
        });
        let decision = if removing {
            decide_remove(edit.facts, &facts)
        } else {
            decide_add(edit.facts, &facts)
        };
        match decision {
            Ok(()) => {
                positions.push(position);
                accepted.push(order);
            }
            Err(failure) => out.fail(position, failure, &order),
        }
    }
    Ok((accepted, positions))
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
    store.transaction(|tx| {
        let mut edit = open_edit(tx, scope, route_id, settings)?;
        let mut out = EditOutcome::new(route_id);
        let (accepted, entry_of) = decide_all(tx, scope, &edit, refs, &mut out, Edit::ADD)?;
        if accepted.is_empty() {
            return Ok(out.sorted());
        }
        if settings.reoptimize && edit.stops.len() + accepted.len() > REOPTIMIZE_STOP_LIMIT {
            for (order, position) in accepted.iter().zip(&entry_of) {
                out.fail(*position, EditFailure::ReoptimizeLimit, order);
            }
            return Ok(out.sorted());
        }
        let present: Vec<StopVisit> = edit.stops.iter().map(|s| s.visit.clone()).collect();
        let mut ids: Vec<i64> = present.iter().flat_map(|s| s.order_ids.clone()).collect();
        ids.extend(accepted.iter().map(|o| o.id));
        let day = RouteDay::read(tx, scope, &edit.route, &ids)?;
        let added: Vec<Visit> = accepted
            .iter()
            .map(|o| Visit {
                order_id: o.id,
                side: served_side(o),
            })
            .collect();
        let mut declined: Vec<(i64, EditFailure)> = Vec::new();
        let stops = match (&day, day.as_ref().and_then(|d| d.vehicle.clone())) {
            (Some(day), Some(vehicle)) => {
                let vehicles = [vehicle.clone()];
                let req = day.request(&edit.route, &vehicles);
                let current = stop_visits(&present);
                let planned = if settings.reoptimize {
                    optimise::reoptimise_with_additions(
                        &req,
                        matrix,
                        vehicle.id,
                        &current,
                        &added,
                        &resolve_config(),
                        &ToBudget,
                    )
                    .map(|r| {
                        declined = r
                            .declined
                            .iter()
                            .map(|d| {
                                (
                                    d.order_id,
                                    EditFailure::NotPlaced {
                                        reason: d.reason.code().to_owned(),
                                        description: d.description.clone(),
                                    },
                                )
                            })
                            .collect();
                        r.route
                    })
                } else {
                    let mut all = current;
                    all.extend(added.iter().map(|a| vec![*a]));
                    optimise::time_route(&req, matrix, vehicle.id, &all)
                };
                match planned {
                    Ok(planned) => {
                        write_planned(tx, scope, &mut edit.route, &planned, &day.orders, now)?
                    }
                    Err(_) => append_untimed(tx, scope, &mut edit.route, &present, &accepted, now)?,
                }
            }
            _ => append_untimed(tx, scope, &mut edit.route, &present, &accepted, now)?,
        };
        let mut placed = Vec::new();
        for (order, entry) in accepted.iter().zip(&entry_of) {
            if let Some((_, failure)) = declined.iter().find(|(id, _)| *id == order.id) {
                out.fail(*entry, failure.clone(), order);
                continue;
            }
            let stop_ids: Vec<i64> = stops
                .iter()
                .filter(|s| s.visit.order_ids.contains(&order.id))
                .map(|s| s.id)
                .collect();
            out.entry(*entry).stops = stop_ids;
            if edit.route.dispatched && order.status.as_str() == OPEN {
                apply_status_event(tx, scope, order.id, OrderEvent::Dispatched, now)?;
                let eta = stops
                    .iter()
                    .find(|s| s.visit.order_ids.contains(&order.id))
                    .map(|s| super::dispatch::clock_text(s.visit.arrival_s));
                let link = super::tracking::issue_link(tx, scope, order.id, links, now)?;
                let notify = DispatchedOrder {
                    order_id: order.id,
                    eta,
                    tracking_link: Some(link),
                };
                on_dispatch(tx, scope, &[notify], now)?;
            }
            placed.push(order.id);
        }
        if !placed.is_empty() {
            record(tx, scope, &edit.route, "orders_added", &placed, now)?;
        }
        Ok(out.sorted())
    })
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
    store.transaction(|tx| {
        let mut edit = open_edit(tx, scope, route_id, settings)?;
        let mut out = EditOutcome::new(route_id);
        let (mut accepted, entry_of) = decide_all(tx, scope, &edit, refs, &mut out, Edit::REMOVE)?;
        // A stop shared with an exchange partner that stays cannot be split.
        let removing: HashSet<i64> = accepted.iter().map(|o| o.id).collect();
        let mut split = Vec::new();
        for order in &accepted {
            let Some(reference) = &order.exchange_reference else {
                continue;
            };
            for stop in edit
                .stops
                .iter()
                .filter(|s| s.visit.order_ids.contains(&order.id))
            {
                for other in stop
                    .visit
                    .order_ids
                    .iter()
                    .filter(|o| !removing.contains(o))
                {
                    let partner = tx.get_order(scope, *other)?;
                    if partner.is_some_and(|p| p.exchange_reference.as_ref() == Some(reference)) {
                        split.push(order.id);
                    }
                }
            }
        }
        let mut kept_entries = Vec::new();
        for (o, entry) in accepted.iter().zip(&entry_of) {
            if split.contains(&o.id) {
                out.fail(*entry, EditFailure::StopRebuildFailed, o);
            } else {
                kept_entries.push(*entry);
            }
        }
        accepted.retain(|o| !split.contains(&o.id));
        let entry_of = kept_entries;
        if accepted.is_empty() {
            return Ok(out.sorted());
        }
        let removing: HashSet<i64> = accepted.iter().map(|o| o.id).collect();
        let mut kept: Vec<StopVisit> = Vec::new();
        for stop in &edit.stops {
            let hit: Vec<i64> = stop
                .visit
                .order_ids
                .iter()
                .copied()
                .filter(|o| removing.contains(o))
                .collect();
            for id in &hit {
                if let Some(i) = accepted.iter().position(|o| o.id == *id) {
                    out.entry(entry_of[i]).stops.push(stop.id);
                }
            }
            let rest: Vec<i64> = stop
                .visit
                .order_ids
                .iter()
                .copied()
                .filter(|o| !removing.contains(o))
                .collect();
            if rest.is_empty() {
                continue;
            }
            let mut visit = stop.visit.clone();
            if !hit.is_empty() {
                // Rebuilt for the remaining orders: contact and address of the first of them.
                if let Some(first) = tx.get_order(scope, rest[0])? {
                    let end = first.endpoint(visit.side);
                    visit.address = end.address.clone();
                    visit.postcode = end.postcode.clone();
                    visit.phone = end.contact_number.clone();
                }
                visit.order_ids = rest;
            }
            kept.push(visit);
        }
        let ids: Vec<i64> = kept.iter().flat_map(|s| s.order_ids.clone()).collect();
        let day = RouteDay::read(tx, scope, &edit.route, &ids)?;
        let timed = match (&day, day.as_ref().and_then(|d| d.vehicle.clone())) {
            (Some(day), Some(vehicle)) => {
                let vehicles = [vehicle.clone()];
                let req = day.request(&edit.route, &vehicles);
                let current = stop_visits(&kept);
                // A failed re-sequencing leaves the removal standing, re-timed as it is.
                let planned = if settings.reoptimize {
                    optimise::reoptimise_route(
                        &req,
                        matrix,
                        vehicle.id,
                        &current,
                        &resolve_config(),
                        &ToBudget,
                    )
                    .or_else(|_| optimise::time_route(&req, matrix, vehicle.id, &current))
                } else {
                    optimise::time_route(&req, matrix, vehicle.id, &current)
                };
                planned.ok().map(|p| (p, day.orders.clone()))
            }
            _ => None,
        };
        match timed {
            Some((planned, orders)) => {
                write_planned(tx, scope, &mut edit.route, &planned, &orders, now)?;
            }
            None => {
                write_untimed(tx, scope, &mut edit.route, &kept, now)?;
            }
        }
        let mut removed = Vec::new();
        for order in &accepted {
            if order.status.as_str() == ROUTED || order.status.as_str() == OPEN {
                apply_status_event(tx, scope, order.id, OrderEvent::RemovedFromRoute, now)?;
            }
            removed.push(order.id);
        }
        record(tx, scope, &edit.route, "orders_removed", &removed, now)?;
        Ok(out.sorted())
    })
}
