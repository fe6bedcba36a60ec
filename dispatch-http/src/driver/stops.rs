//! The driver at a stop: arrive, complete (with line-item outcomes), fail, notes, phone calls.
//! Each answers with the stop as route reads show it.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use dispatch_core::model::driver::Driver;
use dispatch_core::service::driver::day;
use dispatch_core::service::driver::visits::{self, CompleteStop, FailStop};
use dispatch_core::service::ServiceError;
use dispatch_core::time::Timestamp;
use utoipa_axum::routes;

use super::bodies::{CompleteStopBody, FailStopBody, NotesBody, PhoneCallBody, ReportedBody};
use super::routes::refresh_etas;
use super::shapes::{OnePhoneCall, OneStop};
use super::wire::{self, DriverBody};
use crate::auth::driver::DriverAuth;
use crate::error::ApiError;
use crate::extract::IdPath;
use crate::v2::plan_render::{render_phone_call, render_stop};
use crate::v2::registry::ApiRoutes;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(arrive))
        .routes(routes!(complete))
        .routes(routes!(fail))
        .routes(routes!(notes))
        .routes(routes!(phone_call))
}

/// The stop as route reads show it, with its orders.
async fn stop_json(
    state: &AppState,
    driver: Driver,
    stop_id: i64,
) -> Result<Json<OneStop>, ApiError> {
    let (view, route, catalog) = state
        .blocking(move |s| Ok(day::stop(&*s.store, &driver, stop_id)?))
        .await?;
    Ok(Json(OneStop {
        stop: render_stop(
            &view,
            &route,
            &catalog,
            &crate::links::Links::of(state),
            true,
        ),
    }))
}

/// Runs a stop action (a use case answering with the stop's route), then refreshes the route's
/// ETAs and answers with the stop.
async fn act(
    state: AppState,
    auth: DriverAuth,
    stop_id: i64,
    action: impl FnOnce(&AppState, &Driver, Timestamp) -> Result<i64, ServiceError> + Send + 'static,
) -> Result<Json<OneStop>, ApiError> {
    let driver = auth.driver();
    let route_id = state
        .blocking(move |s| Ok(action(s, &driver, s.clock.now())?))
        .await?;
    refresh_etas(&state, driver, route_id).await;
    stop_json(&state, driver, stop_id).await
}

#[utoipa::path(post, path = "/driver/stops/{id}/arrive", tag = "driver", summary = "Arrive at the stop.", params(("id" = i64, Path, description = "The stop id.")), request_body(content = ReportedBody, description = "Optional: when and where; an empty body is fine."), responses((status = 200, description = "`{ stop }`", body = OneStop), (status = 400, description = "INVALID_INPUT (`details.validationErrors`), or the stop cannot take this now (already finished, route not started).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a stop of a dispatched route of the credential's vehicle.", body = crate::error::Envelope)))]
async fn arrive(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<Json<OneStop>, ApiError> {
    let reported = wire::reported_body(&body)?;
    act(state, auth, id, move |s, driver, now| {
        visits::arrive(&*s.store, driver, id, reported, now)
    })
    .await
}

#[utoipa::path(post, path = "/driver/stops/{id}/complete", operation_id = "complete_stop", tag = "driver", summary = "Complete the stop, with what was delivered of each line item.", params(("id" = i64, Path, description = "The stop id.")), request_body(content = CompleteStopBody, description = "Optional properties; an empty body is fine."), responses((status = 200, description = "`{ stop }`", body = OneStop), (status = 400, description = "INVALID_INPUT (`details.validationErrors`), or the stop cannot take this now (already finished, route not started).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a stop of a dispatched route of the credential's vehicle.", body = crate::error::Envelope)))]
async fn complete(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<Json<OneStop>, ApiError> {
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

#[utoipa::path(post, path = "/driver/stops/{id}/fail", tag = "driver", summary = "Fail the stop, with the reason.", params(("id" = i64, Path, description = "The stop id.")), request_body(content = FailStopBody), responses((status = 200, description = "`{ stop }`", body = OneStop), (status = 400, description = "INVALID_INPUT (`details.validationErrors`), or the stop cannot take this now (already finished, route not started).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a stop of a dispatched route of the credential's vehicle.", body = crate::error::Envelope)))]
async fn fail(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<Json<OneStop>, ApiError> {
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

#[utoipa::path(put, path = "/driver/stops/{id}/notes", tag = "driver", summary = "Set the driver's notes of the stop.", params(("id" = i64, Path, description = "The stop id.")), request_body(content = NotesBody), responses((status = 200, description = "`{ stop }` with `driver_notes`.", body = OneStop), (status = 400, description = "INVALID_INPUT (`details.validationErrors`), or the stop cannot take this now (already finished, route not started).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a stop of a dispatched route of the credential's vehicle.", body = crate::error::Envelope)))]
async fn notes(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<Json<OneStop>, ApiError> {
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

#[utoipa::path(post, path = "/driver/stops/{id}/phone-calls", tag = "driver", summary = "Record a phone call made from the stop.", params(("id" = i64, Path, description = "The stop id.")), request_body(content = PhoneCallBody, description = "Optional properties; an empty body is fine."), responses((status = 201, description = "`{ driver_phone_call }`", body = OnePhoneCall), (status = 400, description = "INVALID_INPUT (`details.validationErrors`), or the stop cannot take this now (already finished, route not started).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a stop of a dispatched route of the credential's vehicle.", body = crate::error::Envelope)))]
async fn phone_call(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    DriverBody(body): DriverBody,
) -> Result<(StatusCode, Json<OnePhoneCall>), ApiError> {
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
        Json(OnePhoneCall {
            driver_phone_call: render_phone_call(&call),
        }),
    ))
}
