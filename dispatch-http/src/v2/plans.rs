//! Plans and optimisation: `POST /plans/optimise/orders` and `/orders-for-ids`, `GET
//! /plans/optimise/{id}`, `GET /plans/{id}` and `GET /plans`.
//!
//! An optimisation request answers 200 at once with `{optimisation: {id, in_progress}, plan:
//! {id, dispatched}}` after the plan, its job and the `plans.created` outbox row committed
//! together; a background worker of the process (`dispatch-server`) runs the job.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use dispatch_core::model::optimisation::Optimisation;
use dispatch_core::model::plan::Plan;
use dispatch_core::paging::PageRequest;
use dispatch_core::service::{plan_reads, plans};
use serde_json::Value;

use super::plan_render::{render_plan, render_plan_summary};
use super::plan_shapes::{OnePlan, Plans};
use super::plan_wire::{read_optimise, Variant};
use super::registry::ApiRoutes;
use super::shapes::to_json;
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::links::Links;
use crate::middleware::idempotency::IdempotencyClaim;
use crate::paging::PageParams;
use crate::AppState;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(optimise_orders))
        .routes(routes!(optimise_ids))
        .routes(routes!(read_optimisation))
        .routes(routes!(read_problem))
        .routes(routes!(list))
        .routes(routes!(read))
}

/// An optimisation as the API shows it: the spec's `{id, in_progress}` plus `state`, for a
/// failed or cancelled job `error` saying why (the spec gives failure no signal of its own),
/// the travel times its run planned on and the warnings an operator must see.
pub(crate) fn optimisation_json(job: &Optimisation) -> OptimisationWire {
    OptimisationWire {
        id: job.id.clone(),
        in_progress: job.in_progress(),
        state: job.state.as_str(),
        error: job.error.clone(),
        travel_times: job.travel.map(|t| t.as_str()),
        warnings: job
            .travel
            .and_then(|t| t.warning())
            .map(str::to_owned)
            .into_iter()
            .collect(),
    }
}

fn job_json(job: &Optimisation, plan: &Plan) -> Queued {
    Queued {
        optimisation: optimisation_json(job),
        plan: PlanState {
            id: plan.id,
            dispatched: plan.dispatched,
        },
    }
}

async fn optimise(
    state: AppState,
    caller: Caller,
    claim: IdempotencyClaim,
    body: Value,
    variant: Variant,
) -> Result<Response, ApiError> {
    let request = read_optimise(&body, variant)?;
    let scope = caller.0.scope();
    let response = state
        .blocking(move |s| {
            let id = uuid::Uuid::new_v4().to_string();
            let reply = claim.reply(StatusCode::OK, |q: &plans::Queued| {
                to_json(job_json(&q.optimisation, &q.plan))
            });
            plans::create(&*s.store, scope, &request, id, s.clock.now(), &reply)?;
            Ok(reply.response())
        })
        .await?;
    state.jobs.notify();
    Ok(response)
}

#[utoipa::path(post, path = "/plans/optimise/orders", tag = "plans", summary = "Optimise the orders due on a date into a new plan.", request_body(content = super::request_shapes::OptimiseOrdersBody, description = "`{ delivery_date, settings: {active_vehicles, auto_dispatch}, zone_group_id }`."), responses((status = 200, description = "`{ optimisation: {id, in_progress}, plan: {id, dispatched} }`; the job runs in the background.", body = Queued), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn optimise_orders(
    State(state): State<AppState>,
    caller: Caller,
    claim: IdempotencyClaim,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    optimise(state, caller, claim, body, Variant::ByDate).await
}

#[utoipa::path(post, path = "/plans/optimise/orders-for-ids", tag = "plans", summary = "Optimise the given orders into a new plan.", request_body(content = super::request_shapes::OptimiseIdsBody, description = "`{ orders: [{id}], settings: {active_vehicles, auto_dispatch, maintain_upload_sequence}, zone_group_id }`."), responses((status = 200, description = "`{ optimisation, plan }` as POST /plans/optimise/orders.", body = Queued), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn optimise_ids(
    State(state): State<AppState>,
    caller: Caller,
    claim: IdempotencyClaim,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    optimise(state, caller, claim, body, Variant::ByIds).await
}

