//! What a driver reports on the road: the route's start and end, the visit of each order
//! (arrival, outcome, notes, ETA), phone calls, the position track, and the feed of route
//! changes the driver is told about.

use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::time::Timestamp;

/// A latitude/longitude pair reported by a driver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LatLng {
    /// Latitude, -90 to 90.
    pub lat: f64,
    /// Longitude, -180 to 180.
    pub lng: f64,
}

/// The driver side of a started route (beyond `started_ts` / `completed_ts` on the route).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DriverRoute {
    /// The route.
    pub route_id: i64,
    /// Where the driver was when starting.
    pub started_at: Option<LatLng>,
    /// The ROUTE_VEHICLE_CHECKIN questionnaire submission linked to the start.
    pub checkin_submission_id: Option<i64>,
    /// Where the driver was when completing.
    pub completed_at: Option<LatLng>,
}

/// How a visit ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VisitOutcome {
    /// Served (in full or in part: see the delivered quantities).
    Completed,
    /// Not served; the line items became UNDELIVERED.
    Failed,
}

impl VisitOutcome {
    /// Stable spelling (`completed`, `failed`).
    pub fn as_str(self) -> &'static str {
        match self {
            VisitOutcome::Completed => "completed",
            VisitOutcome::Failed => "failed",
        }
    }

    /// Parses the stable spelling.
    pub fn parse(s: &str) -> Option<VisitOutcome> {
        match s {
            "completed" => Some(VisitOutcome::Completed),
            "failed" => Some(VisitOutcome::Failed),
            _ => None,
        }
    }
}

/// What happened to one order on one route. Kept per (route, order), not per stop, so that
/// it survives the stop rebuilds of route edits; a stop shows the visit of its orders.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DriverVisit {
    /// The route.
    pub route_id: i64,
    /// The order.
    pub order_id: i64,
    /// When the driver arrived.
    pub arrived: Option<Timestamp>,
    /// When the driver completed or failed the visit.
    pub completed: Option<Timestamp>,
    /// How it ended.
    pub outcome: Option<VisitOutcome>,
    /// Where the driver was when completing or failing it.
    pub completed_at: Option<LatLng>,
    /// Why it failed.
    pub failed_reason: Option<String>,
    /// The driver's notes.
    pub notes: Option<String>,
    /// What became of each line item of the order on this visit.
    pub delivered: Vec<ItemOutcome>,
    /// The current estimated arrival, while the visit is ahead.
    pub eta: Option<Timestamp>,
    /// The current estimated service start (the arrival, or the opening of the order's time
    /// window when the driver gets there before it): what the customer is promised.
    pub start_eta: Option<Timestamp>,
    /// When `orders.on_delivery` fired for it.
    pub on_delivery: Option<Timestamp>,
}

/// What became of one line item on a visit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemOutcome {
    /// The line item.
    pub line_item_id: i64,
    /// Its quantity when the visit ended.
    pub ordered: i64,
    /// How many were delivered (0 to `ordered`).
    pub delivered: i64,
    /// Why not all of it, when the driver said.
    pub failed_reason: Option<String>,
}

/// A phone call the driver made about a visit.
#[derive(Debug, Clone, PartialEq)]
pub struct PhoneCall {
    /// Identifier.
    pub id: i64,
    /// The route.
    pub route_id: i64,
    /// The order whose contact was called.
    pub order_id: i64,
    /// When the call was started.
    pub initiated_at: Timestamp,
    /// When the service recorded it.
    pub recorded_at: Timestamp,
    /// Where the driver was, when known.
    pub position: Option<LatLng>,
}

/// One reported position of the vehicle on a route.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackPoint {
    /// Where.
    pub at: LatLng,
    /// When the device measured it.
    pub time: Timestamp,
}

/// What changed on a vehicle's dispatched route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedKind {
    /// The route was dispatched to the vehicle.
    Dispatched,
    /// The dispatched route was edited (reversed, orders added or removed).
    Edited,
    /// The dispatched route was deleted.
    Deleted,
}

impl FeedKind {
    /// Stable spelling (`dispatched`, `edited`, `deleted`).
    pub fn as_str(self) -> &'static str {
        match self {
            FeedKind::Dispatched => "dispatched",
            FeedKind::Edited => "edited",
            FeedKind::Deleted => "deleted",
        }
    }

    /// Parses the stable spelling.
    pub fn parse(s: &str) -> Option<FeedKind> {
        match s {
            "dispatched" => Some(FeedKind::Dispatched),
            "edited" => Some(FeedKind::Edited),
            "deleted" => Some(FeedKind::Deleted),
            _ => None,
        }
    }
}

/// One message of a vehicle's feed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedEntry {
    /// Position in the feed: later changes have larger ids (the resume cursor).
    pub id: i64,
    /// The route.
    pub route_id: i64,
    /// What happened.
    pub kind: FeedKind,
    /// When the change committed.
    pub created: Timestamp,
}

/// How far ahead of the service's clock a reported time may be (device clocks drift).
pub const MAX_CLOCK_AHEAD_MS: i64 = 5 * 60 * 1000;
/// How far back a reported time may be (a device that was offline sends its queue later).
pub const MAX_REPORT_AGE_MS: i64 = 48 * 3600 * 1000;

/// Checks a reported position: latitude -90 to 90, longitude -180 to 180, both finite.
pub fn check_position(errors: &mut ValidationErrors, path: &[PathSegment], at: LatLng) {
    for (key, value, bound) in [("lat", at.lat, 90.0), ("lng", at.lng, 180.0)] {
        if !value.is_finite() || value.abs() > bound {
            let mut p = path.to_vec();
            p.push(key.into());
            errors.push(ValidationIssue::new(
                IssueCode::TooBig,
                p,
                format!("a number from -{bound} to {bound}"),
                value.to_string(),
                format!("{key} must be between -{bound} and {bound}"),
            ));
        }
    }
}

/// Checks a time a device reported against the service's clock `now`: at most
/// [`MAX_CLOCK_AHEAD_MS`] ahead and [`MAX_REPORT_AGE_MS`] behind.
pub fn check_reported_time(
    errors: &mut ValidationErrors,
    path: Vec<PathSegment>,
    t: Timestamp,
    now: Timestamp,
) {
    let ahead = t.millis() - now.millis();
    let (code, expected) = if ahead > MAX_CLOCK_AHEAD_MS {
        (IssueCode::TooBig, "a time at most 5 minutes after now")
    } else if -ahead > MAX_REPORT_AGE_MS {
        (IssueCode::TooSmall, "a time at most 48 hours before now")
    } else {
        return;
    };
    errors.push(ValidationIssue::new(
        code,
        path,
        expected,
        t.to_string(),
        format!("the reported time must be {}", &expected[7..]),
    ));
}
