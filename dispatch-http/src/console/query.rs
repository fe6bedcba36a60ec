//! The query strings of the board's reads: every parameter must be known and every value
//! valid, else 400 INVALID_INPUT in the spec's envelope naming the parameter.

use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::time::Date;

use crate::error::ApiError;
use crate::rejection::invalid;

/// A query string as axum reads it: every `key=value` pair, in order.
pub(super) type Pairs = [(String, String)];

/// A refused value of `key`.
pub(super) fn bad_query(key: &str, expected: &str, value: &str, message: String) -> ApiError {
    invalid(&ValidationErrors(vec![ValidationIssue::new(
        IssueCode::InvalidString,
        vec![key.into()],
        expected,
        value,
        message,
    )]))
}

/// Refuses the first parameter that is not one of `allowed`.
pub(super) fn only(query: &Pairs, allowed: &[&str]) -> Result<(), ApiError> {
    match query
        .iter()
        .find(|(key, _)| !allowed.contains(&key.as_str()))
    {
        Some((key, _)) => Err(invalid(&ValidationErrors(vec![ValidationIssue::new(
            IssueCode::UnrecognizedKeys,
            vec![key.as_str().into()],
            allowed.join(", "),
            key,
            format!("unknown query parameter {key}"),
        )]))),
        None => Ok(()),
    }
}

/// The value of the required parameter `key` (its last, when repeated), read by `parse`;
/// `expected` says what it must be when it is missing.
pub(super) fn required<T>(
    query: &Pairs,
    key: &str,
    expected: &str,
    parse: impl Fn(&str) -> Result<T, ApiError>,
) -> Result<T, ApiError> {
    match query.iter().rev().find(|(k, _)| k == key) {
        Some((_, value)) => parse(value),
        None => Err(bad_query(
            key,
            expected,
            "undefined",
            format!("{key} is required"),
        )),
    }
}

/// The required `date` parameter, `YYYY-MM-DD`.
pub(super) fn date(query: &Pairs) -> Result<Date, ApiError> {
    required(query, "date", "a date YYYY-MM-DD", |value| {
        Date::parse(value).ok_or_else(|| {
            bad_query(
                "date",
                "a date YYYY-MM-DD",
                value,
                "date must be YYYY-MM-DD".into(),
            )
        })
    })
}

/// An id: a positive whole number.
pub(super) fn id(key: &str, value: &str) -> Result<i64, ApiError> {
    value
        .trim()
        .parse::<i64>()
        .ok()
        .filter(|id| *id > 0)
        .ok_or_else(|| {
            bad_query(
                key,
                "a positive whole number",
                value,
                format!("{key} must be an id"),
            )
        })
}
