//! The bridge between the order book and the solver: a day's orders and vehicles become a
//! solver [`Problem`] ([`build_day`]), and a solver
//! [`Solution`](crate::solver::solution::Solution) becomes routes and stops with times and
//! distances ([`plan_from_solution`]). The use cases that solve (`service::optimisation`,
//! `service::route_day`, `service::booking`) build their problems here; the solver itself knows
//! nothing of the model. It is pure (the travel matrix comes through the [`TravelMatrix`] port,
//! cancellation and time limits through [`solver::Control`]).
//!
//! # Units
//! Every duration is in **seconds**, every distance in **metres**, every time of day in
//! **seconds after local midnight of the plan date** in the depot's time zone (the depot's
//! `timezone` setting): order and customer time windows, shifts and breaks are wall-clock times
//! of that zone, so no conversion is needed. On a daylight-saving change day, travel across the
//! change is counted in elapsed time while the windows stay wall-clock times. Times past
//! midnight (vehicles available `always`) count on: 25:00 is 01:00 of the next day
//! ([`DayTime::day_offset`]). Loads are integers in thousandths of a capacity unit: demands are
//! rounded up and capacities down, so floats never decide feasibility.
//!
//! # From orders to tasks
//! - **Type**: a `delivery` is one visit at its delivery end that drops its load; a `pickup` one
//!   visit at its pickup end that collects it; a `shipment` a pickup visit then a delivery visit
//!   by the same vehicle, its load carried between them. Two orders sharing an
//!   `order_exchange.reference` become one visit (one stop holding both orders) at the location
//!   of the first of them in the request: it drops the delivery half's load and collects the
//!   pickup half's, lasts both durations, and must start inside a window of both halves. When
//!   only one half is in the request it is planned on its own.
//! - **Time windows**: the windows of the visited end (`delivery` or `pickup` typed), at most
//!   two per end in practice, any number accepted; a window bounds the *start* of service.
//!   Without order windows the customer's windows apply to the order's single visit (a customer
//!   window without `to` is open until midnight). A window whose `to` is before its `from` runs
//!   past midnight.
//! - **Durations**: `delivery_duration` / `pickup_duration` in minutes for the visited end,
//!   else the customer's `duration`, else none.
//! - **Capacities**: one dimension per capacity type of the depot. An order's demand of a type is
//!   its own `capacities` amount when it has one for that type, else the sum of its line items'
//!   amounts of that type (a line item's amount is for the whole line, not per unit). A vehicle
//!   without an entry for a type has the type's `default` when that is a number, else no limit.
//! - **Skills**: the order's skills and its customer's, matched case-sensitively against the
//!   vehicle's.
//! - **Priority**: `P1` before `P2` before `P3`, lexicographically (one P1 order outweighs any
//!   number of P2 orders); an order without a priority ranks as `P2`.
//! - **Dates**: an order whose `delivery_date` is another date is left out (`DELIVERY_DATE`);
//!   one whose visited end has `available_days` without the plan date's weekday is left out
//!   (`AVAILABLE_DAYS`).
//! - **Vehicle assignment**: an order assigned to a vehicle is only served by it; when that
//!   vehicle is not in the plan the order is left out (`NO_VEHICLE`).
//! - **Zones**: with a zone group, an order is served only when every visited end lies in a zone
//!   of the group (`OUTSIDE_ZONE` otherwise).
//! - **Location**: a visited end without coordinates is left out (`NO_LOCATION`); geocoding
//!   happens when orders are written, not here.
//! - **Upload sequence** (`maintain_upload_sequence`): within each route, orders are visited in
//!   the order of the request (a shipment's two visits at its place). The solver chooses which
//!   vehicle serves what; each route is then put in request order and re-timed, and an order
//!   that no longer fits is moved to another route in its place in the sequence, or left out with
//!   the constraint that blocked it.
//!
//! # Vehicles
//! - **Active**: with [`DayRequest::only_active_vehicles`], inactive vehicles are not used.
//! - **Availability**: `shift` works from `shift_start` to `shift_end`; `full_day` the whole plan
//!   date (00:00 to 24:00); `always` from 00:00 of the plan date with no end (its route may run
//!   into the next day). The shift of the plan date's weekday applies when the schedule has one,
//!   else the default shift; its `max_route_duration` (minutes) bounds the route's duration.
//! - **Break**: taken once, for `break_duration` minutes, starting no earlier than `break_start`
//!   and ending no later than `break_end`, wherever the vehicle is between two visits.
//! - **Start and end**: `depot` is the depot's coordinates; `other` the vehicle's own (the depot
//!   when they are missing); `app-location` is treated as the depot, since the service plans
//!   before the driver's app reports a position; end `none` ends the route at its last stop. A
//!   vehicle that needs the depot's position when the depot has none is an error
//!   ([`OptimiseError::DepotWithoutLocation`]).
//!
//! # Unserved orders
//! Every order that is not routed gets the [`UnservedReason`] of the constraint that actually
//! blocked it: the checks before solving give their own codes, the solver's per-task pre-check
//! names the constraint no vehicle can meet, and `NOT_PLACED` is left for orders that fit a
//! vehicle alone but found no room beside the others.

