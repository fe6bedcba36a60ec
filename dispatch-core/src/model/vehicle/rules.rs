//! The field rules of a vehicle write, for creation (no base) and partial update (over the
//! stored fields). Every violation is collected with its field path.

use super::{
    Availability, EndLocation, StartLocation, VehicleFields, VehiclePatch, MAX_NAME_CHARS,
};
use crate::error::{IssueCode, ValidationErrors};
use checker::Checker;

/// Validates `patch` and merges it over `base` (the stored vehicle on update, `None` on create,
/// where `name`, `availability`, `start_location` and `end_location` are required). Rules applied
/// to the merged result: shift start before end (and both present for availability `shift`),
/// `other` locations have lat and lng, a break has start, end and a duration shorter than its
/// window. Sent `skills`/`capacities` replace the stored sets.
pub fn apply_patch(
    patch: &VehiclePatch,
    base: Option<&VehicleFields>,
) -> Result<VehicleFields, ValidationErrors> {
    let mut v = Checker::default();
    let name = v.required("name", &patch.name, base.map(|b| b.name.clone()), "string");
    if let Some(n) = &name {
        let chars = n.chars().count();
        if chars == 0 {
            v.issue(
                IssueCode::TooSmall,
                "name",
                "string of 1 to 30 characters",
                "empty string",
                "name must not be empty",
            );
        } else if chars > MAX_NAME_CHARS {
            v.issue(
                IssueCode::TooBig,
                "name",
                "string of at most 30 characters",
                &format!("{chars} characters"),
                "name must be at most 30 characters",
            );
        }
    }
    let active = v
        .required(
            "active",
            &patch.active,
            Some(base.is_none_or(|b| b.active)),
            "boolean",
        )
        .unwrap_or(true);
    let availability = v.enumeration(
        "availability",
        &patch.availability,
        base.map(|b| b.availability),
        Availability::parse,
        "'shift' | 'full_day' | 'always'",
    );
    let shift_start = v.time(
        "shift_start",
        &patch.shift_start,
        base.map(|b| b.shift_start),
    );
    let shift_end = v.time("shift_end", &patch.shift_end, base.map(|b| b.shift_end));
    let start_location = v.enumeration(
        "start_location",
        &patch.start_location,
        base.map(|b| b.start_location),
        StartLocation::parse,
        "'depot' | 'other' | 'app-location'",
    );
    let start = v.place(
        "start",
        &patch.start_address,
        &patch.start_lat,
        &patch.start_lng,
        base.map(|b| &b.start),
    );
    let end_location = v.enumeration(
        "end_location",
        &patch.end_location,
        base.map(|b| b.end_location),
        EndLocation::parse,
        "'depot' | 'other' | 'none'",
    );
    let end = v.place(
        "end",
        &patch.end_address,
        &patch.end_lat,
        &patch.end_lng,
        base.map(|b| &b.end),
    );
    let has_break = v
        .required(
            "break",
            &patch.has_break,
            Some(base.is_some_and(|b| b.has_break)),
            "boolean",
        )
        .unwrap_or(false);
    let break_start = v.time(
        "break_start",
        &patch.break_start,
        base.map(|b| b.break_start),
    );
    let break_end = v.time("break_end", &patch.break_end, base.map(|b| b.break_end));
    let break_duration = v.nullable(
        "break_duration",
        &patch.break_duration,
        base.map(|b| b.break_duration),
    );
    if let Some(d) = break_duration {
        if !d.is_finite() || d < 0.0 {
            v.issue(
                IssueCode::TooSmall,
                "break_duration",
                "number of minutes >= 0",
                &d.to_string(),
                "break_duration must not be negative",
            );
        }
    }
    let skills = v.skills(&patch.skills, base.map(|b| &b.skills));
    let capacities = v.capacities(&patch.capacities, base.map(|b| &b.capacities));

    let (Some(name), Some(availability), Some(start_location), Some(end_location)) =
        (name, availability, start_location, end_location)
    else {
        return Err(v.errors);
    };
    if !v.errors.is_empty() {
        return Err(v.errors);
    }
    let fields = VehicleFields {
        name,
        active,
        availability,
        shift_start,
        shift_end,
        start_location,
        start,
        end_location,
        end,
        has_break,
        break_start,
        break_end,
        break_duration,
        skills,
        capacities,
    };
    cross_field_rules(&fields, &mut v);
    v.errors.into_result().map(|()| fields)
}

fn cross_field_rules(f: &VehicleFields, v: &mut Checker) {
    if f.availability == Availability::Shift {
        v.required_when(
            "availability is shift",
            "time of day HH:mm",
            &[
                ("shift_start", f.shift_start.is_none()),
                ("shift_end", f.shift_end.is_none()),
            ],
        );
    }
    v.ordered(("shift_start", f.shift_start), ("shift_end", f.shift_end));
    if f.start_location == StartLocation::Other {
        v.coordinates_required("start", &f.start);
    }
    if f.end_location == EndLocation::Other {
        v.coordinates_required("end", &f.end);
    }
    if f.has_break {
        v.required_when(
            "break is true",
            "a value",
            &[
                ("break_start", f.break_start.is_none()),
                ("break_end", f.break_end.is_none()),
                ("break_duration", f.break_duration.is_none()),
            ],
        );
        let window = v.ordered(("break_start", f.break_start), ("break_end", f.break_end));
        if let (Some((s, e)), Some(d)) = (window, f.break_duration) {
            let window = f64::from(e.minutes() - s.minutes());
            if d >= window {
                v.issue(
                    IssueCode::TooBig,
                    "break_duration",
                    &format!("fewer than {window} minutes (the break window)"),
                    &d.to_string(),
                    "break_duration must be shorter than the break window",
                );
            }
        }
    }
}

mod checker;
#[cfg(test)]
mod tests;
