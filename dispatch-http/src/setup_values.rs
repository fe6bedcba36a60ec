//! Checks of seed-file values that the store would keep but the service could not use: text
//! holding NUL, order statuses the organisation does not have, time zones that are not IANA
//! names, webhook receivers that are not http(s) URLs or whose username HTTP Basic cannot
//! carry. Each is refused with its place in the file before anything is written (the seed is
//! one transaction).

use dispatch_core::status::StatusSet;
use dispatch_core::time::zone::DepotZone;
use serde_json::Value;

use crate::setup::{SeedError, SeedSettings};

/// The place of the first string or key holding NUL, as `organisations[0].depots[1].name`.
/// PostgreSQL TEXT cannot hold NUL, so it is refused on every store alike, as the HTTP edge does.
pub fn first_nul(value: &Value, at: &str) -> Option<String> {
    match value {
        Value::String(s) if s.contains('\0') => Some(at.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| first_nul(v, &format!("{at}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            let place = if at.is_empty() {
                k.clone()
            } else {
                format!("{at}.{k}")
            };
            if k.contains('\0') {
                Some(place)
            } else {
                first_nul(v, &place)
            }
        }),
        _ => None,
    }
}

/// Problems of a depot's `settings` (at `at`, the depot's place) that need no store.
pub fn check_settings(at: &str, settings: &SeedSettings, problems: &mut Vec<String>) {
    if let Some(zone) = &settings.timezone {
        if DepotZone::parse(zone).is_none() {
            problems.push(format!(
                "{at}.settings.timezone: {zone:?} is not an IANA time zone name (such as Europe/London or UTC)"
            ));
        }
    }
    if let Some(webhook) = &settings.webhook {
        let usable = url::Url::parse(&webhook.url)
            .is_ok_and(|u| matches!(u.scheme(), "http" | "https") && u.has_host());
        if !usable {
            problems.push(format!(
                "{at}.settings.webhook.url: {:?} is not an absolute http or https URL",
                webhook.url
            ));
        }
        // RFC 7617: the user-id of HTTP Basic cannot hold a colon; the receiver would split
        // the credentials at it.
        if webhook.username.contains(':') {
            problems.push(format!(
                "{at}.settings.webhook.username: {:?} holds ':', which HTTP Basic authentication cannot carry in a username",
                webhook.username
            ));
        }
    }
}

/// A custom order status to add (at `at`): as `POST /order-statuses` rules, except that one
/// the organisation already has, exactly so spelt, is kept (seeding is idempotent).
pub fn check_custom_status(set: &StatusSet, status: &str, at: &str) -> Result<(), SeedError> {
    if set
        .entries()
        .iter()
        .any(|e| e.is_custom && e.status == status)
    {
        return Ok(());
    }
    set.check_new_custom(status)
        .map(drop)
        .map_err(|e| SeedError::Invalid(format!("{at}: {e}")))
}

/// The starting status as stored: a default status in any case (stored in its own spelling)
/// or one of the organisation's custom statuses exactly; never a derived `PARTIALLY_*` one.
pub fn starting_status(set: &StatusSet, status: &str, depot: &str) -> Result<String, SeedError> {
    set.resolve_settable(status)
        .map(|s| s.as_str().to_owned())
        .map_err(|e| {
            SeedError::Invalid(format!(
                "depot {depot}: settings.starting_status: {e} (a default or custom order status of the organisation)"
            ))
        })
}
