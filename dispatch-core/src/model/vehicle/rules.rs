//! The field rules of a vehicle write, for creation (no base) and partial update (over the
//! stored fields). Every violation is collected with its field path.

use super::{
    Availability, CapacityWrite, EndLocation, Place, StartLocation, VehicleFields, VehiclePatch,
    MAX_NAME_CHARS,
};
use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::location::{valid_lat, valid_lng};
use crate::model::reference::CapacityAmount;
use crate::patch::Patch;
use crate::time::TimeOfDay;

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

#[derive(Default)]
struct Checker {
    errors: ValidationErrors,
}

impl Checker {
    fn issue(
        &mut self,
        code: IssueCode,
        field: &str,
        expected: &str,
        received: &str,
        message: &str,
    ) {
        self.issue_at(code, vec![field.into()], expected, received, message);
    }

    /// A Required issue for each `(field, missing)` that is missing, saying `condition`.
    fn required_when(&mut self, condition: &str, expected: &str, fields: &[(&str, bool)]) {
        for (field, missing) in fields {
            if *missing {
                self.issue(
                    IssueCode::Required,
                    field,
                    expected,
                    "null",
                    &format!("{field} is required when {condition}"),
                );
            }
        }
    }

    /// Checks that a start comes before its end (when both are given): the pair when it does.
    fn ordered(
        &mut self,
        (start_field, start): (&str, Option<TimeOfDay>),
        (end_field, end): (&str, Option<TimeOfDay>),
    ) -> Option<(TimeOfDay, TimeOfDay)> {
        let (s, e) = (start?, end?);
        if s < e {
            return Some((s, e));
        }
        self.issue(
            IssueCode::Custom,
            end_field,
            &format!("a time after {start_field} {s}"),
            &e.to_string(),
            &format!("{start_field} must be before {end_field}"),
        );
        None
    }

    fn issue_at(
        &mut self,
        code: IssueCode,
        path: Vec<PathSegment>,
        expected: &str,
        received: &str,
        message: &str,
    ) {
        self.errors.push(ValidationIssue::new(
            code, path, expected, received, message,
        ));
    }

    /// A non-nullable property: absent keeps `base` (missing base = required on create).
    fn required<T: Clone>(
        &mut self,
        field: &str,
        p: &Patch<T>,
        base: Option<T>,
        expected: &str,
    ) -> Option<T> {
        match p {
            Patch::Value(x) => Some(x.clone()),
            Patch::Null => self.not_given(field, true, base, expected),
            Patch::Absent => self.not_given(field, false, base, expected),
        }
    }

    /// A non-nullable property sent as null (an error) or absent (keeps `base`; an error when
    /// there is none, i.e. required on create).
    fn not_given<T>(
        &mut self,
        field: &str,
        null: bool,
        base: Option<T>,
        expected: &str,
    ) -> Option<T> {
        if null {
            self.issue(
                IssueCode::InvalidType,
                field,
                expected,
                "null",
                &format!("{field} must not be null"),
            );
            return None;
        }
        if base.is_none() {
            self.issue(
                IssueCode::Required,
                field,
                expected,
                "undefined",
                &format!("{field} is required"),
            );
        }
        base
    }

    /// A nullable property: absent keeps `base` (nothing on create).
    fn nullable<T: Clone>(
        &mut self,
        _field: &str,
        p: &Patch<T>,
        base: Option<Option<T>>,
    ) -> Option<T> {
        match p {
            Patch::Value(x) => Some(x.clone()),
            Patch::Null => None,
            Patch::Absent => base.flatten(),
        }
    }

    fn enumeration<T: Copy>(
        &mut self,
        field: &str,
        p: &Patch<String>,
        base: Option<T>,
        parse: fn(&str) -> Option<T>,
        expected: &str,
    ) -> Option<T> {
        match p {
            Patch::Value(s) => {
                let parsed = parse(s);
                if parsed.is_none() {
                    self.issue(
                        IssueCode::InvalidEnumValue,
                        field,
                        expected,
                        &format!("'{s}'"),
                        &format!("{field} must be one of {expected}"),
                    );
                }
                parsed
            }
            Patch::Null => self.not_given(field, true, base, expected),
            Patch::Absent => self.not_given(field, false, base, expected),
        }
    }

