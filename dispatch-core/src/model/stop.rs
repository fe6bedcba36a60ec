//! Stops: the visits of a route, in order. Start, end and break points are not stops. A stop
//! serves one order end (or both orders of an exchange pair at one location); its address and
//! contact are the served end's at planning time.

use crate::model::order::Side;
use crate::time::{Date, Timestamp};

/// One visit of a route.
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    /// Identifier.
    pub id: i64,
    /// The route.
    pub route_id: i64,
    /// Position on the route, from 0.
    pub sequence: u32,
    /// What is planned there.
    pub visit: StopVisit,
    /// When the driver completed it.
    pub actual_completed_ts: Option<Timestamp>,
    /// Creation instant.
    pub created: Timestamp,
}

/// The planned part of a stop: what a route's stop list is written from.
#[derive(Debug, Clone, PartialEq)]
pub struct StopVisit {
    /// Orders served here, in the order they are handled.
    pub order_ids: Vec<i64>,
    /// Which end of the orders this visit serves.
    pub side: Side,
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lng: Option<f64>,
    /// Address text of the served end.
    pub address: Option<String>,
    /// Postcode of the served end.
    pub postcode: Option<String>,
    /// Contact number of the served end.
    pub phone: Option<String>,
    /// Date of the planned arrival.
    pub arrival_date: Date,
    /// Planned arrival, seconds after midnight of `arrival_date` (depot time zone).
    pub arrival_s: i64,
    /// Date of the planned departure.
    pub departure_date: Date,
    /// Planned departure, seconds after midnight of `departure_date`.
    pub departure_s: i64,
    /// Driving distance from the previous point (the start or the previous stop), in metres.
    pub planned_distance_m: i64,
}
