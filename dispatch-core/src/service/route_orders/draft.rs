//! The snapshot a route edit is computed from: the route, its stops, every reference resolved
//! and decided, and the day around the route the bridge times it in. Read once outside any
//! transaction to compute the edit, and again in the write transaction to check that nothing
//! it was computed from changed.

use std::collections::HashSet;

use super::{EditError, EditOutcome, EditSettings, EditedOrder, OrderRef, Step};
use crate::events::DomainEvent;
use crate::model::driver_visit::FeedKind;
use crate::model::order::{Order, OrderType, Side};
use crate::model::organisation::DepotScope;
use crate::model::route::Route;
use crate::model::route_edit::{
    decide_add, decide_remove, EditFailure, OrderEditFacts, RouteEditFacts, REOPTIMIZE_STOP_LIMIT,
};
use crate::model::stop::{Stop, StopVisit};
use crate::ports::store::{StoreError, StoreTx};
use crate::service::driver::feed::route_changed;
use crate::service::route_day::{refuse_if_completed, refuse_if_superseded, RouteDay};
use crate::service::Found;
use crate::service::ServiceError;
use crate::time::Timestamp;

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

/// Whether `order` has a stop on an active route other than `route_id`: a dispatched route its
/// driver has not completed, or one of its plan's current optimisation.
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
            if r.completed_ts.is_none() {
                return Ok(true);
            }
            continue;
        }
        if let Some(plan) = tx.get_plan(scope, r.plan_id)? {
            if plan.active_solution_id == Some(r.solution_id) {
                return Ok(true);
            }
        }
    }
    Ok(false)
}

pub(super) fn served_side(order: &Order) -> Side {
    if order.kind == OrderType::Pickup {
        Side::Pickup
    } else {
        Side::Delivery
    }
}

/// The route being edited as read.
#[derive(Debug)]
pub(super) struct Edit {
    pub(super) route: Route,
    stops: Vec<Stop>,
    remembered: Vec<i64>,
    facts: RouteEditFacts,
}

/// Equal when an edit computed from one holds for the other: the same stops, remembered orders
/// and decisions, and the same route as far as the computation reads it (vehicle, date, timing,
/// dispatch). What a driver's positions change on a route (its actual distance, `updated`)
/// does not make an edit compute again; the write transaction writes over the route as it is
/// then.
impl PartialEq for Edit {
    fn eq(&self, other: &Edit) -> bool {
        let basis = |r: &Route| (r.id, r.vehicle_id, r.date, r.timing.clone(), r.dispatched);
        basis(&self.route) == basis(&other.route)
            && self.stops == other.stops
            && self.remembered == other.remembered
            && self.facts == other.facts
    }
}

fn open_edit(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route_id: i64,
    settings: EditSettings,
) -> Result<Edit, ServiceError> {
    let route = tx.get_route(scope, route_id).found("route")?;
    refuse_if_superseded(tx, scope, &route, "its orders cannot be changed")?;
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
pub(super) fn record(
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

    /// An undispatched route and its stops, to be re-timed as they are.
    pub(super) fn as_is(route: Route, stops: Vec<Stop>) -> Edit {
        Edit {
            route,
            stops,
            remembered: Vec::new(),
            facts: RouteEditFacts {
                dispatched: false,
                allow_dispatched: false,
            },
        }
    }
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

/// What an add is computed from.
#[derive(Debug, PartialEq)]
pub(super) struct AddDraft {
    pub(super) edit: Edit,
    pub(super) out: EditOutcome,
    /// The accepted orders, and the request position of each.
    pub(super) accepted: Vec<Order>,
    pub(super) entry_of: Vec<usize>,
    /// The route's stops as they are.
    pub(super) present: Vec<StopVisit>,
    pub(super) day: Option<RouteDay>,
}

/// Reads what `POST /routes/{id}/add-orders` is computed from; `Done` when nothing is to be
/// written (no order accepted, or the route too long to re-solve).
pub(super) fn add(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route_id: i64,
    refs: &[OrderRef],
    settings: EditSettings,
) -> Result<Step<AddDraft>, ServiceError> {
    let edit = open_edit(tx, scope, route_id, settings)?;
    // Whatever `allow_dispatched` says: the driver is back, a stop added now would never be
    // visited, yet its order would count as routed.
    refuse_if_completed(&edit.route, "orders cannot be added to it")?;
    let mut out = EditOutcome::new(route_id);
    let (accepted, entry_of) = decide_all(tx, scope, &edit, refs, &mut out, Edit::ADD)?;
    if accepted.is_empty() {
        return Ok(Step::Done(out.sorted()));
    }
    if settings.reoptimize && edit.stops.len() + accepted.len() > REOPTIMIZE_STOP_LIMIT {
        for (order, position) in accepted.iter().zip(&entry_of) {
            out.fail(*position, EditFailure::ReoptimizeLimit, order);
        }
        return Ok(Step::Done(out.sorted()));
    }
    let present: Vec<StopVisit> = edit.stops.iter().map(|s| s.visit.clone()).collect();
    let mut ids: Vec<i64> = present.iter().flat_map(|s| s.order_ids.clone()).collect();
    ids.extend(accepted.iter().map(|o| o.id));
    let day = RouteDay::read(tx, scope, &edit.route, &ids)?;
    Ok(Step::Edit(AddDraft {
        edit,
        out,
        accepted,
        entry_of,
        present,
        day,
    }))
}

/// What a removal is computed from.
#[derive(Debug, PartialEq)]
pub(super) struct RemoveDraft {
    pub(super) edit: Edit,
    pub(super) out: EditOutcome,
    /// The orders to take off the route.
    pub(super) accepted: Vec<Order>,
    /// The stops that stay, rebuilt where they lose orders.
    pub(super) kept: Vec<StopVisit>,
    pub(super) day: Option<RouteDay>,
}

/// Reads what `POST /routes/{id}/remove-orders` is computed from; `Done` when no order is to
/// be removed.
pub(super) fn remove(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route_id: i64,
    refs: &[OrderRef],
    settings: EditSettings,
) -> Result<Step<RemoveDraft>, ServiceError> {
    let edit = open_edit(tx, scope, route_id, settings)?;
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
        return Ok(Step::Done(out.sorted()));
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
                visit.show_contact_of(&first);
            }
            visit.order_ids = rest;
        }
        kept.push(visit);
    }
    let ids: Vec<i64> = kept.iter().flat_map(|s| s.order_ids.clone()).collect();
    let day = RouteDay::read(tx, scope, &edit.route, &ids)?;
    Ok(Step::Edit(RemoveDraft {
        edit,
        out,
        accepted,
        kept,
        day,
    }))
}
