//! Reads of plans, routes and optimisations, shaped for rendering: a route comes with its
//! stops, the orders each stop serves and its vehicle; a plan with the routes it shows
//! ([`Plan::shows_route`]) and the unserved orders of its active solution.

use std::collections::HashMap;

use super::customers::catalog;
use super::stop_records::{DriverReadSettings, RouteDriverRecords, RouteProof, StopDriverView};
use super::ServiceError;
use crate::model::optimisation::Optimisation;
use crate::model::order::Order;
use crate::model::order_fields::Catalog;
use crate::model::organisation::DepotScope;
use crate::model::plan::{Plan, UnservedOrder};
use crate::model::pod::{StopProof, SubmissionRef};
use crate::model::route::Route;
use crate::model::stop::Stop;
use crate::model::vehicle::Vehicle;
use crate::paging::{Page, PageRequest};
use crate::ports::store::{RouteSummary, Store, StoreError, StoreTx};
use crate::service::Found;

/// A stop with the orders it serves.
#[derive(Debug, Clone, PartialEq)]
pub struct StopView {
    /// The stop.
    pub stop: Stop,
    /// Its live orders, in the stop's order.
    pub orders: Vec<Order>,
    /// What the driver side recorded on it.
    pub driver: StopDriverView,
    /// Its proof of delivery and tracking token.
    pub proof: StopProof,
}

/// A route with its stops and vehicle.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteView {
    /// The route.
    pub route: Route,
    /// Its stops in sequence.
    pub stops: Vec<StopView>,
    /// Its vehicle, unless deleted.
    pub vehicle: Option<Vehicle>,
    /// Questionnaire submissions made on it (route-level and at its stops).
    pub submissions: Vec<SubmissionRef>,
}

/// An unserved order of a plan's active solution.
#[derive(Debug, Clone, PartialEq)]
pub struct UnservedView {
    /// Order and reason.
    pub entry: UnservedOrder,
    /// The order (a deleted one is left out of the list, as the spec leaves deleted records
    /// out of every list).
    pub order: Order,
}

/// A full plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanView {
    /// The plan.
    pub plan: Plan,
    /// The routes it shows, by id.
    pub routes: Vec<RouteView>,
    /// Unserved orders of the active solution.
    pub unserved: Vec<UnservedView>,
    /// Its latest optimisation.
    pub optimisation: Option<Optimisation>,
    /// Names of the depot's custom fields (for stop reads).
    pub catalog: Catalog,
}

/// A plan in a list.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanSummaryView {
    /// The plan.
    pub plan: Plan,
    /// The routes it shows, by id, with their stop counts.
    pub routes: Vec<RouteSummary>,
}

/// Orders read once per request, whatever number of stops name them, and the depot's settings
/// the driver-side views need (read once, not per route).
#[derive(Default)]
pub struct OrderCache {
    orders: HashMap<i64, Option<Order>>,
    settings: Option<DriverReadSettings>,
}

