//! Vehicles: availability, start and end locations, break, skills and capacities, and the
//! shift schedule derived from them. The field rules live in [`rules`].

use crate::model::reference::CapacityAmount;
use crate::patch::Patch;
use crate::time::{TimeOfDay, Timestamp, Weekday};

mod build;
pub mod rules;

pub use rules::apply_patch;

/// How many vehicles one organisation may hold (the spec leaves the number open).
pub const MAX_VEHICLES_PER_ORGANISATION: u64 = 500;
/// Longest vehicle name, in characters.
pub const MAX_NAME_CHARS: usize = 30;

/// When a vehicle can work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Availability {
    /// Between `shift_start` and `shift_end`.
    Shift,
    /// The whole working day of the depot.
    FullDay,
    /// Around the clock.
    Always,
}

impl Availability {
    /// Wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            Availability::Shift => "shift",
            Availability::FullDay => "full_day",
            Availability::Always => "always",
        }
    }

    /// Parses the wire spelling exactly.
    pub fn parse(s: &str) -> Option<Availability> {
        [
            Availability::Shift,
            Availability::FullDay,
            Availability::Always,
        ]
        .into_iter()
        .find(|a| a.as_str() == s)
    }
}

/// Where a vehicle's route starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartLocation {
    /// At the depot.
    Depot,
    /// At the vehicle's own address and coordinates.
    Other,
    /// Wherever the driver's app reports the vehicle.
    AppLocation,
}

impl StartLocation {
    /// Wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            StartLocation::Depot => "depot",
            StartLocation::Other => "other",
            StartLocation::AppLocation => "app-location",
        }
    }

    /// Parses the wire spelling exactly.
    pub fn parse(s: &str) -> Option<StartLocation> {
        [
            StartLocation::Depot,
            StartLocation::Other,
            StartLocation::AppLocation,
        ]
        .into_iter()
        .find(|a| a.as_str() == s)
    }
}

/// Where a vehicle's route ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndLocation {
    /// Back at the depot.
    Depot,
    /// At the vehicle's own address and coordinates.
    Other,
    /// At the last stop (open route).
    None,
}

impl EndLocation {
    /// Wire spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EndLocation::Depot => "depot",
            EndLocation::Other => "other",
            EndLocation::None => "none",
        }
    }

    /// Parses the wire spelling exactly.
    pub fn parse(s: &str) -> Option<EndLocation> {
        [EndLocation::Depot, EndLocation::Other, EndLocation::None]
            .into_iter()
            .find(|a| a.as_str() == s)
    }
}

/// An address stored as given (never geocoded) with optional coordinates.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Place {
    /// Address text.
    pub address: Option<String>,
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lng: Option<f64>,
}

/// Everything about a vehicle a client can write, after validation.
#[derive(Debug, Clone, PartialEq)]
pub struct VehicleFields {
    /// Display name, 1-30 characters.
    pub name: String,
    /// Whether the vehicle is used (inactive vehicles are still listed).
    pub active: bool,
    /// When it can work.
    pub availability: Availability,
    /// Shift start (used with [`Availability::Shift`]).
    pub shift_start: Option<TimeOfDay>,
    /// Shift end, after the start.
    pub shift_end: Option<TimeOfDay>,
    /// Where routes start.
    pub start_location: StartLocation,
    /// The start point for [`StartLocation::Other`].
    pub start: Place,
    /// Where routes end.
    pub end_location: EndLocation,
    /// The end point for [`EndLocation::Other`].
    pub end: Place,
    /// Whether the driver takes a break.
    pub has_break: bool,
    /// Earliest break start.
    pub break_start: Option<TimeOfDay>,
    /// Latest break end.
    pub break_end: Option<TimeOfDay>,
    /// Break length in minutes, shorter than the break window.
    pub break_duration: Option<f64>,
    /// Skill names, case-sensitive, without duplicates, in the order sent.
    pub skills: Vec<String>,
    /// Capacity amounts by capacity-type id (names are filled on reads).
    pub capacities: Vec<CapacityAmount>,
}