    fn time(
        &mut self,
        field: &str,
        p: &Patch<String>,
        base: Option<Option<TimeOfDay>>,
    ) -> Option<TimeOfDay> {
        match p {
            Patch::Value(s) => {
                let t = TimeOfDay::parse(s);
                if t.is_none() {
                    self.issue(
                        IssueCode::InvalidString,
                        field,
                        "time of day HH:mm (00:00 to 23:59)",
                        &format!("'{s}'"),
                        &format!("{field} must be a time of day HH:mm"),
                    );
                }
                t
            }
            Patch::Null => None,
            Patch::Absent => base.flatten(),
        }
    }

    fn place(
        &mut self,
        prefix: &str,
        address: &Patch<String>,
        lat: &Patch<f64>,
        lng: &Patch<f64>,
        base: Option<&Place>,
    ) -> Place {
        let address = self.nullable("", address, base.map(|b| b.address.clone()));
        let lat_field = format!("{prefix}_lat");
        let lng_field = format!("{prefix}_lng");
        let lat = self.nullable("", lat, base.map(|b| b.lat));
        let lng = self.nullable("", lng, base.map(|b| b.lng));
        if let Some(x) = lat.filter(|x| !valid_lat(*x)) {
            self.issue(
                IssueCode::TooBig,
                &lat_field,
                "latitude between -90 and 90",
                &x.to_string(),
                &format!("{lat_field} must be between -90 and 90"),
            );
        }
        if let Some(x) = lng.filter(|x| !valid_lng(*x)) {
            self.issue(
                IssueCode::TooBig,
                &lng_field,
                "longitude between -180 and 180",
                &x.to_string(),
                &format!("{lng_field} must be between -180 and 180"),
            );
        }
        Place { address, lat, lng }
    }

    fn coordinates_required(&mut self, prefix: &str, place: &Place) {
        for (suffix, value) in [("lat", place.lat), ("lng", place.lng)] {
            if value.is_none() {
                let field = format!("{prefix}_{suffix}");
                self.issue(
                    IssueCode::Required,
                    &field,
                    "number",
                    "null",
                    &format!("{field} is required when {prefix}_location is other"),
                );
            }
        }
    }

    fn skills(&mut self, p: &Patch<Vec<String>>, base: Option<&Vec<String>>) -> Vec<String> {
        match p {
            Patch::Value(names) => {
                let mut out: Vec<String> = Vec::new();
                for (i, name) in names.iter().enumerate() {
                    if name.is_empty() {
                        self.issue_at(
                            IssueCode::TooSmall,
                            vec!["skills".into(), i.into()],
                            "non-empty skill name",
                            "empty string",
                            "skill names must not be empty",
                        );
                    } else if !out.contains(name) {
                        out.push(name.clone());
                    }
                }
                out
            }
            Patch::Null => {
                self.issue(
                    IssueCode::InvalidType,
                    "skills",
                    "array of strings",
                    "null",
                    "skills must be an array",
                );
                Vec::new()
            }
            Patch::Absent => base.cloned().unwrap_or_default(),
        }
    }

    fn capacities(
        &mut self,
        p: &Patch<Vec<CapacityWrite>>,
        base: Option<&Vec<CapacityAmount>>,
    ) -> Vec<CapacityAmount> {
        match p {
            Patch::Value(entries) => {
                let mut out: Vec<CapacityAmount> = Vec::new();
                for (i, entry) in entries.iter().enumerate() {
                    let path = |f: &str| vec![PathSegment::from("capacities"), i.into(), f.into()];
                    match entry.capacity {
                        None => self.issue_at(
                            IssueCode::Required,
                            path("capacity"),
                            "number",
                            "undefined",
                            "capacity is required",
                        ),
                        Some(c) if !c.is_finite() || c < 0.0 => self.issue_at(
                            IssueCode::TooSmall,
                            path("capacity"),
                            "number >= 0",
                            &c.to_string(),
                            "capacity must not be negative",
                        ),
                        Some(c) => {
                            if let Some(id) = entry.id.filter(|id| !out.iter().any(|o| o.id == *id))
                            {
                                out.push(CapacityAmount {
                                    id,
                                    type_name: String::new(),
                                    capacity: c,
                                });
                            }
                        }
                    }
                }
                out
            }
            Patch::Null => {
                self.issue(
                    IssueCode::InvalidType,
                    "capacities",
                    "array of capacity entries",
                    "null",
                    "capacities must be an array",
                );
                Vec::new()
            }
            Patch::Absent => base.cloned().unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests;
