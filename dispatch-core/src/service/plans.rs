//! Optimisation requests: `POST /plans/optimise/orders` and `/orders-for-ids` create (or
//! re-optimise) a plan and queue its job in one transaction together with the `plans.created`
//! outbox row; the job itself runs later ([`super::optimisation`]).
//!
//! Which orders a job takes ([`select_orders`]):
//! - by date: every live order due that date (`delivery_date`) that is not completed
//!   (DELIVERED / UNDELIVERED, in full or part) and not on a dispatched route. Orders on
//!   another plan's undispatched route are taken too: a plan is a proposal until dispatched.
//! - by ids: exactly the listed orders, in request order; a listed order that is completed or
//!   on a dispatched route is reported in `unserved` (`ORDER_COMPLETED`, `ALREADY_ROUTED`).

use std::collections::HashSet;

use super::{depots, Found, ServiceError};
use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::events::DomainEvent;
use crate::model::optimisation::{
    JobSpec, JobState, Optimisation, OptimiseSettings, OrderSelection, Queue,
};
use crate::model::order::Order;
use crate::model::organisation::{Depot, DepotScope};
use crate::model::plan::{NewPlan, Plan, UnservedOrder};
use crate::optimise::vehicles_at_depot;
use crate::ports::idempotency::BeforeCommit;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::status::{DELIVERED, PARTIAL_PREFIX, ROUTED, UNDELIVERED};
use crate::time::{Date, Timestamp};

/// Most orders one `orders-for-ids` request may list.
pub const MAX_ORDERS_PER_OPTIMISATION: usize = 10_000;

/// Seconds a client is told to wait when the depot's queue is full.
const QUEUE_FULL_RETRY_S: u64 = 30;

/// An optimisation request, its wire shape already read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptimiseRequest {
    /// `delivery_date` (the `/orders` variant; the ids variant has none).
    pub date: Option<Date>,
    /// The orders.
    pub selection: OrderSelection,
    /// `vehicles: [{id}]`; `None` (absent or null) for the depot's fleet.
    pub vehicle_ids: Option<Vec<i64>>,
    /// `zone_group_id`.
    pub zone_group_id: Option<i64>,
    /// `settings`.
    pub settings: OptimiseSettings,
    /// `plan: {id}`: re-optimise this plan instead of creating one.
    pub plan_id: Option<i64>,
}

/// What the request queued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Queued {
    /// The job.
    pub optimisation: Optimisation,
    /// The plan it fills.
    pub plan: Plan,
}

fn issue(path: Vec<PathSegment>, expected: &str, received: &str, message: &str) -> ValidationIssue {
    ValidationIssue::new(IssueCode::Custom, path, expected, received, message)
}

/// Queues an optimisation: checks the request against the depot (zone group, vehicles, orders,
/// plan), creates the plan (or takes the one to re-optimise, cancelling its running job) and
/// the job, and writes `plans.created` for a new plan, all in one transaction, which ends with
/// `last` (an idempotent response).
pub fn create(
    store: &dyn Store,
    scope: DepotScope,
    request: &OptimiseRequest,
    optimisation_id: String,
    now: Timestamp,
    last: &dyn BeforeCommit<Queued>,
) -> Result<Queued, ServiceError> {
    store.transaction_with_in(scope, last, |tx| {
        let mut errors = ValidationErrors::default();
        check_references(tx, scope, request, &mut errors)?;
        let existing = match request.plan_id {
            Some(id) => existing_plan(tx, scope, id, request.date, &mut errors)?,
            None => None,
        };
        errors.into_result()?;
        let date = match (&existing, request.date) {
            (Some(plan), _) => plan.date,
            (None, Some(date)) => date,
            (None, None) => ids_date(tx, scope, &request.selection)?.unwrap_or(now.date()),
        };
        refuse_without_depot_position(tx, scope, request, date)?;
        let size = match &request.selection {
            OrderSelection::Ids(ids) => ids.len(),
            OrderSelection::DueOnDate => tx.order_ids_due(scope, date)?.len(),
        };
        let queue = Queue::for_plan(size);
        if tx.count_active_optimisations(scope, queue)? >= queue.capacity() {
            return Err(ServiceError::Unavailable {
                message: format!(
                    "the depot already has {} optimisations queued or running in the {} queue",
                    queue.capacity(),
                    queue.as_str()
                ),
                retry_after_s: QUEUE_FULL_RETRY_S,
            });
        }
        let plan = match existing {
            Some(mut plan) => {
                cancel_plan_jobs(
                    tx,
                    scope,
                    plan.id,
                    &format!("superseded by optimisation {optimisation_id}"),
                    now,
                )?;
                plan.updated = now;
                tx.update_plan(scope, &plan)?;
                plan
            }
            None => {
                let plan = tx.insert_plan(scope, &NewPlan { date }, now)?;
                tx.append_event(scope, &DomainEvent::PlanCreated { id: plan.id }, now)?;
                plan
            }
        };
        let spec = JobSpec {
            selection: request.selection.clone(),
            vehicle_ids: request.vehicle_ids.clone(),
            zone_group_id: request.zone_group_id,
            settings: request.settings,
        };
        let optimisation = Optimisation::queued(
            optimisation_id.clone(),
            scope,
            plan.id,
            date,
            queue,
            spec,
            now,
        );
        tx.insert_optimisation(&optimisation)?;
        Ok(Queued { optimisation, plan })
    })
}

