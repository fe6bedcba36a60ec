//! What the use cases on routes (dispatch, re-optimisation, reverse, add, remove) share: the
//! day around one route read from the store (depot, the route's vehicle, the orders on it and
//! their customers), timing a stop sequence or re-solving it through the bridge, a solved
//! route's stops and timing, writing them back, the refusals every route edit makes, and an
//! order routed onto a dispatched route. Re-solving is deterministic: a fixed seed and an iteration budget, never
//! the wall clock.

use std::collections::{HashMap, HashSet};

use super::notifications::DispatchedOrder;
use super::order_events::apply_status_event_to;
use super::tracking::issue_link;
use super::{Found, ServiceError};
use crate::model::customer::Customer;
use crate::model::order::Order;
use crate::model::organisation::{Depot, DepotScope};
use crate::model::reference::CapacityType;
use crate::model::route::{Route, RouteBreak, RouteTiming};
use crate::model::stop::{Stop, StopVisit};
use crate::model::vehicle::Vehicle;
use crate::optimise::{DayRequest, DayTime, PlannedRoute, Visit};
use crate::ports::store::{StoreError, StoreTx};
use crate::ports::tracking::TrackingLinks;
use crate::solver;
use crate::status::OrderEvent;
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
            // A route's planned times are re-timed as planned (its stops done earlier in the
            // day included); what the driver does now is the live estimate's business.
            not_before: None,
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

/// How many times an edit is computed when its route keeps changing while it is computed.
pub const EDIT_ATTEMPTS: usize = 3;

/// Refuses an edit of a route its driver has completed (400 INVALID_INPUT at `id`): stops
/// added or re-sequenced then would never be driven, and the route's record of the day would
/// change after the fact. `what` says what was refused.
pub fn refuse_if_completed(route: &Route, what: &str) -> Result<(), ServiceError> {
    match route.completed_ts {
        Some(_) => Err(ServiceError::invalid(
            vec!["id".into()],
            "a route its driver has not completed",
            "a completed route",
            &format!("the route is completed by its driver: {what}"),
        )),
        None => Ok(()),
    }
}

/// Refuses an edit of a route left behind by a re-optimisation (400 INVALID_INPUT at `id`):
/// its plan no longer shows it and it can never be dispatched, so a change to it would be
/// lost work; the plan's current routes are the ones to edit. A route dispatched from an
/// earlier solution stays on its plan and may be edited. `what` says what was refused.
pub fn refuse_if_superseded(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route: &Route,
    what: &str,
) -> Result<(), ServiceError> {
    let plan = tx.get_plan(scope, route.plan_id).found("route")?;
    if plan.shows_route(route) {
        return Ok(());
    }
    Err(ServiceError::invalid(
        vec!["id".into()],
        "a route of its plan's current optimisation, or a dispatched route",
        &format!("route {} of an earlier optimisation", route.id),
        &format!(
            "route {} was replaced by a re-optimisation of plan {}: {what}",
            route.id, plan.id
        ),
    ))
}

/// An OPEN order on a route being dispatched (or on a dispatched route it joins): ROUTED, with
/// its `orders.status` event, and its customer tracking link. Returns what the dispatch
/// notifications need of it.
pub(crate) fn route_order(
    tx: &mut dyn StoreTx,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    order: Order,
    eta: Option<String>,
    now: Timestamp,
) -> Result<DispatchedOrder, ServiceError> {
    let order_id = order.id;
    apply_status_event_to(tx, scope, order, OrderEvent::Dispatched, now)?;
    let link = issue_link(tx, scope, order_id, links, now)?;
    Ok(DispatchedOrder {
        order_id,
        eta,
        tracking_link: Some(link),
    })
}

/// `HH:mm` of seconds after midnight.
pub(crate) fn clock_text(seconds: i64) -> String {
    let m = seconds.rem_euclid(86_400) / 60;
    format!("{:02}:{:02}", m / 60, m % 60)
}

pub(crate) fn timing(r: &PlannedRoute) -> RouteTiming {
    RouteTiming {
        start_time_s: r.start_time.seconds(),
        end_time_s: r.end_time.seconds(),
        total_time_s: r.total_time_s,
        travel_time_s: r.travel_time_s,
        operation_time_s: r.operation_time_s(),
        distance_m: r.distance_m,
        breaks: r
            .breaks
            .iter()
            .map(|b| RouteBreak {
                start_s: b.start.seconds(),
                end_s: b.end.seconds(),
            })
            .collect(),
    }
}

pub(crate) fn visits(
    r: &PlannedRoute,
    date: crate::time::Date,
    orders: &HashMap<i64, &Order>,
) -> Vec<StopVisit> {
    let clock = |t: DayTime| (t.date(date), t.seconds().rem_euclid(86_400));
    r.stops
        .iter()
        .map(|s| {
            let side = s
                .sides
                .first()
                .copied()
                .unwrap_or(crate::model::order::Side::Delivery);
            let end = s
                .order_ids
                .first()
                .and_then(|id| orders.get(id))
                .map(|o| o.endpoint(side));
            let (arrival_date, arrival_s) = clock(s.arrival);
            let (departure_date, departure_s) = clock(s.departure);
            let wait_s = (s.service_start.seconds() - s.arrival.seconds()).max(0);
            StopVisit {
                order_ids: s.order_ids.clone(),
                side,
                lat: Some(s.location.lat),
                lng: Some(s.location.lng),
                address: end.and_then(|e| e.address.clone()),
                postcode: end.and_then(|e| e.postcode.clone()),
                phone: end.and_then(|e| e.contact_number.clone()),
                arrival_date,
                arrival_s,
                wait_s,
                departure_date,
                departure_s,
                planned_distance_m: s.planned_distance_m,
            }
        })
        .collect()
}

/// `visits` of a solved route without the orders deleted while the job solved the day it
/// read (`live`: the planned orders still live, asked once for the whole day with
/// [`StoreTx::live_order_ids`], not once per stop inside the write transaction that saves the
/// job): a stop serving no live order would show `orders: []` on every read and be driven for
/// nothing once dispatched. A stop left without orders goes; a shared stop takes the address
/// and contact of its first order left, as the day read them (`orders`), like every other
/// stop. The other stops keep their solved times.
pub(crate) fn live_visits(
    visits: Vec<StopVisit>,
    live: &HashSet<i64>,
    orders: &HashMap<i64, &Order>,
) -> Vec<StopVisit> {
    let mut kept_visits = Vec::with_capacity(visits.len());
    for mut visit in visits {
        let kept: Vec<i64> = visit
            .order_ids
            .iter()
            .copied()
            .filter(|id| live.contains(id))
            .collect();
        let Some(first) = kept.first() else {
            continue;
        };
        if kept.len() < visit.order_ids.len() {
            if let Some(first) = orders.get(first) {
                visit.show_contact_of(first);
            }
            visit.order_ids = kept;
        }
        kept_visits.push(visit);
    }
    kept_visits
}
