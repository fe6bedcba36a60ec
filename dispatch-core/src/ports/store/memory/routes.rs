//! The in-memory route repository: routes and their stops.

use super::orders::page_of;
use super::State;
use crate::model::organisation::DepotScope;
use crate::model::route::{NewRoute, Route};
use crate::model::stop::{Stop, StopVisit};
use crate::paging::{Page, PageRequest};
use crate::ports::store::{RouteRepo, RouteSummary, StoreError};
use crate::time::{Date, Timestamp};

impl State {
    /// The stores' rule "an order is on one active route at most" (the SQL stores hold it as a
    /// unique key): when route `route_id` is active (dispatched, not completed), none of its
    /// orders may have a stop on another active route.
    fn check_active_orders(&self, route_id: i64) -> Result<(), StoreError> {
        let planning = &self.planning;
        let active = |r: &Route| r.dispatched && r.completed_ts.is_none();
        if !planning
            .routes
            .iter()
            .any(|r| r.id == route_id && active(r))
        {
            return Ok(());
        }
        let others: Vec<i64> = planning
            .routes
            .iter()
            .filter(|r| r.id != route_id && active(r))
            .map(|r| r.id)
            .collect();
        let stops_of = |route: i64| {
            planning
                .stops
                .iter()
                .filter(move |(_, s)| s.route_id == route)
                .flat_map(|(_, s)| s.visit.order_ids.iter().copied())
        };
        for order in stops_of(route_id) {
            if others.iter().any(|&o| stops_of(o).any(|x| x == order)) {
                return Err(StoreError::Conflict(format!(
                    "order {order} of route {route_id} is already on another dispatched route"
                )));
            }
        }
        Ok(())
    }
}

impl RouteRepo for State {
    fn insert_route(
        &mut self,
        scope: DepotScope,
        route: &NewRoute,
        now: Timestamp,
    ) -> Result<Route, StoreError> {
        let route = route.stored(self.id(), scope.depot_id, now);
        self.planning.routes.push(route.clone());
        Ok(route)
    }

    fn get_route(&mut self, scope: DepotScope, id: i64) -> Result<Option<Route>, StoreError> {
        Ok(self
            .planning
            .routes
            .iter()
            .find(|r| r.depot_id == scope.depot_id && r.id == id)
            .cloned())
    }

    fn update_route(&mut self, scope: DepotScope, route: &Route) -> Result<bool, StoreError> {
        match self
            .planning
            .routes
            .iter_mut()
            .find(|r| r.depot_id == scope.depot_id && r.id == route.id)
        {
            Some(slot) => {
                *slot = Route {
                    depot_id: slot.depot_id,
                    plan_id: slot.plan_id,
                    solution_id: slot.solution_id,
                    date: slot.date,
                    created: slot.created,
                    ..route.clone()
                };
                self.check_active_orders(route.id)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn list_routes(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<RouteSummary>, StoreError> {
        let planning = &self.planning;
        let rows = planning
            .routes
            .iter()
            .filter(|r| r.depot_id == scope.depot_id)
            .map(|r| {
                let stops = planning
                    .stops
                    .iter()
                    .filter(|(_, s)| s.route_id == r.id)
                    .count() as u32;
                (
                    r.updated,
                    r.id,
                    RouteSummary {
                        route: r.clone(),
                        stops,
                    },
                )
            })
            .collect();
        Ok(page_of(rows, page))
    }

    fn routes_of_plan(
        &mut self,
        scope: DepotScope,
        plan_id: i64,
    ) -> Result<Vec<Route>, StoreError> {
        Ok(self
            .planning
            .routes
            .iter()
            .filter(|r| r.depot_id == scope.depot_id && r.plan_id == plan_id)
            .cloned()
            .collect())
    }

    fn routes_on_date(&mut self, scope: DepotScope, date: Date) -> Result<Vec<Route>, StoreError> {
        Ok(self
            .planning
            .routes
            .iter()
            .filter(|r| r.depot_id == scope.depot_id && r.date == date)
            .cloned()
            .collect())
    }

    fn routes_of_order(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Vec<Route>, StoreError> {
        let planning = &self.planning;
        Ok(planning
            .routes
            .iter()
            .filter(|r| {
                r.depot_id == scope.depot_id
                    && planning
                        .stops
                        .iter()
                        .any(|(_, s)| s.route_id == r.id && s.visit.order_ids.contains(&order_id))
            })
            .cloned()
            .collect())
    }

    fn list_stops(&mut self, scope: DepotScope, route_id: i64) -> Result<Vec<Stop>, StoreError> {
        let mut stops: Vec<Stop> = self
            .planning
            .stops
            .iter()
            .filter(|(d, s)| *d == scope.depot_id && s.route_id == route_id)
            .map(|(_, s)| s.clone())
            .collect();
        stops.sort_by_key(|s| s.sequence);
        Ok(stops)
    }

    fn replace_stops(
        &mut self,
        scope: DepotScope,
        route_id: i64,
        visits: &[StopVisit],
        now: Timestamp,
    ) -> Result<Vec<Stop>, StoreError> {
        if self.get_route(scope, route_id)?.is_none() {
            return Err(StoreError::Backend(format!(
                "route {route_id} is not in the depot"
            )));
        }
        self.planning.stops.retain(|(_, s)| s.route_id != route_id);
        let mut out = Vec::with_capacity(visits.len());
        for (sequence, visit) in visits.iter().enumerate() {
            let stop = Stop {
                id: self.id(),
                route_id,
                sequence: sequence as u32,
                visit: visit.clone(),
                actual_completed_ts: None,
                created: now,
            };
            self.planning.stops.push((scope.depot_id, stop.clone()));
            out.push(stop);
        }
        self.check_active_orders(route_id)?;
        Ok(out)
    }
}
