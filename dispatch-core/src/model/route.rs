//! Routes: one vehicle's day of a plan's solution. Durations are whole seconds and distances
//! whole metres everywhere; times of day are seconds after midnight of the route's date in the
//! depot's time zone.

use crate::time::{Date, Timestamp};

/// One vehicle's day: an ordered list of stops between a start and an end point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// Identifier.
    pub id: i64,
    /// The depot.
    pub depot_id: i64,
    /// The plan it belongs to.
    pub plan_id: i64,
    /// The solution that produced it.
    pub solution_id: i64,
    /// Display name.
    pub name: String,
    /// Whether it was sent to the driver (one-way).
    pub dispatched: bool,
    /// Stored flag, not enforced.
    pub is_locked: bool,
    /// Service date.
    pub date: Date,
    /// Vehicle serving it (`None` once the vehicle was deleted).
    pub vehicle_id: Option<i64>,
    /// Planned times and distances.
    pub timing: RouteTiming,
    /// When the driver started.
    pub started_ts: Option<Timestamp>,
    /// When the driver completed it.
    pub completed_ts: Option<Timestamp>,
    /// Driven distance in metres, once known.
    pub actual_distance_m: Option<i64>,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

/// The planned clock of a route, all from the travel matrix the optimisation used.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RouteTiming {
    /// Departure from the start point, seconds after midnight.
    pub start_time_s: i64,
    /// Arrival at the end point (or at the last stop's departure for an open route), seconds
    /// after midnight.
    pub end_time_s: i64,
    /// `end_time_s - start_time_s`: driving, service, waiting and breaks.
    pub total_time_s: i64,
    /// Driving time.
    pub travel_time_s: i64,
    /// `total_time_s - travel_time_s`: serving, waiting for windows and breaks.
    pub operation_time_s: i64,
    /// Planned driving distance in metres.
    pub distance_m: i64,
    /// The driver's breaks where the plan takes them, in the order taken.
    pub breaks: Vec<RouteBreak>,
}

/// A driver's break on a route's planned clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteBreak {
    /// Start, seconds after midnight of the route's date (past 86 400 on a later day).
    pub start_s: i64,
    /// End, on the same scale.
    pub end_s: i64,
}

/// A route to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRoute {
    /// The plan.
    pub plan_id: i64,
    /// The solution that produced it.
    pub solution_id: i64,
    /// Display name.
    pub name: String,
    /// Service date.
    pub date: Date,
    /// The vehicle.
    pub vehicle_id: Option<i64>,
    /// Planned times and distances.
    pub timing: RouteTiming,
}

impl NewRoute {
    /// The route as stored under `id`: undispatched, unlocked, not started.
    pub fn stored(&self, id: i64, depot_id: i64, now: Timestamp) -> Route {
        Route {
            id,
            depot_id,
            plan_id: self.plan_id,
            solution_id: self.solution_id,
            name: self.name.clone(),
            dispatched: false,
            is_locked: false,
            date: self.date,
            vehicle_id: self.vehicle_id,
            timing: self.timing.clone(),
            started_ts: None,
            completed_ts: None,
            actual_distance_m: None,
            created: now,
            updated: now,
        }
    }
}
