//! Building blocks shared by the customer and order rules: the small write objects (time
//! windows, capacity entries, custom-field values), the depot catalog they are resolved
//! against, and one checking function per kind of field rule, each reporting its field path.

use crate::error::{render_path, IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::time::TimeOfDay;

/// A field of a partial write: `None` when omitted, `Some(None)` when sent as null.
pub type Sent<T> = Option<Option<T>>;

/// A time window as written by a client, before its values are checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeWindowInput {
    /// `from` as sent (`HH:mm`).
    pub from: Option<String>,
    /// `to` as sent (`HH:mm`).
    pub to: Option<String>,
    /// `type` as sent (`pickup` or `delivery`; only on order `time_windows`).
    pub kind: Option<String>,
}

/// A capacity entry as written: identified by `id`, or on order writes by `type`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CapacityInput {
    /// The capacity type's id.
    pub id: Option<i64>,
    /// The capacity type's display name (order writes).
    pub kind: Option<String>,
    /// The amount (required).
    pub capacity: Option<f64>,
}

/// A custom-field value as written: identified by `id` and/or `name`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CustomFieldInput {
    /// The custom field's id.
    pub id: Option<i64>,
    /// The custom field's name.
    pub name: Option<String>,
    /// The value (required).
    pub value: Option<String>,
}

/// A capacity amount resolved to a capacity type of the depot.
#[derive(Debug, Clone, PartialEq)]
pub struct CapacityAmount {
    /// The capacity type's id.
    pub capacity_type_id: i64,
    /// The amount.
    pub amount: f64,
}

/// A custom-field value resolved to a custom field of the depot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomFieldValue {
    /// The custom field's id.
    pub field_id: i64,
    /// The value.
    pub value: String,
}

/// A depot record known by id and name (capacity type, skill, tag, custom field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedRef {
    /// Its id.
    pub id: i64,
    /// Its name (for capacity types, the `type` display name).
    pub name: String,
}

/// The depot's reference data that customer and order writes are resolved against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    /// Capacity types.
    pub capacity_types: Vec<NamedRef>,
    /// Skills.
    pub skills: Vec<NamedRef>,
    /// Tags.
    pub tags: Vec<NamedRef>,
    /// Custom fields.
    pub custom_fields: Vec<NamedRef>,
}

/// How a custom-field entry may identify its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CustomFieldMatch {
    /// By id or by name (customer creation, order writes).
    IdOrName,
    /// By id only (customer update).
    IdOnly,
}

impl Catalog {
    /// Capacity entries matched by id (or, when `by_type`, by type name ignoring case);
    /// unknown entries are dropped, a repeated type keeps the last amount.
    pub fn resolve_capacities(
        &self,
        entries: &[CapacityInput],
        by_type: bool,
    ) -> Vec<CapacityAmount> {
        let mut out: Vec<CapacityAmount> = Vec::new();
        for e in entries {
            let found = match (e.id, &e.kind) {
                (Some(id), _) => self.capacity_types.iter().find(|c| c.id == id),
                (None, Some(kind)) if by_type => self
                    .capacity_types
                    .iter()
                    .find(|c| c.name.eq_ignore_ascii_case(kind)),
                _ => None,
            };
            if let (Some(c), Some(amount)) = (found, e.capacity) {
                out.retain(|a| a.capacity_type_id != c.id);
                out.push(CapacityAmount {
                    capacity_type_id: c.id,
                    amount,
                });
            }
        }
        out
    }