pub mod checkpoint;
mod describe;
mod exclusions;
mod from_solution;
mod orders;
mod reason;
mod sequence;
mod simulate;
mod timing;
mod to_problem;
mod vehicles;

#[cfg(test)]
mod tests;

use std::collections::HashMap;

use crate::model::customer::Customer;
use crate::model::location::Coordinates;
use crate::model::order::{Order, Side};
use crate::model::organisation::Depot;
use crate::model::reference::CapacityType;
use crate::model::vehicle::Vehicle;
use crate::model::zone::Zone;
use crate::ports::matrix::{MatrixError, TravelMatrix};
use crate::solver::formats::vroom_write::{self, WriteError};
use crate::solver::problem::{LocationIndex, Problem};
use crate::solver::{self};
use crate::time::zone::DepotZone;
use crate::time::{Date, TimeOfDay, Timestamp};

pub use from_solution::plan_from_solution;
pub use orders::visit_windows;
pub use reason::UnservedReason;
pub use to_problem::build_day;
pub use vehicles::{route_ends, vehicles_at_depot};

/// Integer load units per capacity unit.
pub const LOAD_SCALE: f64 = 1000.0;

/// What to plan: one depot's orders and vehicles for one date.
#[derive(Debug, Clone, Copy)]
pub struct DayRequest<'a> {
    /// The depot (its coordinates are the `depot` start and end).
    pub depot: &'a Depot,
    /// The plan date.
    pub date: Date,
    /// The orders to route, in request order (the order `maintain_upload_sequence` keeps).
    pub orders: &'a [Order],
    /// The vehicles that may serve them.
    pub vehicles: &'a [Vehicle],
    /// The depot's capacity types: one load dimension each.
    pub capacity_types: &'a [CapacityType],
    /// Customers of the orders (their duration, windows and skills are the orders' defaults);
    /// customers not referenced are ignored, missing ones simply give no defaults.
    pub customers: &'a [Customer],
    /// The zones of the requested zone group, if any: orders outside all of them are left out.
    pub zones: Option<&'a [Zone]>,
    /// Keep the request's order of the orders within each route.
    pub maintain_upload_sequence: bool,
    /// Leave inactive vehicles out (the optimisation setting `active_vehicles`).
    pub only_active_vehicles: bool,
    /// When the plan is made on its own date, that moment ([`planning_start`]): nothing is
    /// planned before it (a shift under way starts then, a break whose window has passed is
    /// left out, a shift already over has no route). `None` plans the whole day.
    pub not_before: Option<DayTime>,
}

