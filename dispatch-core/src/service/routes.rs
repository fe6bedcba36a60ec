//! Route edits that are not about orders: `PUT /routes/{id}` (the `is_locked` flag, stored and
//! not enforced) and `POST /routes/{id}/reverse`.

use super::plan_reads::{route_view, OrderCache, RouteView};
use super::route_day::{
    refuse_if_completed, refuse_if_superseded, stop_visits, write_planned, write_untimed, RouteDay,
};
use super::ServiceError;
use crate::events::DomainEvent;
use crate::model::driver_visit::FeedKind;
use crate::model::organisation::DepotScope;
use crate::model::stop::StopVisit;
use crate::optimise;
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::Store;
use crate::service::driver::feed::route_changed;
use crate::service::Found;
use crate::time::Timestamp;

/// `PUT /routes/{id}`: sets `is_locked` when given (a partial update: `None` changes nothing);
/// the route's `updated` moves only when the flag changes. A route a re-optimisation replaced
/// is refused as its other edits are ([`refuse_if_superseded`]).
pub fn set_locked(
    store: &dyn Store,
    scope: DepotScope,
    id: i64,
    locked: Option<bool>,
    now: Timestamp,
) -> Result<RouteView, ServiceError> {
    store.transaction_in(scope, |tx| {
        let mut route = tx.get_route(scope, id).found("route")?;
        refuse_if_superseded(tx, scope, &route, "it cannot be locked or unlocked")?;
        if let Some(locked) = locked.filter(|l| *l != route.is_locked) {
            route.is_locked = locked;
            route.updated = now;
            tx.update_route(scope, &route)?;
        }
        Ok(route_view(tx, scope, route, &mut OrderCache::default())?)
    })
}

/// `POST /routes/{id}/reverse`: the stops in the opposite order (start, end and breaks stay in
/// place), re-timed with the travel matrix, under new stop ids. Fewer than two stops: 400. A
/// dispatched route writes the audit log and fires `routes.edited`. A route that cannot be
/// re-timed (its vehicle was deleted) keeps each position's stored times. A route its driver
/// completed, or one a re-optimisation replaced: 400.
pub fn reverse(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    scope: DepotScope,
    id: i64,
    now: Timestamp,
) -> Result<RouteView, ServiceError> {
    store.transaction_in(scope, |tx| {
        let mut route = tx.get_route(scope, id).found("route")?;
        refuse_if_completed(&route, "it cannot be reversed")?;
        refuse_if_superseded(tx, scope, &route, "it cannot be reversed")?;
        let stops = tx.list_stops(scope, id)?;
        if stops.len() < 2 {
            return Err(ServiceError::invalid(
                vec!["id".into()],
                "a route with at least two stops",
                &format!("{} stops", stops.len()),
                "a route needs at least two stops to be reversed",
            ));
        }
        let reversed: Vec<StopVisit> = stops.iter().rev().map(|s| s.visit.clone()).collect();
        let ids: Vec<i64> = reversed.iter().flat_map(|s| s.order_ids.clone()).collect();
        let day = RouteDay::read(tx, scope, &route, &ids)?;
        let planned = match (&day, day.as_ref().and_then(|d| d.vehicle.clone())) {
            (Some(day), Some(vehicle)) => {
                let vehicles = [vehicle.clone()];
                let req = day.request(&route, &vehicles);
                optimise::time_route(&req, matrix, vehicle.id, &stop_visits(&reversed))
                    .ok()
                    .map(|p| (p, day.orders.clone()))
            }
            _ => None,
        };
        match planned {
            Some((planned, orders)) => {
                write_planned(tx, scope, &mut route, &planned, &orders, now)?;
            }
            None => {
                let slots: Vec<StopVisit> = reversed
                    .into_iter()
                    .zip(&stops)
                    .map(|(mut visit, slot)| {
                        visit.arrival_date = slot.visit.arrival_date;
                        visit.arrival_s = slot.visit.arrival_s;
                        visit.departure_date = slot.visit.departure_date;
                        visit.departure_s = slot.visit.departure_s;
                        visit
                    })
                    .collect();
                write_untimed(tx, scope, &mut route, &slots, now)?;
            }
        }
        if route.dispatched {
            tx.append_route_audit(scope, id, "reversed", &ids, now)?;
            tx.append_event(scope, &DomainEvent::RouteEdited { id }, now)?;
            route_changed(tx, scope, &route, FeedKind::Edited, now)?;
        }
        Ok(route_view(tx, scope, route, &mut OrderCache::default())?)
    })
}
