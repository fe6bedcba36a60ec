//! The driver's routes: the day (`GET /driver/day`), one route (`GET /driver/routes/{id}`),
//! start, position reports and completion. Routes are shaped as `GET /v2/routes/{id}`.

use axum::extract::{Query, State};
use axum::Json;
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::model::driver::Driver;
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::model::route::Route;
use dispatch_core::ports::store::Store;
use dispatch_core::service::driver::rules::Reported;
use dispatch_core::service::driver::{day, eta, progress, track};
use dispatch_core::service::plan_reads::RouteView;
use dispatch_core::service::ServiceError;
use dispatch_core::time::{Date, Timestamp};
use serde_json::Value;
use utoipa_axum::routes;

use super::bodies::{PositionsBody, ReportedBody};
use super::shapes::{DriverDay, PositionsReport, StopEta, TrackPointWire, TrackWire};
use super::wire;
use crate::auth::driver::DriverAuth;
use crate::error::ApiError;
use crate::extract::IdPath;
use crate::links::Links;
use crate::rejection::invalid;
use crate::v2::order_shapes::TimeWindowWire;
use crate::v2::plan_render::render_route;
use crate::v2::plan_shapes::{OneRoute, RouteWire};
use crate::v2::registry::ApiRoutes;
use crate::v2::wire::ts_text;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> ApiRoutes {
    ApiRoutes::new()
        .routes(routes!(read_day))
        .routes(routes!(read))
        .routes(routes!(start))
        .routes(routes!(positions))
        .routes(routes!(complete))
}

#[utoipa::path(get, path = "/driver/routes/{id}", tag = "driver", summary = "One dispatched route of the vehicle, with its stops and orders.", params(("id" = i64, Path, description = "The route id.")), responses((status = 200, description = "`{ route }`, shaped as `GET /v2/routes/{id}`.", body = OneRoute), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a dispatched route of the credential's vehicle.", body = crate::error::Envelope)))]
async fn read(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
) -> Result<Json<OneRoute>, ApiError> {
    Ok(Json(OneRoute {
        route: route_wire(&state, auth.driver(), id).await?,
    }))
}

/// The route as the driver reads it.
pub(super) async fn route_wire(
    state: &AppState,
    driver: Driver,
    id: i64,
) -> Result<RouteWire, ApiError> {
    let (view, catalog) = state
        .blocking(move |s| Ok(day::route(&*s.store, &driver, id)?))
        .await?;
    Ok(driver_route(&view, &catalog, &Links::of(state)))
}

/// A route as the driver reads it: the depot's shape, plus each stop's time windows.
fn driver_route(view: &RouteView, catalog: &Catalog, links: &Links) -> RouteWire {
    let mut wire = render_route(view, catalog, links);
    for (stop, shown) in view.stops.iter().zip(wire.stops.iter_mut().flatten()) {
        let side = stop.stop.visit.side;
        let mut windows: Vec<(String, String)> = stop
            .orders
            .iter()
            .flat_map(|o| o.time_windows.iter().filter(|w| w.side == side))
            .map(|w| (w.from.to_string(), w.to.to_string()))
            .collect();
        windows.sort();
        windows.dedup();
        shown.time_windows = Some(
            windows
                .into_iter()
                .map(|(from, to)| TimeWindowWire { from, to })
                .collect(),
        );
    }
    wire
}

/// `GET /driver/day`'s only parameter.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct DayQuery {
    /// `YYYY-MM-DD`; default today in the depot's time zone. Any other parameter is refused.
    date: Option<String>,
}

