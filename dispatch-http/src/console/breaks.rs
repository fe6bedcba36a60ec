//! `GET /console/breaks?plan=ID`: where the plan has each route's driver take the break, for
//! the board's timeline. The optimiser places breaks (and every edit of a route times them
//! again), but the spec's route object lists no breaks ("route start, end and break points are
//! not listed as stops") and its fields are fixed, so the board asks here, behind the same key.

use axum::extract::{Query, State};
use axum::Json;
use dispatch_core::model::route::Route;
use serde::Serialize;
use utoipa::ToSchema;

use super::query;
use crate::error::ApiError;
use crate::extract::Caller;
use crate::v2::plan_render::clock;
use crate::AppState;

/// `GET /console/breaks`'s parameter.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(super) struct BreaksQuery {
    /// The plan whose routes' breaks are asked.
    plan: i64,
}

/// `{ plan_id, routes }`.
#[derive(Serialize, ToSchema)]
pub struct ConsoleBreaks {
    /// The plan.
    pub plan_id: i64,
    /// One entry per route the plan shows.
    pub routes: Vec<RouteBreaks>,
}

/// A route's planned breaks.
#[derive(Serialize, ToSchema)]
pub struct RouteBreaks {
    /// The route.
    pub route_id: i64,
    /// Its breaks in the order taken; empty when its vehicle has none (or the route was
    /// planned before breaks were kept).
    pub breaks: Vec<PlannedBreak>,
}

/// A break on the route's planned clock, in the depot's time zone like the stops' times.
#[derive(Serialize, ToSchema)]
pub struct PlannedBreak {
    /// The date the break starts on (`YYYY-MM-DD`).
    pub start_date: String,
    /// Its start, `HH:mm`.
    pub start_time: String,
    /// The date it ends on.
    pub end_date: String,
    /// Its end, `HH:mm`.
    pub end_time: String,
}

fn route_breaks(route: &Route) -> RouteBreaks {
    let on = |seconds: i64| {
        (
            route.date.add_days(seconds.div_euclid(86_400)).to_string(),
            clock(seconds),
        )
    };
    RouteBreaks {
        route_id: route.id,
        breaks: route
            .timing
            .breaks
            .iter()
            .map(|b| {
                let ((start_date, start_time), (end_date, end_time)) = (on(b.start_s), on(b.end_s));
                PlannedBreak {
                    start_date,
                    start_time,
                    end_date,
                    end_time,
                }
            })
            .collect(),
    }
}

/// `{ plan_id, routes: [{route_id, breaks: [{start_date, start_time, end_date, end_time}]}] }`.
#[utoipa::path(get, path = "/console/breaks", tag = "console", summary = "Where the plan has each route's driver take the break.", params(BreaksQuery), responses((status = 200, description = "`{ plan_id, routes }`", body = ConsoleBreaks), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: no such plan in the depot.", body = crate::error::Envelope)))]
pub(super) async fn breaks(
    State(state): State<AppState>,
    Caller(p): Caller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Json<ConsoleBreaks>, ApiError> {
    let (plan_id, routes) = query::plan_routes_read(&state, p, &query, |_, _, routes| {
        Ok(routes.iter().map(route_breaks).collect())
    })
    .await?;
    Ok(Json(ConsoleBreaks { plan_id, routes }))
}