#[utoipa::path(get, path = "/plans/optimise/{id}", tag = "plans", summary = "Whether an optimisation job still runs.", params(("id" = String, Path, description = "The optimisation id (UUID).")), responses((status = 200, description = "`{ optimisation: {id, in_progress}, plan: {id, dispatched} }`", body = Queued), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn read_optimisation(
    State(state): State<AppState>,
    Caller(p): Caller,
    Path(raw): Path<String>,
) -> Result<Json<Queued>, ApiError> {
    // Only UUIDs name optimisations; anything else names none (404, as an unknown id).
    let id = uuid::Uuid::parse_str(&raw)
        .map_err(|_| ApiError::not_found("optimisation"))?
        .to_string();
    let (job, plan) = state
        .blocking(move |s| Ok(plan_reads::get_optimisation(&*s.store, p.scope(), &id)?))
        .await?;
    Ok(Json(job_json(&job, &plan)))
}

/// The problem as stored: a JSON document written by the solver's VROOM writer.
#[utoipa::path(get, path = "/plans/optimise/{id}/problem", tag = "plans", summary = "The solver problem an optimisation job ran on (VROOM-style JSON).", params(("id" = String, Path, description = "The optimisation id (UUID).")), responses((status = 200, description = "The problem.", body = serde_json::Value), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn read_problem(
    State(state): State<AppState>,
    Caller(p): Caller,
    Path(raw): Path<String>,
) -> Result<Response, ApiError> {
    let id = uuid::Uuid::parse_str(&raw)
        .map_err(|_| ApiError::not_found("optimisation"))?
        .to_string();
    let problem = state
        .blocking(move |s| Ok(plan_reads::get_problem(&*s.store, p.scope(), &id)?))
        .await?;
    Ok((
        [(axum::http::header::CONTENT_TYPE, "application/json")],
        problem,
    )
        .into_response())
}

#[utoipa::path(get, path = "/plans/{id}", tag = "plans", summary = "One plan with its routes, stops and unserved orders.", params(("id" = i64, Path, description = "The plan id.")), responses((status = 200, description = "`{ plan }`", body = OnePlan), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND.", body = crate::error::Envelope)))]
async fn read(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<OnePlan>, ApiError> {
    let view = state
        .blocking(move |s| Ok(plan_reads::get_plan(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(OnePlan {
        plan: render_plan(&view, &Links::of(&state)),
    }))
}

#[utoipa::path(get, path = "/plans", tag = "plans", summary = "Plan summaries, most recently updated first (paged).", params(crate::paging::PageQuery), responses((status = 200, description = "`{ plans }` and a `Link` header to the next page.", body = Plans), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
    page: PageParams,
) -> Result<Response, ApiError> {
    let read = move |s: &AppState, r: &PageRequest| plan_reads::list_plans(&*s.store, p.scope(), r);
    page.list(&state, read, |rows| {
        Json(Plans {
            plans: rows.iter().map(render_plan_summary).collect(),
        })
    })
    .await
}

/// An optimisation job.
#[derive(Serialize, ToSchema)]
pub struct OptimisationWire {
    /// A UUID.
    id: String,
    in_progress: bool,
    /// `queued`, `running`, `succeeded`, `failed` or `cancelled`.
    state: &'static str,
    /// Why a failed or cancelled job stopped.
    #[schema(required = true)]
    error: Option<String>,
    /// The travel times the run planned on: `osrm` (road times), `great-circle` (straight
    /// lines at the configured speed) or `great-circle (OSRM unreachable)` (straight lines
    /// because the configured OSRM server could not answer); null until the run built its
    /// problem.
    #[schema(required = true)]
    travel_times: Option<&'static str>,
    /// Degradations an operator must see (empty when none), such as a plan made on
    /// great-circle times because OSRM was unreachable.
    warnings: Vec<String>,
}

/// `{ id, dispatched }` of a plan.
#[derive(Serialize, ToSchema)]
pub struct PlanState {
    id: i64,
    dispatched: bool,
}

/// `{ optimisation, plan }`.
#[derive(Serialize, ToSchema)]
pub struct Queued {
    optimisation: OptimisationWire,
    plan: PlanState,
}
