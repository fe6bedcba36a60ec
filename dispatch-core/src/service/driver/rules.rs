//! Checks shared by the driver's actions: the state a route or visit must be in, and the
//! reported time and position of an action.

use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::driver_visit::{check_position, check_reported_time, LatLng};
use crate::model::route::Route;
use crate::service::ServiceError;
use crate::time::Timestamp;

/// When and where an action happened, as the device reports it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Reported {
    /// When (default: when the service receives it).
    pub time: Option<Timestamp>,
    /// Where, when known.
    pub at: Option<LatLng>,
}

impl Reported {
    /// The checked time (`now` when none was reported); 400 at `time`, `lat`, `lng`.
    pub fn checked(&self, now: Timestamp) -> Result<Timestamp, ServiceError> {
        let mut errors = ValidationErrors::default();
        if let Some(t) = self.time {
            check_reported_time(&mut errors, vec!["time".into()], t, now);
        }
        if let Some(at) = self.at {
            check_position(&mut errors, &[], at);
        }
        if errors.is_empty() {
            Ok(self.time.unwrap_or(now))
        } else {
            Err(errors.into())
        }
    }
}

/// The time of an action that cannot come before `earliest` (the route's start, the stop's
/// arrival), from `checked` (what [`Reported::checked`] gave). A reported time before it is
/// 400 at `time`: the device contradicts what it reported earlier, and a duration computed
/// from the two would be false. Without a reported time the service's clock stands in, but
/// never before `earliest`: a device clock may run up to 5 minutes ahead of the service's.
pub fn not_before(
    reported: &Reported,
    checked: Timestamp,
    earliest: Option<(Timestamp, &str)>,
) -> Result<Timestamp, ServiceError> {
    let Some((earliest, what)) = earliest else {
        return Ok(checked);
    };
    if checked >= earliest {
        return Ok(checked);
    }
    if reported.time.is_none() {
        return Ok(earliest);
    }
    Err(ValidationErrors(vec![ValidationIssue::new(
        IssueCode::TooSmall,
        vec!["time".into()],
        format!("a time at or after {what} ({earliest})"),
        checked.to_string(),
        format!("time must not be before {what} ({earliest})"),
    )])
    .into())
}

/// A refusal because of the state of the route or stop (400 INVALID_INPUT, no field path).
pub fn state_error(state: &str, message: &str) -> ServiceError {
    ServiceError::Invalid(ValidationErrors(vec![ValidationIssue::new(
        IssueCode::Custom,
        Vec::<PathSegment>::new(),
        "an action the current state allows",
        state,
        message,
    )]))
}

/// The route is started and not completed: stops can be worked on.
pub fn on_the_road(route: &Route) -> Result<(), ServiceError> {
    if route.started_ts.is_none() {
        return Err(state_error(
            "not started",
            "start the route first (POST /driver/routes/{id}/start)",
        ));
    }
    if route.completed_ts.is_some() {
        return Err(state_error("completed", "the route is already completed"));
    }
    Ok(())
}

/// A text field of at most `max` characters (notes, reasons); 400 at `path`.
pub fn check_text(path: &str, text: &str, min: usize, max: usize) -> Result<(), ServiceError> {
    let n = text.chars().count();
    if (min..=max).contains(&n) {
        return Ok(());
    }
    let code = if n < min {
        IssueCode::TooSmall
    } else {
        IssueCode::TooBig
    };
    Err(ValidationErrors(vec![ValidationIssue::new(
        code,
        vec![path.into()],
        format!("{min} to {max} characters"),
        format!("{n} characters"),
        format!("{path} must have {min} to {max} characters"),
    )])
    .into())
}
