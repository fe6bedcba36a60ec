//! The driver's routes: the day (`GET /driver/day`), one route (`GET /driver/routes/{id}`),
//! start, position reports and completion. Routes are shaped as `GET /v2/routes/{id}`.

use axum::extract::{Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::model::driver::Driver;
use dispatch_core::model::route::Route;
use dispatch_core::ports::store::Store;
use dispatch_core::service::driver::rules::Reported;
use dispatch_core::service::driver::{day, eta, progress, track};
use dispatch_core::service::ServiceError;
use dispatch_core::time::{Date, Timestamp};
use serde_json::{json, Value};

use super::auth::DriverAuth;
use super::wire;
use crate::error::ApiError;
use crate::extract::IdPath;
use crate::links::Links;
use crate::rejection::invalid;
use crate::v2::plan_render::render_route;
use crate::v2::shapes::to_json;
use crate::v2::wire::ts;
use crate::AppState;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/day", get(read_day))
        .route("/routes/{id}", get(read))
        .route("/routes/{id}/start", post(start))
        .route("/routes/{id}/positions", post(positions))
        .route("/routes/{id}/complete", post(complete))
}

async fn read(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
) -> Result<Json<Value>, ApiError> {
    Ok(Json(
        json!({ "route": route_json(&state, auth.driver(), id).await? }),
    ))
}

/// The route as the driver reads it.
pub(super) async fn route_json(
    state: &AppState,
    driver: Driver,
    id: i64,
) -> Result<Value, ApiError> {
    let (view, catalog) = state
        .blocking(move |s| Ok(day::route(&*s.store, &driver, id)?))
        .await?;
    Ok(to_json(render_route(&view, &catalog, &Links::of(state))))
}

async fn read_day(
    State(state): State<AppState>,
    auth: DriverAuth,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
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
        .map(|r| render_route(r, &view.catalog, &links))
        .collect();
    Ok(Json(
        json!({ "date": view.date.to_string(), "routes": routes }),
    ))
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
) -> Result<Json<Value>, ApiError> {
    let reported = wire::reported_body(body)?;
    let driver = auth.driver();
    state
        .blocking(move |s| Ok(action(&*s.store, &driver, id, reported, s.clock.now())?))
        .await?;
    read(State(state), auth, IdPath(id)).await
}

async fn start(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    wire::DriverBody(body): wire::DriverBody,
) -> Result<Json<Value>, ApiError> {
    act(state, auth, id, &body, progress::start_route).await
}

async fn complete(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    wire::DriverBody(body): wire::DriverBody,
) -> Result<Json<Value>, ApiError> {
    act(state, auth, id, &body, progress::complete_route).await
}

async fn positions(
    State(state): State<AppState>,
    auth: DriverAuth,
    IdPath(id): IdPath,
    wire::DriverBody(body): wire::DriverBody,
) -> Result<Json<Value>, ApiError> {
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
    Ok(Json(json!({
        "track": {
            "positions": summary.positions,
            "actual_distance": summary.actual_distance_m,
            "latest": {
                "lat": summary.latest.at.lat,
                "lng": summary.latest.at.lng,
                "time": ts(summary.latest.time),
            },
        },
        "etas": etas
            .iter()
            .map(|(stop, eta)| json!({"stop_id": stop, "eta": ts(*eta)}))
            .collect::<Vec<_>>(),
    })))
}

/// Re-estimates the ETAs of the route's stops ahead from its latest position and writes them
/// (firing `orders.on_delivery` where due). Runs after the action that prompted it committed;
/// a failure is logged and leaves the previous ETAs, it never fails that action.
pub(super) async fn refresh_etas(
    state: &AppState,
    driver: Driver,
    route_id: i64,
) -> Vec<(i64, Timestamp)> {
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
