//! The field checks of a vehicle write: each records its violations with the field's path and
//! yields the checked value, so [`super::apply_patch`] reports every violation at once.

use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::location::{valid_lat, valid_lng};
use crate::model::reference::{CapacityAmount, MAX_REFERENCE_NAME_CHARS};
use crate::model::vehicle::{CapacityWrite, Place};
use crate::patch::Patch;
use crate::time::TimeOfDay;

#[derive(Default)]
pub(super) struct Checker {
    pub(super) errors: ValidationErrors,
}

impl Checker {
    pub(super) fn issue(
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
    pub(super) fn required_when(
        &mut self,
        condition: &str,
        expected: &str,
        fields: &[(&str, bool)],
    ) {
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
    pub(super) fn ordered(
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

    pub(super) fn issue_at(
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
    pub(super) fn required<T: Clone>(
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
    pub(super) fn not_given<T>(
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
    pub(super) fn nullable<T: Clone>(
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

    pub(super) fn enumeration<T: Copy>(
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

    pub(super) fn time(
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

    pub(super) fn place(
        &mut self,
        prefix: &str,
        address: &Patch<String>,
        lat: &Patch<f64>,
        lng: &Patch<f64>,
        base: Option<&Place>,
    ) -> Place {
        let address = self.nullable("", address, base.map(|b| b.address.clone()));
        let lat = self.nullable("", lat, base.map(|b| b.lat));
        let lng = self.nullable("", lng, base.map(|b| b.lng));
        let out_of_range = [
            ("lat", lat.filter(|x| !valid_lat(*x)), "latitude", 90),
            ("lng", lng.filter(|x| !valid_lng(*x)), "longitude", 180),
        ];
        for (suffix, value, what, bound) in out_of_range {
            if let Some(x) = value {
                let field = format!("{prefix}_{suffix}");
                self.issue(
                    IssueCode::TooBig,
                    &field,
                    &format!("{what} between -{bound} and {bound}"),
                    &x.to_string(),
                    &format!("{field} must be between -{bound} and {bound}"),
                );
            }
        }
        Place { address, lat, lng }
    }

    pub(super) fn coordinates_required(&mut self, prefix: &str, place: &Place) {
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

    pub(super) fn skills(
        &mut self,
        p: &Patch<Vec<String>>,
        base: Option<&Vec<String>>,
    ) -> Vec<String> {
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
                    } else if name.chars().count() > MAX_REFERENCE_NAME_CHARS {
                        // Unknown names become skills of the depot: keys of a unique index.
                        self.issue_at(
                            IssueCode::TooBig,
                            vec!["skills".into(), i.into()],
                            &format!("skill name of at most {MAX_REFERENCE_NAME_CHARS} characters"),
                            "a longer name",
                            &format!(
                                "skill names must be at most {MAX_REFERENCE_NAME_CHARS} characters"
                            ),
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

    pub(super) fn capacities(
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
