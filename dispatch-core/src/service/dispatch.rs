//! Dispatch (`POST /plans/{id}/dispatch`, `POST /routes/{id}/dispatch`, `auto_dispatch`) and
//! plan deletion (`DELETE /plans/{id}`). Each runs in one write transaction: the route and plan
//! flags, every order's status change (through the one transition function) and every outbox
//! row commit together or not at all.

use super::notifications::{on_dispatch, DispatchedOrder};
use super::optimisation::JobFollowUp;
use super::orders::apply_status_event_to;
use super::plans::cancel_plan_jobs;
use super::tracking::issue_link;
use super::ServiceError;
use crate::events::DomainEvent;
use crate::model::dispatch::{
    dispatch_plan as decide_plan, dispatch_route as decide_route, DispatchDecision,
    DispatchRejection, PlanFacts, PlanTarget, RouteFacts,
};
use crate::model::driver_visit::FeedKind;
use crate::model::optimisation::Optimisation;
use crate::model::order::Order;
use crate::model::organisation::DepotScope;
use crate::model::plan::Plan;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::ports::tracking::TrackingLinks;
use crate::service::driver::feed::route_changed;
use crate::service::Found;
use crate::status::{OrderEvent, OPEN, ROUTED};
use crate::time::Timestamp;

/// What a dispatch call dispatched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dispatched {
    /// The plan.
    pub plan_id: i64,
    /// The routes this call dispatched, by id.
    pub routes: Vec<i64>,
    /// Whether the plan is dispatched now.
    pub plan_dispatched: bool,
}

/// The refusal in the envelope; `received` names what was refused and the state that refused
/// it, so a client sees which route or solution to fix without reading the description.
fn rejection(e: DispatchRejection, plan: &Plan, id: i64) -> ServiceError {
    let received = match &e {
        DispatchRejection::AlreadyDispatched => return ServiceError::AlreadyDispatched,
        DispatchRejection::StillOptimising => format!("plan {} still optimising", plan.id),
        DispatchRejection::NoSolution => {
            format!("plan {} without a finished optimisation", plan.id)
        }
        DispatchRejection::NotActiveSolution => match plan.active_solution_id {
            Some(active) => format!("solution {id} (the active one is {active})"),
            None => format!("solution {id}"),
        },
        DispatchRejection::NoVehicle(route) => format!("route {route} without a vehicle"),
        DispatchRejection::Superseded(route) => {
            format!("route {route} of an earlier optimisation")
        }
    };
    ServiceError::invalid(
        vec!["id".into()],
        "a plan or route that can be dispatched",
        &received,
        &e.to_string(),
    )
}

fn plan_facts(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    plan: &Plan,
) -> Result<PlanFacts, StoreError> {
    let optimising = tx
        .latest_optimisation_of_plan(scope, plan.id)?
        .is_some_and(|j| j.in_progress());
    let routes = tx
        .routes_of_plan(scope, plan.id)?
        .iter()
        .map(|r| RouteFacts {
            id: r.id,
            dispatched: r.dispatched,
            has_vehicle: r.vehicle_id.is_some(),
            in_active_solution: Some(r.solution_id) == plan.active_solution_id,
        })
        .collect();
    Ok(PlanFacts {
        dispatched: plan.dispatched,
        optimising,
        has_solution: plan.active_solution_id.is_some(),
        routes,
    })
}

/// The plan named by `id` (the plan's or one of its solutions') and what the id names.
fn resolve_plan(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    id: i64,
) -> Result<(Plan, PlanTarget), ServiceError> {
    if let Some(plan) = tx.get_plan(scope, id)? {
        return Ok((plan, PlanTarget::Plan));
    }
    let solution = tx.get_solution(scope, id).found("plan")?;
    let plan = tx.get_plan(scope, solution.plan_id).found("plan")?;
    let target = if plan.active_solution_id == Some(id) {
        PlanTarget::ActiveSolution
    } else {
        PlanTarget::OtherSolution
    };
    Ok((plan, target))
}

/// `POST /plans/{id}/dispatch`: `id` is the plan's or its active solution's. Every order it
/// routes gets its customer tracking link from `links`.
pub fn dispatch_plan(
    store: &dyn Store,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    id: i64,
    now: Timestamp,
) -> Result<Dispatched, ServiceError> {
    store.transaction(|tx| dispatch_plan_in(tx, links, scope, id, now))
}

/// [`dispatch_plan`] inside the caller's transaction.
fn dispatch_plan_in(
    tx: &mut dyn StoreTx,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    id: i64,
    now: Timestamp,
) -> Result<Dispatched, ServiceError> {
    let (plan, target) = resolve_plan(tx, scope, id)?;
    let facts = plan_facts(tx, scope, &plan)?;
    let decision = decide_plan(&facts, target).map_err(|e| rejection(e, &plan, id))?;
    apply(tx, links, scope, plan, decision, now)
}

