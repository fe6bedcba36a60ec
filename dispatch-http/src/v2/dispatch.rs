//! Dispatch and plan deletion: `POST /plans/{id}/dispatch`, `POST /routes/{id}/dispatch`,
//! `DELETE /plans/{id}`.
//!
//! A dispatch that has not finished within the deadline (the spec's two minutes) answers 503
//! SERVICE_UNAVAILABLE. Its transaction is not abandoned: it commits or rolls back on its own,
//! so a retry tells the truth — 409 ALREADY_DISPATCHED when the first attempt went through
//! (a retry queues behind it for the write lock), a normal dispatch when it did not.

use axum::extract::State;
use axum::Json;
use dispatch_core::service::dispatch::{self, Dispatched};
use dispatch_core::service::ServiceError;

use super::registry::ApiRoutes;
use super::shapes::IdRef;
use crate::error::ApiError;
use crate::extract::{Caller, IdPath};
use crate::links::Links;
use crate::AppState;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

/// Seconds a client is told to wait before re-posting a dispatch that timed out.
const RETRY_AFTER_S: u64 = 5;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(dispatch_plan))
        .routes(routes!(dispatch_route))
        .routes(routes!(delete_plan))
}

/// Runs a dispatch on a blocking thread within the deadline.
async fn within_deadline(
    state: &AppState,
    work: impl FnOnce(&AppState) -> Result<Dispatched, ServiceError> + Send + 'static,
) -> Result<Dispatched, ApiError> {
    let deadline = state.routing.dispatch_deadline;
    let task = state.blocking(move |s| Ok(work(s)?));
    match tokio::time::timeout(deadline, task).await {
        Ok(result) => result,
        Err(_) => Err(ServiceError::Unavailable {
            message: format!(
                "the dispatch did not finish within {} seconds; re-post it: 409 ALREADY_DISPATCHED then means it went through",
                deadline.as_secs()
            ),
            retry_after_s: RETRY_AFTER_S,
        }
        .into()),
    }
}

#[utoipa::path(post, path = "/plans/{id}/dispatch", tag = "dispatch", summary = "Dispatch every undispatched route of a plan.", params(("id" = i64, Path, description = "The plan id or the id of its active solution.")), responses((status = 200, description = "`{ plan: {id, dispatched: true, routes: [{id}]}, dropped_orders: [{id, order_number, reason, route_id}] }`: the routes this call dispatched, and the orders left off them because they were deleted, completed, routed by another dispatched route or re-dated since the plan was made.", body = DispatchedPlan), (status = 400, description = "INVALID_INPUT: still optimising, or another solution's id.", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope), (status = 409, description = "ALREADY_DISPATCHED.", body = crate::error::Envelope), (status = 503, description = "SERVICE_UNAVAILABLE: the two-minute deadline passed; re-post (a 409 then means it succeeded).", body = crate::error::Envelope)))]
async fn dispatch_plan(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<DispatchedPlan>, ApiError> {
    let scope = p.scope();
    let done = within_deadline(&state, move |s| {
        let matrix = &*s.routing.matrix;
        dispatch::dispatch_plan(&*s.store, matrix, &Links::of(s), scope, id, s.clock.now())
    })
    .await?;
    Ok(Json(DispatchedPlan {
        plan: PlanDispatch {
            id: done.plan_id,
            dispatched: done.plan_dispatched,
            routes: done.routes.iter().map(|&id| IdRef { id }).collect(),
        },
        dropped_orders: dropped_orders(&done),
    }))
}

#[utoipa::path(post, path = "/routes/{id}/dispatch", tag = "dispatch", summary = "Dispatch one route.", params(("id" = i64, Path, description = "The route id.")), responses((status = 200, description = "`{ route: {id, dispatched: true}, dropped_orders: [{id, order_number, reason, route_id}] }`: the orders left off the route because they were deleted, completed, routed by another dispatched route or re-dated since it was planned.", body = DispatchedRoute), (status = 400, description = "INVALID_INPUT: no vehicle assigned.", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope), (status = 409, description = "ALREADY_DISPATCHED.", body = crate::error::Envelope), (status = 503, description = "SERVICE_UNAVAILABLE: the deadline passed.", body = crate::error::Envelope)))]
async fn dispatch_route(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<DispatchedRoute>, ApiError> {
    let scope = p.scope();
    let done = within_deadline(&state, move |s| {
        let matrix = &*s.routing.matrix;
        dispatch::dispatch_route(&*s.store, matrix, &Links::of(s), scope, id, s.clock.now())
    })
    .await?;
    Ok(Json(DispatchedRoute {
        route: RouteDispatch {
            id,
            dispatched: true,
        },
        dropped_orders: dropped_orders(&done),
    }))
}

#[utoipa::path(delete, path = "/plans/{id}", tag = "plans", summary = "Delete a plan with all its routes and stops.", params(("id" = i64, Path, description = "The plan id.")), responses((status = 200, description = "`{ deleted: { plans_count } }`", body = DeletedPlans), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn delete_plan(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<DeletedPlans>, ApiError> {
    let scope = p.scope();
    state
        .blocking(move |s| Ok(dispatch::delete_plan(&*s.store, scope, id, s.clock.now())?))
        .await?;
    Ok(Json(DeletedPlans {
        deleted: PlansCount { plans_count: 1 },
    }))
}

/// The orders a dispatch left off its routes.
fn dropped_orders(done: &Dispatched) -> Vec<DroppedOrderBody> {
    done.dropped
        .iter()
        .map(|d| DroppedOrderBody {
            id: d.id,
            order_number: d.order_number.clone(),
            reason: d.reason.code(),
            reason_description: d.reason.description(),
            route_id: d.route_id,
        })
        .collect()
}

/// An order left off a dispatched route: the live order book changed since it was planned.
#[derive(Serialize, ToSchema)]
pub struct DroppedOrderBody {
    /// The order.
    id: i64,
    order_number: String,
    /// `ORDER_DELETED`, `ORDER_COMPLETED` (delivered or undelivered, in full or in part),
    /// `ALREADY_ROUTED` (on another dispatched route not completed yet) or `DELIVERY_DATE`
    /// (re-dated off the route's date).
    reason: &'static str,
    reason_description: &'static str,
    /// The route it was on.
    route_id: i64,
}

/// The plan of a dispatch and the routes this call dispatched.
#[derive(Serialize, ToSchema)]
pub struct PlanDispatch {
    id: i64,
    dispatched: bool,
    routes: Vec<IdRef>,
}

/// `{ plan, dropped_orders }`.
#[derive(Serialize, ToSchema)]
pub struct DispatchedPlan {
    plan: PlanDispatch,
    dropped_orders: Vec<DroppedOrderBody>,
}

/// A dispatched route.
#[derive(Serialize, ToSchema)]
pub struct RouteDispatch {
    id: i64,
    dispatched: bool,
}

/// `{ route, dropped_orders }`.
#[derive(Serialize, ToSchema)]
pub struct DispatchedRoute {
    route: RouteDispatch,
    dropped_orders: Vec<DroppedOrderBody>,
}

/// `{ plans_count }`.
#[derive(Serialize, ToSchema)]
pub struct PlansCount {
    plans_count: u64,
}

/// `{ deleted: { plans_count } }`.
#[derive(Serialize, ToSchema)]
pub struct DeletedPlans {
    deleted: PlansCount,
}
