//! Plans and optimisation: `POST /plans/optimise/orders` and `/orders-for-ids`, `GET
//! /plans/optimise/{id}`, `GET /plans/{id}` and `GET /plans`.
//!
//! An optimisation request answers 200 at once with `{optimisation: {id, in_progress}, plan:
//! {id, dispatched}}` after the plan, its job and the `plans.created` outbox row committed
//! together; a worker of [`crate::runtime`] runs the job.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use dispatch_core::model::optimisation::Optimisation;
use dispatch_core::model::plan::Plan;
use dispatch_core::service::{plan_reads, plans};
use serde_json::{json, Value};

use super::plan_render::{render_plan, render_plan_summary};
use super::plan_wire::{read_optimise, Variant};
use crate::error::ApiError;
use crate::extract::{Caller, IdPath, JsonBody};
use crate::links::Links;
use crate::middleware::idempotency::IdempotencyClaim;
use crate::paging::PageParams;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/plans/optimise/orders", post(optimise_orders))
        .route("/plans/optimise/orders-for-ids", post(optimise_ids))
        .route("/plans/optimise/{id}", get(read_optimisation))
        .route("/plans/optimise/{id}/problem", get(read_problem))
        .route("/plans", get(list))
        .route("/plans/{id}", get(read))
}

/// An optimisation as the API shows it: the spec's `{id, in_progress}` plus `state` and, for a
/// failed or cancelled job, `error` saying why (the spec gives failure no signal of its own).
pub(crate) fn optimisation_json(job: &Optimisation) -> Value {
    json!({
        "id": job.id,
        "in_progress": job.in_progress(),
        "state": job.state.as_str(),
        "error": job.error,
    })
}

fn job_json(job: &Optimisation, plan: &Plan) -> Value {
    json!({
        "optimisation": optimisation_json(job),
        "plan": {"id": plan.id, "dispatched": plan.dispatched},
    })
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
                job_json(&q.optimisation, &q.plan)
            });
            plans::create(&*s.store, scope, &request, id, s.clock.now(), &reply)?;
            Ok(reply.into_response())
        })
        .await?;
    state.jobs.notify();
    Ok(response)
}

async fn optimise_orders(
    State(state): State<AppState>,
    caller: Caller,
    claim: IdempotencyClaim,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    optimise(state, caller, claim, body, Variant::ByDate).await
}

async fn optimise_ids(
    State(state): State<AppState>,
    caller: Caller,
    claim: IdempotencyClaim,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    optimise(state, caller, claim, body, Variant::ByIds).await
}

async fn read_optimisation(
    State(state): State<AppState>,
    Caller(p): Caller,
    Path(raw): Path<String>,
) -> Result<Json<Value>, ApiError> {
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

async fn read(
    State(state): State<AppState>,
    Caller(p): Caller,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    let view = state
        .blocking(move |s| Ok(plan_reads::get_plan(&*s.store, p.scope(), id)?))
        .await?;
    Ok(Json(
        json!({ "plan": render_plan(&view, &Links::of(&state)) }),
    ))
}

async fn list(
    State(state): State<AppState>,
    Caller(p): Caller,
    page: PageParams,
) -> Result<Response, ApiError> {
    let request = page.request;
    let rows = state
        .blocking(move |s| Ok(plan_reads::list_plans(&*s.store, p.scope(), &request)?))
        .await?;
    let items: Vec<Value> = rows.items.iter().map(render_plan_summary).collect();
    Ok(page.respond(rows.next, Json(json!({ "plans": items }))))
}