/// The moment `now` on the clock of a plan for `date` in the depot's `zone`, when `now` falls
/// on that date: what [`DayRequest::not_before`] takes for plans and bookings made on their own
/// day. A day still to come, or one already past (planned after the fact), starts at its
/// shifts.
pub fn planning_start(zone: DepotZone, date: Date, now: Timestamp) -> Option<DayTime> {
    (zone.date_of(now) == date).then(|| DayTime(zone.seconds_after_midnight(date, now)))
}

/// A time on the plan's clock: seconds after local midnight of the plan date; may exceed one day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DayTime(pub i64);

impl DayTime {
    /// Seconds after local midnight of the plan date.
    pub fn seconds(self) -> i64 {
        self.0
    }

    /// Whole days after the plan date (0 on the plan date itself).
    pub fn day_offset(self) -> i64 {
        self.0.div_euclid(86_400)
    }

    /// The calendar date this time falls on.
    pub fn date(self, plan_date: Date) -> Date {
        plan_date.add_days(self.day_offset())
    }

    /// The time of day on its date, to the minute (seconds are dropped).
    pub fn time_of_day(self) -> TimeOfDay {
        let minutes = self.0.rem_euclid(86_400) / 60;
        TimeOfDay::from_minutes(minutes as u32).expect("under 24 hours")
    }
}

/// One order's part of a visit: which order and which of its ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Visit {
    /// The order.
    pub order_id: i64,
    /// The end visited: `Delivery` drops the order's load, `Pickup` collects it.
    pub side: Side,
}

/// A built problem and the maps from its indices back to the order book.
#[derive(Debug, Clone)]
pub struct BuiltDay {
    /// The solver's problem.
    pub problem: Problem,
    /// The plan date.
    pub date: Date,
    /// Per `problem.jobs[i]`: the orders it serves (two for an exchange).
    pub job_visits: Vec<Vec<Visit>>,
    /// Per `problem.shipments[i]`: the shipment order.
    pub shipment_orders: Vec<i64>,
    /// Per `problem.vehicles[i]`: the vehicle id.
    pub vehicle_ids: Vec<i64>,
    /// Per matrix location: its coordinates.
    pub locations: Vec<Coordinates>,
    /// Per job then per shipment: rank of its first order in the request.
    pub(crate) ranks: Vec<usize>,
    /// Rank of every order of the request.
    pub(crate) order_rank: HashMap<i64, usize>,
    /// Skill names by solver skill index.
    pub(crate) skill_names: Vec<String>,
    /// Capacity type names by load dimension.
    pub(crate) capacity_names: Vec<String>,
    /// Orders left out before solving, with their reasons.
    pub excluded: Vec<UnservedOrder>,
    /// Vehicles that work on the date but whose shift is over when the plan starts.
    pub(crate) shifts_over: Vec<i64>,
    /// When the plan starts, for a plan made on its own day ([`DayRequest::not_before`]).
    pub(crate) not_before: Option<DayTime>,
    /// Whether routes keep the request order.
    pub maintain_upload_sequence: bool,
    /// The travel times the matrix holds.
    pub travel: crate::ports::matrix::TravelSource,
}

impl BuiltDay {
    /// Coordinates of a matrix location.
    pub fn location(&self, index: LocationIndex) -> Coordinates {
        self.locations[index]
    }

    /// The problem as VROOM-style JSON with the exact matrix it holds (`dispatch solve
    /// --format vroom` and VROOM read it); job ids are order ids (an exchange's is its first
    /// order's), shipment pickup and delivery ids the shipment order's, vehicle ids the
    /// vehicles', loads in thousandths, times in seconds after local midnight.
    pub fn vroom_json(&self) -> Result<String, WriteError> {
        vroom_write::write(&self.problem)
    }
}

/// A driver break on a planned route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlannedBreak {
    /// Start of the break.
    pub start: DayTime,
    /// End of the break.
    pub end: DayTime,
}