/// `POST /routes/{id}/dispatch`.
pub fn dispatch_route(
    store: &dyn Store,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    id: i64,
    now: Timestamp,
) -> Result<Dispatched, ServiceError> {
    store.transaction(|tx| {
        let route = tx.get_route(scope, id).found("route")?;
        let plan = tx.get_plan(scope, route.plan_id).found("route")?;
        let facts = plan_facts(tx, scope, &plan)?;
        let decision = decide_route(&facts, id).map_err(|e| rejection(e, &plan, id))?;
        apply(tx, links, scope, plan, decision, now)
    })
}

/// Dispatches the decided routes: each becomes dispatched, its OPEN orders ROUTED (one
/// `orders.status` row each, and its customer tracking link), and the plan dispatched with
/// `plans.dispatched` when decided. An order already ROUTED by another dispatched route refuses
/// the whole dispatch: an order is on one dispatched route at most.
fn apply(
    tx: &mut dyn StoreTx,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    mut plan: Plan,
    decision: DispatchDecision,
    now: Timestamp,
) -> Result<Dispatched, ServiceError> {
    let mut routed = Vec::new();
    for &route_id in &decision.routes {
        let mut route = tx.get_route(scope, route_id).found("route")?;
        for stop in tx.list_stops(scope, route_id)? {
            for &order_id in &stop.visit.order_ids {
                let Some(order) = tx.get_order(scope, order_id)? else {
                    continue;
                };
                match order.status.as_str() {
                    OPEN => {
                        let eta = Some(clock_text(stop.visit.service_start().1));
                        routed.push(route_order(tx, links, scope, order, eta, now)?);
                    }
                    ROUTED => {
                        return Err(ServiceError::invalid(
                            vec!["id".into()],
                            "routes whose orders are not on another dispatched route",
                            &order.order_number,
                            &format!(
                                "order {} on route {route_id} is already ROUTED on another dispatched route; remove it from this route first",
                                order.order_number
                            ),
                        ))
                    }
                    // Completed or custom statuses are the driver's outcomes: kept.
                    _ => {}
                }
            }
        }
        route.dispatched = true;
        route.updated = now;
        tx.update_route(scope, &route)?;
        // The route is pushed to its driver.
        route_changed(tx, scope, &route, FeedKind::Dispatched, now)?;
    }
    // Superseded notification tasks cancelled, planned-start notifications scheduled.
    on_dispatch(tx, scope, &routed, now)?;
    if decision.plan_dispatched {
        plan.dispatched = true;
        tx.append_event(scope, &DomainEvent::PlanDispatched { id: plan.id }, now)?;
    }
    plan.updated = now;
    tx.update_plan(scope, &plan)?;
    Ok(Dispatched {
        plan_id: plan.id,
        routes: decision.routes,
        plan_dispatched: plan.dispatched,
    })
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

/// `DELETE /plans/{id}`: the plan goes with every route and stop it ever had. Orders on its
/// dispatched routes reopen (ROUTED -> OPEN, one `orders.status` row each; delivered and
/// undelivered orders keep their status) and each dispatched route fires `routes.deleted`;
/// orders on undispatched routes keep their status. A job still running for the plan is
/// cancelled. `plans.deleted` always fires.
pub fn delete_plan(
    store: &dyn Store,
    scope: DepotScope,
    id: i64,
    now: Timestamp,
) -> Result<(), ServiceError> {
    store.transaction(|tx| {
        if tx.get_plan(scope, id)?.is_none() {
            return Err(ServiceError::NotFound("plan"));
        }
        cancel_plan_jobs(tx, scope, id, "the plan was deleted", now)?;
        for route in tx.routes_of_plan(scope, id)? {
            if !route.dispatched {
                continue;
            }
            for stop in tx.list_stops(scope, route.id)? {
                for &order_id in &stop.visit.order_ids {
                    if let Some(order) = tx.get_order(scope, order_id)? {
                        let event = OrderEvent::PlanDeleted {
                            route_dispatched: true,
                        };
                        apply_status_event_to(tx, scope, order, event, now)?;
                    }
                }
            }
            tx.append_event(scope, &DomainEvent::RouteDeleted { id: route.id }, now)?;
            route_changed(tx, scope, &route, FeedKind::Deleted, now)?;
        }
        tx.delete_plan(scope, id)?;
        tx.append_event(scope, &DomainEvent::PlanDeleted { id }, now)?;
        Ok(())
    })
}

/// `settings.auto_dispatch` as the optimisation runner's follow-up: a succeeded job whose
/// request asked for it dispatches its plan in the transaction that saves its result (tracking
/// links from `links`). A plan already dispatched (or gone) is left as it is; any other
/// refusal (an order routed meanwhile by another dispatched route ...) is the job's to record.
pub struct AutoDispatch {
    /// Issues the customer tracking links of the orders it routes.
    pub links: std::sync::Arc<dyn TrackingLinks>,
}

impl JobFollowUp for AutoDispatch {
    fn with_result(
        &self,
        tx: &mut dyn StoreTx,
        job: &Optimisation,
        now: Timestamp,
    ) -> Result<(), ServiceError> {
        match dispatch_plan_in(tx, &*self.links, job.scope(), job.plan_id, now) {
            Ok(_) | Err(ServiceError::AlreadyDispatched | ServiceError::NotFound(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }
}