/// A plan whose vehicles start or end at a depot without a position can only fail: refused
/// here (400, naming the fix) instead of failing in the background.
fn refuse_without_depot_position(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    request: &OptimiseRequest,
    date: Date,
) -> Result<(), ServiceError> {
    let depot = tx.get_depot(scope).found("depot")?;
    if !depots::needs_position(&depot) {
        return Ok(());
    }
    let fleet = tx.list_vehicles(scope)?;
    let chosen: Vec<_> = match &request.vehicle_ids {
        Some(ids) => fleet.into_iter().filter(|v| ids.contains(&v.id)).collect(),
        None => fleet,
    };
    let at_depot = vehicles_at_depot(&chosen, date, request.settings.active_vehicles);
    let Some(first) = at_depot.first() else {
        return Ok(());
    };
    let path = match &request.vehicle_ids {
        Some(ids) => {
            let at = ids.iter().position(|id| id == first).unwrap_or(0);
            vec!["vehicles".into(), at.into(), "id".into()]
        }
        None => Vec::new(),
    };
    Err(ServiceError::invalid(
        path,
        "a depot with a position",
        "a depot without lat and lng",
        &format!(
            "the depot has no position and vehicle {first} starts or ends there, so the day \
             cannot be planned: {}",
            Depot::position_fix(depot.id)
        ),
    ))
}

/// Zone group, vehicles and (ids variant) orders must be the depot's; ids must not repeat.
fn check_references(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    request: &OptimiseRequest,
    errors: &mut ValidationErrors,
) -> Result<(), StoreError> {
    if let Some(group) = request.zone_group_id {
        if tx.get_zone_group(scope, group)?.is_none() {
            errors.push(issue(
                vec!["zone_group_id".into()],
                "the id of a zone group of this depot",
                &group.to_string(),
                "unknown zone group",
            ));
        }
    }
    if let Some(ids) = &request.vehicle_ids {
        let fleet: HashSet<i64> = tx.list_vehicles(scope)?.iter().map(|v| v.id).collect();
        let mut seen = HashSet::new();
        for (i, id) in ids.iter().enumerate() {
            let path = vec!["vehicles".into(), i.into(), "id".into()];
            if !fleet.contains(id) {
                errors.push(issue(
                    path,
                    "the id of a vehicle of this depot",
                    &id.to_string(),
                    "unknown vehicle id",
                ));
            } else if !seen.insert(*id) {
                errors.push(issue(
                    path,
                    "each vehicle once",
                    &id.to_string(),
                    "vehicle listed twice",
                ));
            }
        }
    }
    if let OrderSelection::Ids(ids) = &request.selection {
        let mut seen = HashSet::new();
        for (i, id) in ids.iter().enumerate() {
            let path = vec!["orders".into(), i.into(), "id".into()];
            if !seen.insert(*id) {
                errors.push(issue(
                    path,
                    "each order once",
                    &id.to_string(),
                    "order listed twice",
                ));
            } else if tx.get_order(scope, *id)?.is_none() {
                errors.push(issue(
                    path,
                    "the id of an order of this depot",
                    &id.to_string(),
                    "unknown order id",
                ));
            }
        }
    }
    Ok(())
}