impl OrderCache {
    /// The live order `id` of the depot.
    pub fn get(
        &mut self,
        tx: &mut dyn StoreTx,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<Order>, StoreError> {
        if let Some(found) = self.orders.get(&id) {
            return Ok(found.clone());
        }
        let found = tx.get_order(scope, id)?;
        self.orders.insert(id, found.clone());
        Ok(found)
    }

    /// The depot's settings for the driver-side views.
    pub fn settings(
        &mut self,
        tx: &mut dyn StoreTx,
        scope: DepotScope,
    ) -> Result<DriverReadSettings, StoreError> {
        if let Some(settings) = self.settings {
            return Ok(settings);
        }
        let settings = DriverReadSettings::read(tx, scope)?;
        self.settings = Some(settings);
        Ok(settings)
    }
}

/// One stop of a route as reads show it: its live orders, the driver's records, its proof.
pub fn stop_view(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    stop: Stop,
    records: &RouteDriverRecords,
    proof: &RouteProof,
    orders: &mut OrderCache,
) -> Result<StopView, StoreError> {
    let mut served = Vec::with_capacity(stop.visit.order_ids.len());
    for id in &stop.visit.order_ids {
        served.extend(orders.get(tx, scope, *id)?);
    }
    Ok(StopView {
        driver: records.of(&stop),
        proof: proof.of(&stop),
        stop,
        orders: served,
    })
}

/// A route with its stops, their orders and its vehicle. The driver's records and the proof of
/// delivery are read once for the route, not per stop.
pub fn route_view(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route: Route,
    orders: &mut OrderCache,
) -> Result<RouteView, StoreError> {
    let settings = orders.settings(tx, scope)?;
    let records = RouteDriverRecords::read_with(tx, scope, route.id, settings)?;
    let listed = tx.list_stops(scope, route.id)?;
    let proof = RouteProof::read(tx, scope, route.id, &listed)?;
    let mut stops = Vec::with_capacity(listed.len());
    for stop in listed {
        stops.push(stop_view(tx, scope, stop, &records, &proof, orders)?);
    }
    let vehicle = match route.vehicle_id {
        Some(id) => tx.get_vehicle(scope, id)?,
        None => None,
    };
    let submissions = tx.submissions_of_route(scope, route.id)?;
    Ok(RouteView {
        route,
        stops,
        vehicle,
        submissions,
    })
}

/// The routes a plan shows, by id.
pub fn plan_routes(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    plan: &Plan,
) -> Result<Vec<Route>, StoreError> {
    Ok(tx
        .routes_of_plan(scope, plan.id)?
        .into_iter()
        .filter(|r| plan.shows_route(r))
        .collect())
}

/// Whether the plan's newest job is queued or running. Plan reads then show no routes and no
/// unserved orders, re-optimisation included: the spec's clients poll until `routes` or
/// `unserved` is non-empty, and the previous solution's would end their wait at once.
fn optimising(latest: Option<&Optimisation>) -> bool {
    latest.is_some_and(Optimisation::in_progress)
}

/// `GET /plans/{id}`: 404 when not in the depot; no routes or unserved orders while its newest
/// job is queued or running.
pub fn get_plan(store: &dyn Store, scope: DepotScope, id: i64) -> Result<PlanView, ServiceError> {
    store.read(|tx| {
        let plan = tx.get_plan(scope, id).found("plan")?;
        let optimisation = tx.latest_optimisation_of_plan(scope, plan.id)?;
        let mut orders = OrderCache::default();
        let mut routes = Vec::new();
        let mut unserved = Vec::new();
        if !optimising(optimisation.as_ref()) {
            for route in plan_routes(tx, scope, &plan)? {
                routes.push(route_view(tx, scope, route, &mut orders)?);
            }
            if let Some(solution) = plan.active_solution_id {
                if let Some(solution) = tx.get_solution(scope, solution)? {
                    for entry in solution.unserved {
                        if let Some(order) = orders.get(tx, scope, entry.order_id)? {
                            unserved.push(UnservedView { entry, order });
                        }
                    }
                }
            }
        }
        Ok(PlanView {
            plan,
            routes,
            unserved,
            optimisation,
            catalog: catalog(tx, scope)?,
        })
    })
}

/// `GET /plans`: most recently updated first; a plan whose newest job is queued or running
/// shows no routes, as in [`get_plan`].
pub fn list_plans(
    store: &dyn Store,
    scope: DepotScope,
    page: &PageRequest,
) -> Result<Page<PlanSummaryView>, ServiceError> {
    store.read(|tx| {
        let plans = tx.list_plans(scope, page)?;
        let mut items = Vec::with_capacity(plans.items.len());
        for plan in plans.items {
            let mut routes = Vec::new();
            if !optimising(tx.latest_optimisation_of_plan(scope, plan.id)?.as_ref()) {
                for route in plan_routes(tx, scope, &plan)? {
                    let stops = tx.list_stops(scope, route.id)?.len() as u32;
                    routes.push(RouteSummary { route, stops });
                }
            }
            items.push(PlanSummaryView { plan, routes });
        }
        Ok(Page {
            items,
            next: plans.next,
        })
    })
}

/// `GET /routes/{id}`: any route of the depot, superseded ones included, with the names of
/// the depot's custom fields; 404 otherwise.
pub fn get_route(
    store: &dyn Store,
    scope: DepotScope,
    id: i64,
) -> Result<(RouteView, Catalog), ServiceError> {
    store.read(|tx| {
        let route = tx.get_route(scope, id).found("route")?;
        let view = route_view(tx, scope, route, &mut OrderCache::default())?;
        Ok((view, catalog(tx, scope)?))
    })
}

/// `GET /routes`: every route of the depot across all plans, most recently updated first.
pub fn list_routes(
    store: &dyn Store,
    scope: DepotScope,
    page: &PageRequest,
) -> Result<Page<RouteSummary>, ServiceError> {
    Ok(store.read(|tx| tx.list_routes(scope, page))?)
}

/// `GET /plans/optimise/{id}`: the job and its plan; 404 when not in the depot.
pub fn get_optimisation(
    store: &dyn Store,
    scope: DepotScope,
    id: &str,
) -> Result<(Optimisation, Plan), ServiceError> {
    store.read(|tx| {
        let job = tx.get_optimisation(scope, id).found("optimisation")?;
        let plan = tx.get_plan(scope, job.plan_id).found("optimisation")?;
        Ok((job, plan))
    })
}

/// `GET /plans/optimise/{id}/problem`: the VROOM-style problem the job solved, while kept;
/// 404 otherwise.
pub fn get_problem(store: &dyn Store, scope: DepotScope, id: &str) -> Result<String, ServiceError> {
    store
        .read(|tx| tx.get_problem(scope, id))?
        .ok_or(ServiceError::NotFound("optimisation problem"))
}