#[utoipa::path(get, path = "/driver/day", tag = "driver", summary = "The vehicle's dispatched routes of a day.", params(DayQuery), responses((status = 200, description = "`{ date, routes }`", body = DriverDay), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
async fn read_day(
    State(state): State<AppState>,
    auth: DriverAuth,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Json<DriverDay>, ApiError> {
    let mut date = None;
    for (key, value) in &query {
        match key.as_str() {
            "date" => {
                date = Some(Date::parse(value).ok_or_else(|| {
                    invalid(&ValidationErrors(vec![ValidationIssue::new(
                        IssueCode::InvalidString,
                        vec!["date".into()],
                        "a date YYYY-MM-DD",
                        value,
                        "date must be YYYY-MM-DD",
                    )]))
                })?)
            }
            other => {
                return Err(invalid(&ValidationErrors(vec![ValidationIssue::new(
                    IssueCode::UnrecognizedKeys,
                    vec![other.into()],
                    "date",
                    other,
                    format!("unknown query parameter {other}"),
                )])))
            }
        }
    }
    let driver = auth.driver();
    let links = Links::of(&state);
    let view = state
        .blocking(move |s| Ok(day::day(&*s.store, &driver, date, s.clock.now())?))
        .await?;
    let routes: Vec<_> = view
        .routes
        .iter()
        .map(|r| driver_route(r, &view.catalog, &links))
        .collect();
    Ok(Json(DriverDay {
        date: view.date.to_string(),
        routes,
    }))
}

/// A use case acting on one route of the driver with what the driver reported.
type RouteAction = fn(&dyn Store, &Driver, i64, Reported, Timestamp) -> Result<Route, ServiceError>;

/// Runs a route action of the driver with the body's `{time?, lat?, lng?}`, then answers with
/// the route.
async fn act(
    state: AppState,
    auth: DriverAuth,
    id: i64,
    body: &Value,
    action: RouteAction,
) -> Result<Json<OneRoute>, ApiError> {
    let reported = wire::reported_body(body)?;
    let driver = auth.driver();
    state
        .blocking(move |s| Ok(action(&*s.store, &driver, id, reported, s.clock.now())?))
        .await?;
    read(State(state), auth, IdPath(id)).await
}

#[utoipa::path(post, path = "/driver/routes/{id}/start", tag = "driver", summary = "Start the route (a repeat changes nothing; a completed route is refused).", params(("id" = i64, Path, description = "The route id.")), request_body(content = ReportedBody, description = "Optional: when and where; an empty body is fine."), responses((status = 200, description = "`{ route }` with `started_ts`.", body = OneRoute), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a dispatched route of the credential's vehicle.", body = crate::error::Envelope)))]
async fn start(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    wire::DriverBody(body): wire::DriverBody,
) -> Result<Json<OneRoute>, ApiError> {
    act(state, auth, id, &body, progress::start_route).await
}

#[utoipa::path(post, path = "/driver/routes/{id}/complete", operation_id = "complete_route", tag = "driver", summary = "Complete the route (every stop finished first).", params(("id" = i64, Path, description = "The route id.")), request_body(content = ReportedBody, description = "Optional: when and where; an empty body is fine."), responses((status = 200, description = "`{ route }` with `completed_ts`.", body = OneRoute), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a dispatched route of the credential's vehicle.", body = crate::error::Envelope)))]
async fn complete(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    wire::DriverBody(body): wire::DriverBody,
) -> Result<Json<OneRoute>, ApiError> {
    act(state, auth, id, &body, progress::complete_route).await
}

#[utoipa::path(post, path = "/driver/routes/{id}/positions", tag = "driver", summary = "Report positions of the vehicle on the route; the ETAs of the stops ahead are re-estimated.", params(("id" = i64, Path, description = "The route id.")), request_body(content = PositionsBody), responses((status = 200, description = "`{ track, etas }`", body = PositionsReport), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: not a dispatched route of the credential's vehicle.", body = crate::error::Envelope)))]
async fn positions(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    wire::DriverBody(body): wire::DriverBody,
) -> Result<Json<PositionsReport>, ApiError> {
    let points = wire::positions(&body)?;
    let driver = auth.driver();
    let summary = state
        .blocking(move |s| {
            Ok(track::report_positions(
                &*s.store,
                &driver,
                id,
                &points,
                s.clock.now(),
            )?)
        })
        .await?;
    let etas = refresh_etas(&state, driver, id).await;
    Ok(Json(PositionsReport {
        track: TrackWire {
            positions: summary.positions,
            actual_distance: summary.actual_distance_m,
            latest: TrackPointWire {
                lat: summary.latest.at.lat,
                lng: summary.latest.at.lng,
                time: ts_text(summary.latest.time),
            },
        },
        etas: etas
            .iter()
            .map(|e| StopEta {
                stop_id: e.stop_id,
                eta: ts_text(e.arrival),
                service_start: ts_text(e.start),
            })
            .collect(),
    }))
}

/// Re-estimates the ETAs of the route's stops ahead from its latest position and writes them
/// (firing `orders.on_delivery` where due). Runs after the action that prompted it committed;
/// a failure is logged and leaves the previous ETAs, it never fails that action.
pub(super) async fn refresh_etas(
    state: &AppState,
    driver: Driver,
    route_id: i64,
) -> Vec<eta::StopEstimate> {
    let result = state
        .blocking(move |s| {
            let Some(input) = eta::input(&*s.store, &driver, route_id)? else {
                return Ok(Vec::new());
            };
            let etas = eta::estimate(&input, &*s.routing.matrix).map_err(ApiError::internal)?;
            eta::apply(&*s.store, &driver, route_id, &etas, s.clock.now())?;
            Ok(etas)
        })
        .await;
    result.unwrap_or_else(|e| {
        tracing::warn!(route_id, error = %e.description, "ETA refresh failed");
        Vec::new()
    })
}
