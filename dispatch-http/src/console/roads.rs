//! `GET /console/roads?plan=ID`: the line each route of a plan drives, along the roads, for the
//! board's map. With `serve --osrm-url` the lines come from OSRM's route service (the travel
//! matrix says how long and how far, not where); without it, or for a route OSRM cannot answer
//! for, the line is straight from point to point and the answer says so.
//!
//! Lines are kept per plan: a route's line is asked again only when its points change (a move,
//! a reversal), so the board's redraws cost OSRM nothing. The most recently asked plans are
//! kept, a bounded number of them.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use axum::extract::{Query, State};
use axum::Json;
use dispatch_core::model::location::Coordinates;
use dispatch_core::optimise::route_ends;
use dispatch_core::ports::roads::{Point, RoadError, RoadGeometry};
use serde::Serialize;
use utoipa::ToSchema;

use super::query;
use crate::error::ApiError;
use crate::extract::Caller;
use crate::AppState;

/// How many plans' lines are kept.
const PLANS_KEPT: usize = 64;

/// The road network the board draws on, with the lines already asked.
pub struct Roads {
    geometry: Arc<dyn RoadGeometry>,
    kept: Mutex<VecDeque<(i64, HashMap<i64, Kept>)>>,
    /// One asking per plan at a time: a second board's read waits and finds the lines kept.
    asking: Mutex<HashMap<i64, Arc<Mutex<()>>>>,
}

/// A route's line and the points it was asked for.
#[derive(Clone)]
struct Kept {
    points: Vec<(u64, u64)>,
    line: Arc<Vec<[f64; 2]>>,
}

impl Roads {
    /// Lines from `geometry` (OSRM's route service when serving).
    pub fn new(geometry: Arc<dyn RoadGeometry>) -> Roads {
        Roads {
            geometry,
            kept: Mutex::new(VecDeque::new()),
            asking: Mutex::new(HashMap::new()),
        }
    }

    /// The lock of asking OSRM for `plan`'s lines.
    fn asking(&self, plan: i64) -> Arc<Mutex<()>> {
        let mut asking = self.asking.lock().unwrap_or_else(|e| e.into_inner());
        if asking.len() > PLANS_KEPT {
            asking.retain(|_, lock| Arc::strong_count(lock) > 1);
        }
        asking.entry(plan).or_default().clone()
    }

    fn kept(&self, plan: i64, route: i64, points: &[(u64, u64)]) -> Option<Arc<Vec<[f64; 2]>>> {
        let kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let (_, routes) = kept.iter().find(|(id, _)| *id == plan)?;
        routes
            .get(&route)
            .filter(|k| k.points == points)
            .map(|k| k.line.clone())
    }

    fn keep(&self, plan: i64, route: i64, kept_line: Kept) {
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        let at = match kept.iter().position(|(id, _)| *id == plan) {
            Some(at) => at,
            None => {
                if kept.len() == PLANS_KEPT {
                    kept.pop_front();
                }
                kept.push_back((plan, HashMap::new()));
                kept.len() - 1
            }
        };
        kept[at].1.insert(route, kept_line);
    }
}

impl std::fmt::Debug for Roads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Roads").finish_non_exhaustive()
    }
}

/// `GET /console/roads`'s parameter.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(super) struct RoadsQuery {
    /// The plan whose routes' lines are asked.
    plan: i64,
}

/// `{ plan_id, source, warning, routes }`.
#[derive(Serialize, ToSchema)]
pub struct ConsoleRoads {
    /// The plan.
    pub plan_id: i64,
    /// `osrm` (roads from `--osrm-url`) or `straight` (no road network configured).
    pub source: &'static str,
    /// Why some lines are straight although OSRM is configured (it could not answer); null
    /// when every line is as the source says.
    #[schema(required = true)]
    pub warning: Option<String>,
    /// One line per route the plan shows (its start, stops and end in visiting order).
    pub routes: Vec<ConsoleRoad>,
}

/// A route's line.
#[derive(Serialize, ToSchema)]
pub struct ConsoleRoad {
    /// The route.
    pub route_id: i64,
    /// The route's stop ids the line goes through, in order (they change with every edit of
    /// the route, so a line can be told from a stale one).
    pub stop_ids: Vec<i64>,
    /// Whether the line follows the roads (false: straight from point to point).
    pub roads: bool,
    /// `[lat, lng]` points from the route's start through its stops to its end.
    pub points: Vec<[f64; 2]>,
}

/// A route's points to draw a line through.
struct Line {
    route_id: i64,
    stop_ids: Vec<i64>,
    points: Vec<Point>,
}

