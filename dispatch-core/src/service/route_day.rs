//! What the route edits (reverse, add, remove) share: the day around one route read from the
//! store (depot, the route's vehicle, the orders on it and their customers), timing a stop
//! sequence or re-solving it through the bridge, and writing the result back as the route's
//! stops and timing. Re-solving is deterministic: a fixed seed and an iteration budget, never
//! the wall clock.

use std::collections::{HashMap, HashSet};

use super::optimisation::{timing, visits};
use crate::model::customer::Customer;
use crate::model::order::Order;
use crate::model::organisation::{Depot, DepotScope};
use crate::model::reference::CapacityType;
use crate::model::route::Route;
use crate::model::stop::{Stop, StopVisit};
use crate::model::vehicle::Vehicle;
use crate::optimise::{DayRequest, PlannedRoute, Visit};
use crate::ports::store::{StoreError, StoreTx};
use crate::solver;
use crate::time::Timestamp;

/// Seed of every route re-solve: the same route and orders give the same answer.
pub const RESOLVE_SEED: u64 = 0x5eed_d15a;
/// Search iterations of one route re-solve.
pub const RESOLVE_ITERATIONS: u64 = 3_000;

/// The solver settings of a route re-solve.
pub fn resolve_config() -> solver::Config {
    solver::Config {
        seed: RESOLVE_SEED,
        threads: 1,
        max_iterations: Some(RESOLVE_ITERATIONS),
    }
}

/// A search that runs to its iteration budget.
pub struct ToBudget;

impl solver::Control for ToBudget {
    fn should_stop(&self) -> bool {
        false
    }
}

/// The day around one route.
#[derive(Debug, PartialEq)]
pub struct RouteDay {
    /// The depot.
    pub depot: Depot,
    /// The route's vehicle, when it still exists.
    pub vehicle: Option<Vehicle>,
    /// The orders the day may time: those on the route and any to add.
    pub orders: Vec<Order>,
    /// The depot's capacity types.
    pub capacity_types: Vec<CapacityType>,
    /// Customers of the orders.
    pub customers: Vec<Customer>,
}

impl RouteDay {
    /// Reads the day of `route` with `orders` (live ones; missing ones are skipped).
    pub fn read(
        tx: &mut dyn StoreTx,
        scope: DepotScope,
        route: &Route,
        order_ids: &[i64],
    ) -> Result<Option<RouteDay>, StoreError> {
        let Some(depot) = tx.get_depot(scope)? else {
            return Ok(None);
        };
        let vehicle = match route.vehicle_id {
            Some(id) => tx.get_vehicle(scope, id)?,
            None => None,
        };
        let mut orders = Vec::new();
        let mut seen = HashSet::new();
        for id in order_ids {
            if seen.insert(*id) {
                orders.extend(tx.get_order(scope, *id)?);
            }
        }
        let mut customers = Vec::new();
        let mut seen = HashSet::new();
        for id in orders.iter().filter_map(|o| o.customer_id) {
            if seen.insert(id) {
                customers.extend(tx.get_customer(scope, id)?);
            }
        }
        Ok(Some(RouteDay {
            depot,
            vehicle,
            orders,
            capacity_types: tx.list_capacity_types(scope)?,
            customers,
        }))
    }

    /// The bridge's request for this day (only the route's vehicle).
    pub fn request<'a>(&'a self, route: &Route, vehicles: &'a [Vehicle]) -> DayRequest<'a> {
        DayRequest {
            depot: &self.depot,
            date: route.date,
            orders: &self.orders,
            vehicles,
            capacity_types: &self.capacity_types,
            customers: &self.customers,
            zones: None,
            maintain_upload_sequence: false,
            only_active_vehicles: false,
        }
    }
}

/// The visits of stored stops, one list per stop.
pub fn stop_visits(stops: &[StopVisit]) -> Vec<Vec<Visit>> {
    stops
        .iter()
        .map(|s| {
            s.order_ids
                .iter()
                .map(|&order_id| Visit {
                    order_id,
                    side: s.side,
                })
                .collect()
        })
        .collect()
}

/// Writes a planned route as `route`'s stops and timing (new stop ids); `updated` is `now`.
pub fn write_planned(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route: &mut Route,
    planned: &PlannedRoute,
    orders: &[Order],
    now: Timestamp,
) -> Result<Vec<Stop>, StoreError> {
    let by_id: HashMap<i64, &Order> = orders.iter().map(|o| (o.id, o)).collect();
    let stops = visits(planned, route.date, &by_id);
    route.timing = timing(planned);
    route.updated = now;
    tx.update_route(scope, route)?;
    tx.replace_stops(scope, route.id, &stops, now)
}

/// Writes `stops` as they are (their stored times) and moves `updated`; for routes that cannot
/// be re-timed (no vehicle any more, or an order without coordinates).
pub fn write_untimed(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route: &mut Route,
    stops: &[StopVisit],
    now: Timestamp,
) -> Result<Vec<Stop>, StoreError> {
    route.updated = now;
    tx.update_route(scope, route)?;
    tx.replace_stops(scope, route.id, stops, now)
}