/// The plan to re-optimise: the depot's, not fully dispatched, and of the request's date.
fn existing_plan(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    id: i64,
    date: Option<Date>,
    errors: &mut ValidationErrors,
) -> Result<Option<Plan>, StoreError> {
    let path = || vec![PathSegment::from("plan"), "id".into()];
    let Some(plan) = tx.get_plan(scope, id)? else {
        errors.push(issue(
            path(),
            "the id of a plan of this depot",
            &id.to_string(),
            "unknown plan",
        ));
        return Ok(None);
    };
    if plan.dispatched {
        errors.push(issue(
            path(),
            "a plan that is not dispatched",
            &id.to_string(),
            "the plan is dispatched; optimise into a new plan instead",
        ));
    }
    if let Some(date) = date.filter(|d| *d != plan.date) {
        errors.push(issue(
            vec!["delivery_date".into()],
            &format!("the plan's date {}", plan.date),
            &date.to_string(),
            "a plan is re-optimised for its own date",
        ));
    }
    Ok(Some(plan))
}

/// The ids variant's date: the earliest `delivery_date` among the listed orders.
fn ids_date(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    selection: &OrderSelection,
) -> Result<Option<Date>, StoreError> {
    let OrderSelection::Ids(ids) = selection else {
        return Ok(None);
    };
    let mut earliest: Option<Date> = None;
    for id in ids {
        if let Some(date) = tx.get_order(scope, *id)?.and_then(|o| o.delivery_date) {
            earliest = Some(earliest.map_or(date, |e| e.min(date)));
        }
    }
    Ok(earliest)
}

/// Cancels the plan's queued or running job (a plan has at most one: a new request cancels
/// the previous one). The worker running it stops at its next check and discards its result.
/// The routes use cases call this when a plan is deleted. Returns whether a job was cancelled.
pub fn cancel_plan_jobs(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    plan_id: i64,
    reason: &str,
    now: Timestamp,
) -> Result<bool, StoreError> {
    let Some(mut job) = tx
        .latest_optimisation_of_plan(scope, plan_id)?
        .filter(|j| j.in_progress())
    else {
        return Ok(false);
    };
    job.state = JobState::Cancelled;
    job.error = Some(reason.to_owned());
    job.lease_until = None;
    job.updated = now;
    tx.update_optimisation(&job)?;
    Ok(true)
}

/// The orders a job optimises, and the listed ones it cannot take (ids variant).
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    /// Orders to plan, in request order (ids) or id order (date).
    pub orders: Vec<Order>,
    /// Listed orders left out before solving, with their reason.
    pub excluded: Vec<UnservedOrder>,
}

/// DELIVERED or UNDELIVERED, in full or in part.
fn is_completed(order: &Order) -> bool {
    let status = order.status.as_str();
    let base = status.strip_prefix(PARTIAL_PREFIX).unwrap_or(status);
    base == DELIVERED || base == UNDELIVERED
}

/// Whether the order is on an active route (dispatched, not completed by its driver) or was
/// routed by one. A route its driver completed no longer holds its orders: one that failed
/// there and was re-dated (OPEN again) is planned anew.
fn is_routed(tx: &mut dyn StoreTx, scope: DepotScope, order: &Order) -> Result<bool, StoreError> {
    if order.status.as_str() == ROUTED {
        return Ok(true);
    }
    Ok(tx
        .routes_of_order(scope, order.id)?
        .iter()
        .any(|r| r.dispatched && r.completed_ts.is_none()))
}

/// Applies the order-selection rule of this module to a job.
pub fn select_orders(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    job: &Optimisation,
) -> Result<Selection, StoreError> {
    let mut selection = Selection {
        orders: Vec::new(),
        excluded: Vec::new(),
    };
    match &job.spec.selection {
        OrderSelection::DueOnDate => {
            for id in tx.order_ids_due(scope, job.date)? {
                let Some(order) = tx.get_order(scope, id)? else {
                    continue;
                };
                if !is_completed(&order) && !is_routed(tx, scope, &order)? {
                    selection.orders.push(order);
                }
            }
        }
        OrderSelection::Ids(ids) => {
            for id in ids {
                // An order deleted after the request was queued is left out like any deleted
                // record.
                let Some(order) = tx.get_order(scope, *id)? else {
                    continue;
                };
                if is_completed(&order) {
                    selection.excluded.push(UnservedOrder {
                        order_id: order.id,
                        reason: "ORDER_COMPLETED".into(),
                        description: format!("the order is already {}", order.status),
                    });
                } else if is_routed(tx, scope, &order)? {
                    selection.excluded.push(UnservedOrder {
                        order_id: order.id,
                        reason: "ALREADY_ROUTED".into(),
                        description: "the order is on a dispatched route".into(),
                    });
                } else {
                    selection.orders.push(order);
                }
            }
        }
    }
    Ok(selection)
}
