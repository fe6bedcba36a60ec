//! The query strings of the board's reads: every parameter must be known and every value
//! valid, else 400 INVALID_INPUT in the spec's envelope naming the parameter. Also the read
//! the per-plan parts of the board share: the routes of the plan `?plan=ID` names.

use dispatch_core::error::{IssueCode, ValidationErrors, ValidationIssue};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::route::Route;
use dispatch_core::ports::store::{StoreError, StoreTx};
use dispatch_core::service::plan_reads::plan_routes;
use dispatch_core::time::Date;

use crate::auth::Principal;
use crate::error::ApiError;
use crate::rejection::invalid;
use crate::AppState;

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

/// For a query of exactly `plan=ID`: the plan id and what `work` makes, in one store read, of
/// the routes that plan shows (as `GET /plans/{id}` does). A plan the caller's depot does not
/// have is 404, like any id of another depot.
pub(super) async fn plan_routes_read<T: Send + 'static>(
    state: &AppState,
    caller: Principal,
    query: &Pairs,
    work: impl FnOnce(&mut dyn StoreTx, DepotScope, Vec<Route>) -> Result<T, StoreError>
        + Send
        + 'static,
) -> Result<(i64, T), ApiError> {
    only(query, &["plan"])?;
    let plan_id = required(query, "plan", "a plan id", |v| id("plan", v))?;
    let read = state
        .blocking(move |s| {
            Ok(s.store.read(move |tx| {
                let scope = caller.scope();
                let Some(plan) = tx.get_plan(scope, plan_id)? else {
                    return Ok(None);
                };
                let routes = plan_routes(tx, scope, &plan)?;
                work(tx, scope, routes).map(Some)
            })?)
        })
        .await?
        .ok_or_else(|| ApiError::not_found(&format!("plan {plan_id}")))?;
    Ok((plan_id, read))
}