    /// Names matched against `known` ignoring case and returned in their stored spelling;
    /// unknown names are kept as sent when `keep_unknown`, dropped otherwise. Duplicates
    /// (ignoring case) collapse to the first.
    pub fn resolve_names(known: &[NamedRef], names: &[String], keep_unknown: bool) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for name in names {
            let resolved = known
                .iter()
                .find(|k| k.name.eq_ignore_ascii_case(name))
                .map(|k| k.name.clone())
                .or_else(|| keep_unknown.then(|| name.clone()));
            if let Some(r) = resolved {
                if !out.iter().any(|o| o.eq_ignore_ascii_case(&r)) {
                    out.push(r);
                }
            }
        }
        out
    }

    /// Custom-field values matched by id (and by name ignoring case where allowed); entries
    /// matching no field are dropped, a repeated field keeps the last value.
    pub fn resolve_custom_fields(
        &self,
        entries: &[CustomFieldInput],
        mode: CustomFieldMatch,
    ) -> Vec<CustomFieldValue> {
        let mut out: Vec<CustomFieldValue> = Vec::new();
        for e in entries {
            let found = match (e.id, &e.name, mode) {
                (Some(id), _, _) => self.custom_fields.iter().find(|f| f.id == id),
                (None, Some(name), CustomFieldMatch::IdOrName) => self
                    .custom_fields
                    .iter()
                    .find(|f| f.name.eq_ignore_ascii_case(name)),
                _ => None,
            };
            if let (Some(f), Some(value)) = (found, &e.value) {
                out.retain(|v| v.field_id != f.id);
                out.push(CustomFieldValue {
                    field_id: f.id,
                    value: value.clone(),
                });
            }
        }
        out
    }
}

/// A path made of object keys.
pub fn key_path(keys: &[&str]) -> Vec<PathSegment> {
    keys.iter().map(|k| PathSegment::from(*k)).collect()
}

/// A path of keys followed by an array index.
pub fn indexed_path(keys: &[&str], index: usize) -> Vec<PathSegment> {
    let mut p = key_path(keys);
    p.push(PathSegment::Index(index));
    p
}

/// A required field is absent.
pub fn required(path: Vec<PathSegment>, expected: &str) -> ValidationIssue {
    let message = format!("{} is required", render_path(&path));
    ValidationIssue::new(IssueCode::Required, path, expected, "undefined", message)
}

/// A rule spanning several fields or records.
pub fn custom(
    path: Vec<PathSegment>,
    expected: &str,
    received: &str,
    message: impl Into<String>,
) -> ValidationIssue {
    ValidationIssue::new(IssueCode::Custom, path, expected, received, message)
}

/// Checks a string's length in characters against `min..=max`. Like every `check_` helper
/// here, it takes the field's path as a closure, called only when there is an issue to
/// report: a batch of valid orders builds none of its fields' paths.
pub fn check_len(
    errs: &mut ValidationErrors,
    path: impl FnOnce() -> Vec<PathSegment>,
    value: &str,
    min: usize,
    max: usize,
) {
    let n = value.chars().count();
    if n > max {
        let path = path();
        let message = format!("{} must be at most {max} characters", render_path(&path));
        errs.push(ValidationIssue::new(
            IssueCode::TooBig,
            path,
            format!("string of at most {max} characters"),
            format!("string of {n} characters"),
            message,
        ));
    } else if n < min {
        let path = path();
        let message = format!("{} must be at least {min} characters", render_path(&path));
        errs.push(ValidationIssue::new(
            IssueCode::TooSmall,
            path,
            format!("string of at least {min} characters"),
            format!("string of {n} characters"),
            message,
        ));
    }
}

/// Longest visit duration of an order end, in minutes (`delivery_duration`, `pickup_duration`).
pub const MAX_VISIT_MINUTES: f64 = 1e6;

/// Checks a number against `min..=max` (`max` of `f64::MAX`: no upper bound).
pub fn check_range(
    errs: &mut ValidationErrors,
    path: impl FnOnce() -> Vec<PathSegment>,
    value: f64,
    min: f64,
    max: f64,
) {
    if !value.is_finite() || value < min || value > max {
        let path = path();
        let code = if value < min {
            IssueCode::TooSmall
        } else {
            IssueCode::TooBig
        };
        // Without an upper bound, "between 0 and 1797693134862315700000..." helps nobody.
        let (expected, bounds) = if max == f64::MAX {
            (
                format!("number of at least {min}"),
                format!("at least {min}"),
            )
        } else {
            (
                format!("number between {min} and {max}"),
                format!("between {min} and {max}"),
            )
        };
        let message = format!("{} must be {bounds}", render_path(&path));
        errs.push(ValidationIssue::new(
            code,
            path,
            expected,
            value.to_string(),
            message,
        ));
    }
}