/// One stop of a planned route: one or more orders served at one location in one visit.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedStop {
    /// The orders served here, in service order.
    pub order_ids: Vec<i64>,
    /// Per order in `order_ids`: the end of it served here.
    pub sides: Vec<Side>,
    /// Where.
    pub location: Coordinates,
    /// Arrival at the stop.
    pub arrival: DayTime,
    /// Start of service (after waiting for a window to open, if needed).
    pub service_start: DayTime,
    /// Departure after service.
    pub departure: DayTime,
    /// Distance from the previous point of the route (start or stop), metres.
    pub planned_distance_m: i64,
    /// Travel time from the previous point of the route, seconds.
    pub travel_time_s: i64,
    /// Seconds service starts after the end of the stop's latest window (0 when on time; only
    /// timings of given sequences can be late).
    pub late_s: i64,
}

/// One vehicle's planned route.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedRoute {
    /// The vehicle.
    pub vehicle_id: i64,
    /// Departure from the start point (arrival at the first stop for open starts).
    pub start_time: DayTime,
    /// Arrival at the end point (departure from the last stop for open ends).
    pub end_time: DayTime,
    /// `end_time - start_time`, seconds.
    pub total_time_s: i64,
    /// Driving time, seconds (start to end, end leg included).
    pub travel_time_s: i64,
    /// Driving distance, metres (start to end, end leg included).
    pub distance_m: i64,
    /// The start point, `None` for open starts.
    pub start_location: Option<Coordinates>,
    /// The end point, `None` for open ends.
    pub end_location: Option<Coordinates>,
    /// Distance from the last stop to the end point, metres.
    pub end_distance_m: i64,
    /// The stops in visiting order.
    pub stops: Vec<PlannedStop>,
    /// The driver's breaks.
    pub breaks: Vec<PlannedBreak>,
}

impl PlannedRoute {
    /// Time spent serving and waiting at stops and on breaks: total minus driving, seconds.
    pub fn operation_time_s(&self) -> i64 {
        self.total_time_s - self.travel_time_s
    }
}

/// An order the plan does not serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnservedOrder {
    /// The order.
    pub order_id: i64,
    /// The constraint that blocked it.
    pub reason: UnservedReason,
    /// A sentence for people, with the order's specifics.
    pub description: String,
}

/// The result of planning a day.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DayPlan {
    /// One route per used vehicle.
    pub routes: Vec<PlannedRoute>,
    /// Orders not served, each once, in request order.
    pub unserved: Vec<UnservedOrder>,
}

/// Why a day could not be planned at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptimiseError {
    /// Travel times could not be obtained.
    #[error(transparent)]
    Matrix(#[from] MatrixError),
    /// A vehicle starts or ends at the depot, which has no coordinates.
    #[error(
        "vehicle {vehicle_id} starts or ends at the depot, which has no coordinates: {}",
        crate::model::organisation::Depot::position_fix(*depot_id)
    )]
    DepotWithoutLocation {
        /// The vehicle.
        vehicle_id: i64,
        /// The depot.
        depot_id: i64,
    },
    /// A given stop sequence names an order that is not among the request's orders or cannot
    /// be located.
    #[error("order {order_id} of the stop sequence cannot be timed: {why}")]
    UnknownOrder {
        /// The order.
        order_id: i64,
        /// Why.
        why: String,
    },
    /// The vehicle of a route to time is not among the request's vehicles.
    #[error("vehicle {vehicle_id} is not among the request's vehicles")]
    UnknownVehicle {
        /// The vehicle.
        vehicle_id: i64,
    },
}

/// Builds the day's problem, solves it and converts the solution.
pub fn optimise_day(
    req: &DayRequest,
    matrix: &dyn TravelMatrix,
    config: &solver::Config,
    control: &dyn solver::Control,
) -> Result<DayPlan, OptimiseError> {
    let built = build_day(req, matrix)?;
    let solution = solver::solve(&built.problem, config, control);
    Ok(plan_from_solution(&built, &solution))
}

/// Re-export for callers that time given sequences.
pub use timing::{reoptimise_route, reoptimise_with_additions, time_route, RouteWithAdditions};
