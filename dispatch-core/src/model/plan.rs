//! Plans, their routes and stops, and the optimisation jobs that fill them.
//! Types only: optimisation and dispatch are built on top of them.

use crate::model::location::Coordinates;
use crate::time::{Date, TimeOfDay, Timestamp};

/// The outcome of optimising a set of orders for one date: routes plus what could not be placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Identifier.
    pub id: i64,
    /// The depot.
    pub depot_id: i64,
    /// True once every route is dispatched.
    pub dispatched: bool,
    /// The optimisation whose result the plan currently shows.
    pub current_optimisation: Option<Optimisation>,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

/// One background optimisation run of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Optimisation {
    /// UUID string.
    pub id: String,
    /// The plan it fills.
    pub plan_id: i64,
    /// True while the job runs.
    pub in_progress: bool,
}

/// One vehicle's day: an ordered list of stops between a start and an end point.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// Identifier.
    pub id: i64,
    /// The plan it belongs to.
    pub plan_id: i64,
    /// Display name.
    pub name: String,
    /// Whether it was sent to the driver (one-way).
    pub dispatched: bool,
    /// Stored flag, not enforced.
    pub is_locked: bool,
    /// Service date.
    pub date: Date,
    /// Departure from the start point.
    pub start_time: Option<TimeOfDay>,
    /// Arrival at the end point.
    pub end_time: Option<TimeOfDay>,
    /// When the driver started.
    pub started_ts: Option<Timestamp>,
    /// When the driver completed it.
    pub completed_ts: Option<Timestamp>,
    /// Vehicle serving it.
    pub vehicle_id: Option<i64>,
    /// Total time in minutes.
    pub total_time: f64,
    /// Driving time in minutes.
    pub travel_time: f64,
    /// Planned distance in metres.
    pub planned_distance: f64,
    /// Driven distance in metres.
    pub actual_distance: Option<f64>,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

/// One visit of a route (start, end and break points are not stops).
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    /// Identifier.
    pub id: i64,
    /// The route, or `None` for an unserved stop of a plan.
    pub route_id: Option<i64>,
    /// Position on the route, from 0.
    pub sequence: u32,
    /// Orders served at this stop.
    pub order_ids: Vec<i64>,
    /// Where.
    pub location: Option<Coordinates>,
    /// Address text.
    pub address: Option<String>,
    /// Planned arrival.
    pub estimated_arrival_time: Option<TimeOfDay>,
    /// Planned departure.
    pub estimated_departure_time: Option<TimeOfDay>,
    /// When the driver completed it.
    pub actual_completed_ts: Option<Timestamp>,
}