/// Checks an e-mail address (see [`is_email`]).
pub fn check_email(
    errs: &mut ValidationErrors,
    path: impl FnOnce() -> Vec<PathSegment>,
    value: &str,
) {
    if !is_email(value) {
        let path = path();
        let message = format!(
            "{} must be an e-mail address such as name@example.com",
            render_path(&path)
        );
        errs.push(ValidationIssue::new(
            IssueCode::InvalidString,
            path,
            "e-mail address",
            value,
            message,
        ));
    }
}

/// True for a plain e-mail address `local@domain`, the one rule for every address the service
/// takes (customers, orders, notifications): a dot-atom local part of at most 64 bytes
/// (letters, digits and ``!#$%&'*+-/=?^_`{|}~``, single dots between them), a domain of at
/// least two dot-separated labels of letters, digits and inner hyphens (at most 63 bytes each,
/// the last not all digits), 254 bytes in all. Display forms (`Name <a@b.example>`), quoted
/// local parts, IP addresses as domains and whitespace are refused: they may appear in a mail
/// header, but not as the address a customer is reached at. Every address accepted here is
/// one the SMTP sender (lettre) accepts too.
pub fn is_email(value: &str) -> bool {
    let Some((local, domain)) = value.split_once('@') else {
        return false;
    };
    let atext = |c: char| c.is_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c);
    let label = |l: &str| {
        (1..=63).contains(&l.len())
            && l.chars().all(|c| c.is_alphanumeric() || c == '-')
            && !l.starts_with('-')
            && !l.ends_with('-')
    };
    let labels: Vec<&str> = domain.split('.').collect();
    value.len() <= 254
        && (1..=64).contains(&local.len())
        && local
            .split('.')
            .all(|a| !a.is_empty() && a.chars().all(atext))
        && domain.len() <= 253
        && labels.len() >= 2
        && labels.iter().all(|l| label(l))
        && !labels[labels.len() - 1].chars().all(|c| c.is_ascii_digit())
}

/// Checks a two-letter country code.
pub fn check_country(
    errs: &mut ValidationErrors,
    path: impl FnOnce() -> Vec<PathSegment>,
    value: &str,
) {
    if value.len() != 2 || !value.chars().all(|c| c.is_ascii_alphabetic()) {
        let path = path();
        let message = format!("{} must be a two-letter country code", render_path(&path));
        errs.push(ValidationIssue::new(
            IssueCode::InvalidString,
            path,
            "two-letter country code",
            value,
            message,
        ));
    }
}

/// Parses an `HH:mm` value, reporting a bad one.
pub fn parse_time(
    errs: &mut ValidationErrors,
    path: impl FnOnce() -> Vec<PathSegment>,
    value: &str,
) -> Option<TimeOfDay> {
    let parsed = TimeOfDay::parse(value);
    if parsed.is_none() {
        let path = path();
        let message = format!("{} must be a time of day HH:mm", render_path(&path));
        errs.push(ValidationIssue::new(
            IssueCode::InvalidString,
            path,
            "time of day HH:mm",
            value,
            message,
        ));
    }
    parsed
}

/// Reports a value outside an enum.
pub fn bad_enum(path: Vec<PathSegment>, allowed: &[&str], value: &str) -> ValidationIssue {
    let expected = allowed.join(" | ");
    let message = format!("{} must be one of {expected}", render_path(&path));
    ValidationIssue::new(IssueCode::InvalidEnumValue, path, expected, value, message)
}

/// Checks latitude and longitude ranges.
pub fn check_coordinates(
    errs: &mut ValidationErrors,
    lat: (impl FnOnce() -> Vec<PathSegment>, Option<f64>),
    lng: (impl FnOnce() -> Vec<PathSegment>, Option<f64>),
) {
    if let Some(v) = lat.1 {
        check_range(errs, lat.0, v, -90.0, 90.0);
    }
    if let Some(v) = lng.1 {
        check_range(errs, lng.0, v, -180.0, 180.0);
    }
}

#[cfg(test)]
#[path = "order_fields_tests.rs"]
mod tests;