/// A stored vehicle.
#[derive(Debug, Clone, PartialEq)]
pub struct Vehicle {
    /// Identifier.
    pub id: i64,
    /// Its depot.
    pub depot_id: i64,
    /// The written fields.
    pub fields: VehicleFields,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

impl Vehicle {
    /// The shift schedule as read through the API. The API does not write the schedule; the
    /// vehicle's availability, shift and break are its default shift, which is the whole schedule
    /// as long as no per-day shifts exist (`day_of_week` is `None` on the default shift).
    pub fn shifts(&self) -> Vec<Shift> {
        let f = &self.fields;
        vec![Shift {
            enabled: f.active,
            availability: f.availability,
            shift_start: f.shift_start,
            shift_end: f.shift_end,
            force_shift_start: false,
            max_route_duration: None,
            day_of_week: None,
            breaks: vec![ShiftBreak {
                enabled: f.has_break,
                break_start: f.break_start,
                break_end: f.break_end,
                break_duration: f.break_duration,
            }],
        }]
    }
}

/// One entry of a vehicle's shift schedule.
#[derive(Debug, Clone, PartialEq)]
pub struct Shift {
    /// Whether the vehicle works this shift.
    pub enabled: bool,
    /// Availability during the shift.
    pub availability: Availability,
    /// Start of the shift.
    pub shift_start: Option<TimeOfDay>,
    /// End of the shift.
    pub shift_end: Option<TimeOfDay>,
    /// Whether the route must start exactly at the shift start.
    pub force_shift_start: bool,
    /// Longest route in minutes, if limited.
    pub max_route_duration: Option<f64>,
    /// The weekday this entry is for; `None` for the default shift.
    pub day_of_week: Option<Weekday>,
    /// Breaks in the shift.
    pub breaks: Vec<ShiftBreak>,
}

/// A break within a shift.
#[derive(Debug, Clone, PartialEq)]
pub struct ShiftBreak {
    /// Whether the break is taken.
    pub enabled: bool,
    /// Earliest start.
    pub break_start: Option<TimeOfDay>,
    /// Latest end.
    pub break_end: Option<TimeOfDay>,
    /// Length in minutes.
    pub break_duration: Option<f64>,
}

/// A capacity entry of a vehicle write.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CapacityWrite {
    /// The capacity type; entries without one, or with an id unknown in the depot, are dropped.
    pub id: Option<i64>,
    /// The amount (required).
    pub capacity: Option<f64>,
}

/// A vehicle write as received: every property with its presence. Values are already of the
/// right JSON type; formats, enums and rules are checked by [`apply_patch`].
#[derive(Debug, Clone, PartialEq, Default)]
pub struct VehiclePatch {
    /// `name`.
    pub name: Patch<String>,
    /// `active`.
    pub active: Patch<bool>,
    /// `availability`.
    pub availability: Patch<String>,
    /// `shift_start`.
    pub shift_start: Patch<String>,
    /// `shift_end`.
    pub shift_end: Patch<String>,
    /// `start_location`.
    pub start_location: Patch<String>,
    /// `start_address`.
    pub start_address: Patch<String>,
    /// `start_lat`.
    pub start_lat: Patch<f64>,
    /// `start_lng`.
    pub start_lng: Patch<f64>,
    /// `end_location`.
    pub end_location: Patch<String>,
    /// `end_address`.
    pub end_address: Patch<String>,
    /// `end_lat`.
    pub end_lat: Patch<f64>,
    /// `end_lng`.
    pub end_lng: Patch<f64>,
    /// `break`.
    pub has_break: Patch<bool>,
    /// `break_start`.
    pub break_start: Patch<String>,
    /// `break_end`.
    pub break_end: Patch<String>,
    /// `break_duration`.
    pub break_duration: Patch<f64>,
    /// `skills`.
    pub skills: Patch<Vec<String>>,
    /// `capacities`.
    pub capacities: Patch<Vec<CapacityWrite>>,
}
