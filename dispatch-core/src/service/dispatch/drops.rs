//! The live order book at dispatch: a route planned earlier may serve orders that were deleted,
//! completed, routed by another dispatched route or re-dated since. Those orders are dropped
//! from the route before it is dispatched ([`crate::model::dispatch::drop_reason`]), and the
//! route is re-timed without them.
//!
//! Re-timing needs the travel matrix (a routing server, perhaps), which never runs inside a
//! write transaction: a dispatch reads its draft in the write transaction, and when the draft
//! drops orders from a route that no timing was computed for, the transaction ends without a
//! change, the remaining stops are timed outside it, and the dispatch runs again with that
//! timing; the timing is used only when the draft read again is the one it was computed from.

use std::collections::{HashMap, HashSet};

use crate::model::dispatch::{drop_reason, DispatchDecision, DropReason, OrderFacts};
use crate::model::organisation::DepotScope;
use crate::model::plan::Plan;
use crate::model::route::Route;
use crate::model::stop::{Stop, StopVisit};
use crate::optimise::{self, PlannedRoute};
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::{StoreError, StoreTx};
use crate::service::route_day::{stop_visits, RouteDay};
use crate::service::Found;
use crate::service::ServiceError;

/// An order a dispatch left off its route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DroppedOrder {
    /// The order.
    pub id: i64,
    /// Its number.
    pub order_number: String,
    /// Why it was not dispatched.
    pub reason: DropReason,
    /// The route it was dropped from.
    pub route_id: i64,
}

/// One route a dispatch sends, as read in its transaction.
#[derive(Debug, PartialEq)]
pub(super) struct RouteDraft {
    pub route: Route,
    pub stops: Vec<Stop>,
    pub dropped: Vec<DroppedOrder>,
    /// The stops without the dropped orders (only when some are dropped).
    pub kept: Vec<StopVisit>,
    /// The day the kept stops are timed in (only when some are dropped).
    pub day: Option<RouteDay>,
}

/// What a dispatch call does, as read in its transaction.
#[derive(Debug, PartialEq)]
pub(super) struct DispatchDraft {
    pub plan: Plan,
    pub decision: DispatchDecision,
    pub routes: Vec<RouteDraft>,
}

impl DispatchDraft {
    /// Whether a route of the call loses orders.
    pub fn drops(&self) -> bool {
        self.routes.iter().any(|r| !r.dropped.is_empty())
    }
}

/// The kept stops of the routes that lose orders, timed by the travel matrix (`None`: the route
/// cannot be timed, its stops keep their times).
pub(super) type Timing = HashMap<i64, Option<PlannedRoute>>;

/// Reads the routes of `decision` and decides which of their orders stay.
pub(super) fn draft(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    plan: Plan,
    decision: DispatchDecision,
) -> Result<DispatchDraft, ServiceError> {
    let mut routes = Vec::with_capacity(decision.routes.len());
    for &route_id in &decision.routes {
        let route = tx.get_route(scope, route_id).found("route")?;
        routes.push(route_draft(tx, scope, route)?);
    }
    Ok(DispatchDraft {
        plan,
        decision,
        routes,
    })
}

fn route_draft(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route: Route,
) -> Result<RouteDraft, ServiceError> {
    let stops = tx.list_stops(scope, route.id)?;
    let mut seen = HashSet::new();
    let mut dropped = Vec::new();
    for stop in &stops {
        for &order_id in &stop.visit.order_ids {
            if !seen.insert(order_id) {
                continue;
            }
            let Some(found) = tx.find_order_by_id(scope, order_id)? else {
                continue;
            };
            let facts = if found.deleted {
                OrderFacts::Deleted
            } else {
                OrderFacts::Live {
                    on_other_active_route: on_other_active_route(tx, scope, route.id, order_id)?,
                    status: found.order.status.clone(),
                    delivery_date: found.order.delivery_date,
                }
            };
            if let Some(reason) = drop_reason(route.date, &facts) {
                dropped.push(DroppedOrder {
                    id: order_id,
                    order_number: found.order.order_number,
                    reason,
                    route_id: route.id,
                });
            }
        }
    }
    if dropped.is_empty() {
        return Ok(RouteDraft {
            route,
            stops,
            dropped,
            kept: Vec::new(),
            day: None,
        });
    }
    let gone: HashSet<i64> = dropped.iter().map(|d| d.id).collect();
    let mut kept = Vec::new();
    for stop in &stops {
        let mut visit = stop.visit.clone();
        let before = visit.order_ids.len();
        visit.order_ids.retain(|o| !gone.contains(o));
        let Some(&first) = visit.order_ids.first() else {
            continue;
        };
        if visit.order_ids.len() < before {
            // A shared stop takes the address and contact of its first order left.
            if let Some(first) = tx.get_order(scope, first)? {
                visit.show_contact_of(&first);
            }
        }
        kept.push(visit);
    }
    let ids: Vec<i64> = kept.iter().flat_map(|s| s.order_ids.clone()).collect();
    let day = RouteDay::read(tx, scope, &route, &ids)?;
    Ok(RouteDraft {
        route,
        stops,
        dropped,
        kept,
        day,
    })
}

/// Whether the order has a stop on another route that is dispatched and not completed.
fn on_other_active_route(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route_id: i64,
    order_id: i64,
) -> Result<bool, StoreError> {
    Ok(tx
        .routes_of_order(scope, order_id)?
        .iter()
        .any(|r| r.id != route_id && r.dispatched && r.completed_ts.is_none()))
}

/// Times the kept stops of every route of `draft` that loses orders, in their order (as a
/// removal without `reoptimize` times them).
pub(super) fn time_kept(draft: &DispatchDraft, matrix: &dyn TravelMatrix) -> Timing {
    draft
        .routes
        .iter()
        .filter(|r| !r.dropped.is_empty())
        .map(|r| {
            let timed = r.day.as_ref().and_then(|day| {
                let vehicle = day.vehicle.clone()?;
                let vehicles = [vehicle];
                let req = day.request(&r.route, &vehicles);
                optimise::time_route(&req, matrix, vehicles[0].id, &stop_visits(&r.kept)).ok()
            });
            (r.route.id, timed)
        })
        .collect()
}