/// A route's points in visiting order, as longitude/latitude points.
fn route_points(
    start: Option<Coordinates>,
    stops: &[Coordinates],
    end: Option<Coordinates>,
) -> Vec<Point> {
    let mut points: Vec<Point> = start.iter().map(|c| Point::new(c.lng, c.lat)).collect();
    points.extend(stops.iter().map(|c| Point::new(c.lng, c.lat)));
    if !stops.is_empty() {
        points.extend(end.iter().map(|c| Point::new(c.lng, c.lat)));
    }
    points
}

fn lat_lng(points: &[Point]) -> Vec<[f64; 2]> {
    points.iter().map(|p| [p.y, p.x]).collect()
}

/// `{ plan_id, source, warning, routes }`: each route's line along the roads (OSRM's route
/// service with `--osrm-url`), else straight.
#[utoipa::path(get, path = "/console/roads", tag = "console", summary = "The line each route of a plan drives, along the roads when OSRM is configured.", params(RoadsQuery), responses((status = 200, description = "`{ plan_id, source, warning, routes }`", body = ConsoleRoads), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope), (status = 404, description = "RESOURCE_NOT_FOUND: no such plan in the depot.", body = crate::error::Envelope)))]
pub(super) async fn roads(
    State(state): State<AppState>,
    Caller(p): Caller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Json<ConsoleRoads>, ApiError> {
    let (plan_id, routes) = query::plan_routes_read(&state, p, &query, |tx, scope, routes| {
        let depot = tx
            .get_depot(scope)?
            .and_then(|d| Coordinates::new(d.lat?, d.lng?));
        let mut out = Vec::new();
        for route in routes {
            let vehicle = match route.vehicle_id {
                Some(v) => tx.get_vehicle(scope, v)?,
                None => None,
            };
            let (start, end) = match &vehicle {
                Some(v) => route_ends(v, depot),
                None => (depot, depot),
            };
            let stops = tx.list_stops(scope, route.id)?;
            let at: Vec<Coordinates> = stops
                .iter()
                .filter_map(|s| Coordinates::new(s.visit.lat?, s.visit.lng?))
                .collect();
            out.push(Line {
                route_id: route.id,
                stop_ids: stops.iter().map(|s| s.id).collect(),
                points: route_points(start, &at, end),
            });
        }
        Ok(out)
    })
    .await?;
    let Some(network) = state.routing.roads.clone() else {
        return Ok(Json(ConsoleRoads {
            plan_id,
            source: "straight",
            warning: None,
            routes: routes
                .into_iter()
                .map(|l| ConsoleRoad {
                    points: lat_lng(&l.points),
                    route_id: l.route_id,
                    stop_ids: l.stop_ids,
                    roads: false,
                })
                .collect(),
        }));
    };
    let (warning, routes) = state
        .blocking(move |_| Ok(lines(&network, plan_id, routes)))
        .await?;
    Ok(Json(ConsoleRoads {
        plan_id,
        source: "osrm",
        warning,
        routes,
    }))
}

/// Each route's line, kept or asked; after the first failure the rest are straight (a router
/// that is down is not asked once per route).
fn lines(network: &Roads, plan_id: i64, routes: Vec<Line>) -> (Option<String>, Vec<ConsoleRoad>) {
    let lock = network.asking(plan_id);
    let _asking = lock.lock().unwrap_or_else(|e| e.into_inner());
    let mut warning = None;
    let mut out = Vec::with_capacity(routes.len());
    for Line {
        route_id,
        stop_ids,
        points,
    } in routes
    {
        let key: Vec<(u64, u64)> = points
            .iter()
            .map(|p| (p.x.to_bits(), p.y.to_bits()))
            .collect();
        let line = match network.kept(plan_id, route_id, &key) {
            Some(line) => Some(line),
            None if warning.is_none() => match network.geometry.path(&points) {
                Ok(line) => {
                    let line = Arc::new(lat_lng(&line));
                    network.keep(
                        plan_id,
                        route_id,
                        Kept {
                            points: key,
                            line: line.clone(),
                        },
                    );
                    Some(line)
                }
                Err(RoadError::Unavailable(why)) => {
                    tracing::warn!(error = %why, plan_id, "road geometry unavailable; the map draws straight lines");
                    warning = Some(format!("{why}: straight lines instead of roads"));
                    None
                }
                Err(e @ RoadError::InvalidPoint { .. }) => {
                    warning = Some(format!("{e}: straight lines instead of roads"));
                    None
                }
            },
            None => None,
        };
        out.push(match line {
            Some(line) => ConsoleRoad {
                route_id,
                stop_ids,
                roads: true,
                points: line.to_vec(),
            },
            None => ConsoleRoad {
                route_id,
                stop_ids,
                roads: false,
                points: lat_lng(&points),
            },
        });
    }
    (warning, out)
}
