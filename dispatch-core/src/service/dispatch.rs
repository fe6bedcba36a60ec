//! Dispatch (`POST /plans/{id}/dispatch`, `POST /routes/{id}/dispatch`, `auto_dispatch`) and
//! plan deletion (`DELETE /plans/{id}`). Each runs in one write transaction: the route and plan
//! flags, the stops of orders dropped because the live order book changed (`drops`), every
//! order's status change (through the one transition function) and every outbox row commit
//! together or not at all.

mod drops;

pub use drops::DroppedOrder;
use drops::{DispatchDraft, Timing};

use super::notifications::on_dispatch;
use super::optimisation::JobFollowUp;
use super::order_events::apply_status_event_to;
use super::plans::cancel_plan_jobs;
use super::route_day::{clock_text, route_order, write_planned, write_untimed, EDIT_ATTEMPTS};
use super::ServiceError;
use crate::events::DomainEvent;
use crate::model::dispatch::{
    dispatch_plan as decide_plan, dispatch_route as decide_route, DispatchRejection, PlanFacts,
    PlanTarget, RouteFacts,
};
use crate::model::driver_visit::FeedKind;
use crate::model::optimisation::Optimisation;
use crate::model::organisation::DepotScope;
use crate::model::plan::Plan;
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::ports::tracking::TrackingLinks;
use crate::service::driver::feed::route_changed;
use crate::service::Found;
use crate::status::{OrderEvent, OPEN};
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
    /// The orders left off the dispatched routes, route by route in stop order.
    pub dropped: Vec<DroppedOrder>,
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

/// The draft of `POST /plans/{id}/dispatch`.
fn plan_draft(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    id: i64,
) -> Result<DispatchDraft, ServiceError> {
    let (plan, target) = resolve_plan(tx, scope, id)?;
    let facts = plan_facts(tx, scope, &plan)?;
    let decision = decide_plan(&facts, target).map_err(|e| rejection(e, &plan, id))?;
    drops::draft(tx, scope, plan, decision)
}

/// The draft of `POST /routes/{id}/dispatch`.
fn route_draft(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    id: i64,
) -> Result<DispatchDraft, ServiceError> {
    let route = tx.get_route(scope, id).found("route")?;
    let plan = tx.get_plan(scope, route.plan_id).found("route")?;
    let facts = plan_facts(tx, scope, &plan)?;
    let decision = decide_route(&facts, id).map_err(|e| rejection(e, &plan, id))?;
    drops::draft(tx, scope, plan, decision)
}

/// `POST /plans/{id}/dispatch`: `id` is the plan's or its active solution's. Every order it
/// routes gets its customer tracking link from `links`; routes that lose orders are re-timed
/// on `matrix`.
pub fn dispatch_plan(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    id: i64,
    now: Timestamp,
) -> Result<Dispatched, ServiceError> {
    dispatch_with(store, matrix, links, scope, now, |tx| {
        plan_draft(tx, scope, id)
    })
}

/// `POST /routes/{id}/dispatch`.
pub fn dispatch_route(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    id: i64,
    now: Timestamp,
) -> Result<Dispatched, ServiceError> {
    dispatch_with(store, matrix, links, scope, now, |tx| {
        route_draft(tx, scope, id)
    })
}

/// Runs a dispatch: in one write transaction when no route loses orders; else the kept stops
/// are timed outside it and the dispatch runs again with that timing, which is used only when
/// the draft is still the one it was computed from (up to [`EDIT_ATTEMPTS`] times, then 503).
fn dispatch_with(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    now: Timestamp,
    read: impl Fn(&mut dyn StoreTx) -> Result<DispatchDraft, ServiceError>,
) -> Result<Dispatched, ServiceError> {
    let mut timed: Option<(DispatchDraft, Timing)> = None;
    for _ in 0..=EDIT_ATTEMPTS {
        let outcome = store.transaction_in(scope, |tx| {
            let draft = read(tx)?;
            let timing = match &timed {
                _ if !draft.drops() => None,
                Some((was, timing)) if *was == draft => Some(timing),
                _ => return Ok(Err(draft)),
            };
            apply(tx, links, scope, draft, timing, now).map(Ok)
        })?;
        match outcome {
            Ok(done) => return Ok(done),
            Err(draft) => {
                let timing = drops::time_kept(&draft, matrix);
                timed = Some((draft, timing));
            }
        }
    }
    Err(ServiceError::Unavailable {
        message: "the plan's routes kept changing while the dispatch was computed; try again"
            .to_owned(),
        retry_after_s: 1,
    })
}

/// Dispatches the drafted routes: orders to drop leave their stops (the kept stops timed by
/// `timing`, or keeping their times without it), each route becomes dispatched, its OPEN
/// orders ROUTED (one `orders.status` row each, and its customer tracking link), and the plan
/// dispatched with `plans.dispatched` when decided.
fn apply(
    tx: &mut dyn StoreTx,
    links: &dyn TrackingLinks,
    scope: DepotScope,
    draft: DispatchDraft,
    timing: Option<&Timing>,
    now: Timestamp,
) -> Result<Dispatched, ServiceError> {
    let DispatchDraft {
        mut plan,
        decision,
        routes,
    } = draft;
    let mut routed = Vec::new();
    let mut dropped = Vec::new();
    for r in routes {
        let mut route = r.route;
        let stops = if r.dropped.is_empty() {
            r.stops
        } else {
            let timed = timing
                .and_then(|t| t.get(&route.id))
                .and_then(Option::as_ref);
            match (timed, &r.day) {
                (Some(planned), Some(day)) => {
                    write_planned(tx, scope, &mut route, planned, &day.orders, now)?
                }
                _ => write_untimed(tx, scope, &mut route, &r.kept, now)?,
            }
        };
        dropped.extend(r.dropped);
        for stop in &stops {
            for &order_id in &stop.visit.order_ids {
                let Some(order) = tx.get_order(scope, order_id)? else {
                    continue;
                };
                // Completed or custom statuses are the driver's outcomes: kept.
                if order.status.as_str() == OPEN {
                    let eta = Some(clock_text(stop.visit.service_start().1));
                    routed.push(route_order(tx, links, scope, order, eta, now)?);
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
        dropped,
    })
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
    store.transaction_in(scope, |tx| {
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
/// links from `links`). No travel matrix runs in that transaction: an order dropped because it
/// changed while the job solved leaves its stop, and the other stops keep their solved times.
/// A plan already dispatched (or gone) is left as it is; any other refusal is the job's to
/// record.
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
        let scope = job.scope();
        let done = plan_draft(tx, scope, job.plan_id)
            .and_then(|draft| apply(tx, &*self.links, scope, draft, None, now));
        match done {
            Ok(_) | Err(ServiceError::AlreadyDispatched | ServiceError::NotFound(_)) => Ok(()),
            Err(e) => Err(e),
        }
    }
}
