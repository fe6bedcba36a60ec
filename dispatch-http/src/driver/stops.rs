//! The driver at a stop: arrive, complete (with line-item outcomes), fail, notes, phone calls.
//! Each answers with the stop as route reads show it.

use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{post, put};
use axum::{Json, Router};
use dispatch_core::model::driver::Driver;
use dispatch_core::service::driver::day;
use dispatch_core::service::driver::visits::{self, CompleteStop, FailStop};
use dispatch_core::service::ServiceError;
use dispatch_core::time::Timestamp;
use serde_json::{json, Value};

use super::auth::DriverAuth;
use super::routes::refresh_etas;
use super::wire::{self, DriverBody};
use crate::error::ApiError;
use crate::extract::IdPath;
use crate::v2::plan_render::{render_phone_call, render_stop};
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/stops/{id}/arrive", post(arrive))
        .route("/stops/{id}/complete", post(complete))
        .route("/stops/{id}/fail", post(fail))
        .route("/stops/{id}/notes", put(notes))
        .route("/stops/{id}/phone-calls", post(phone_call))
}

/// The stop as route reads show it, with its orders.
async fn stop_json(
    state: &AppState,
    driver: Driver,
    stop_id: i64,
) -> Result<Json<Value>, ApiError> {
    let (view, route, catalog) = state
        .blocking(move |s| Ok(day::stop(&*s.store, &driver, stop_id)?))
        .await?;
    Ok(Json(
        json!({ "stop": render_stop(&view, &route, &catalog, &crate::links::Links::of(state), true) }),
    ))
}

/// Runs a stop action (a use case answering with the stop's route), then refreshes the route's
/// ETAs and answers with the stop.
async fn act(
    state: AppState,
    auth: DriverAuth,
    stop_id: i64,
    action: impl FnOnce(&AppState, &Driver, Timestamp) -> Result<i64, ServiceError> + Send + 'static,
) -> Result<Json<Value>, ApiError> {
    let driver = auth.driver();
    let route_id = state
        .blocking(move |s| Ok(action(s, &driver, s.clock.now())?))
        .await?;
    refresh_etas(&state, driver, route_id).await;
    stop_json(&state, driver, stop_id).await
}

async fn arrive(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<Json<Value>, ApiError> {
    let reported = wire::reported_body(&body)?;
    act(state, auth, id, move |s, driver, now| {
        visits::arrive(&*s.store, driver, id, reported, now)
    })
    .await
}

async fn complete(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<Json<Value>, ApiError> {
    let (reported, line_items, notes) = wire::complete_stop(&body)?;
    let input = CompleteStop {
        reported,
        line_items,
        notes,
    };
    act(state, auth, id, move |s, driver, now| {
        visits::complete(&*s.store, driver, id, &input, now)
    })
    .await
}

async fn fail(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<Json<Value>, ApiError> {
    let (reported, reason, notes) = wire::fail_stop(&body)?;
    let input = FailStop {
        reported,
        reason,
        notes,
    };
    act(state, auth, id, move |s, driver, now| {
        visits::fail(&*s.store, driver, id, &input, now)
    })
    .await
}

async fn notes(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<Json<Value>, ApiError> {
    let text = wire::notes(&body)?;
    let driver = auth.driver();
    state
        .blocking(move |s| {
            Ok(visits::set_notes(
                &*s.store,
                &driver,
                id,
                &text,
                s.clock.now(),
            )?)
        })
        .await?;
    stop_json(&state, driver, id).await
}

async fn phone_call(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let reported = wire::phone_call(&body)?;
    let driver = auth.driver();
    let call = state
        .blocking(move |s| {
            Ok(visits::record_call(
                &*s.store,
                &driver,
                id,
                reported,
                s.clock.now(),
            )?)
        })
        .await?;
    Ok((
        StatusCode::CREATED,
        Json(json!({ "driver_phone_call": render_phone_call(&call) })),
    ))
}
