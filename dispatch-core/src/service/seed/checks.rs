//! The seed file's rules, checked before anything is written: names, enum values, coordinates
//! and polygons (every problem at once, each with its place), and values that the store would
//! keep but the service could not use: text
//! holding NUL, order statuses the organisation does not have, time zones that are not IANA
//! names, webhook receivers that are not http(s) URLs or whose username HTTP Basic cannot
//! carry.

use serde_json::Value;

use super::{SeedError, SeedFile, SeedSettings};
use crate::model::location::Coordinates;
use crate::model::notification::Channel;
use crate::model::organisation::KeyPermission;
use crate::model::reference::MAX_REFERENCE_NAME_CHARS;
use crate::service::depots::MAX_ADDRESS_CHARS;
use crate::status::{StatusSet, MAX_STATUS_CHARS};
use crate::time::zone::DepotZone;

/// Checks what serde cannot: non-empty names, enum values, coordinates and polygons.
pub(super) fn validate(seed: &SeedFile) -> Result<(), SeedError> {
    let mut problems = Vec::new();
    let name = |problems: &mut Vec<String>, what: String, n: &str| {
        if n.trim().is_empty() {
            problems.push(format!("{what}: name must not be empty"));
        } else if n.chars().count() > MAX_REFERENCE_NAME_CHARS {
            problems.push(format!(
                "{what}: name must be at most {MAX_REFERENCE_NAME_CHARS} characters"
            ));
        }
    };
    for (oi, o) in seed.organisations.iter().enumerate() {
        let at = format!("organisations[{oi}]");
        name(&mut problems, at.clone(), &o.name);
        for (i, s) in o.order_statuses.iter().enumerate() {
            if s.is_empty() || s.chars().count() > MAX_STATUS_CHARS {
                problems.push(format!(
                    "{at}.order_statuses[{i}]: 1 to {MAX_STATUS_CHARS} characters"
                ));
            }
        }
        for (i, t) in o.third_parties.iter().enumerate() {
            name(&mut problems, format!("{at}.third_parties[{i}]"), &t.name);
        }
        for (di, d) in o.depots.iter().enumerate() {
            let at = format!("{at}.depots[{di}]");
            name(&mut problems, at.clone(), &d.name);
            if d.lat.is_some() != d.lng.is_some()
                || d.lat
                    .zip(d.lng)
                    .is_some_and(|(a, b)| Coordinates::new(a, b).is_none())
            {
                problems.push(format!(
                    "{at}: lat and lng must be given together and in range"
                ));
            }
            for (i, k) in d.access_keys.iter().enumerate() {
                name(&mut problems, format!("{at}.access_keys[{i}]"), &k.name);
                if k.permission
                    .as_deref()
                    .is_some_and(|p| KeyPermission::parse(p).is_none())
                {
                    problems.push(format!(
                        "{at}.access_keys[{i}].permission: must be all or read"
                    ));
                }
            }
            for (i, c) in d.capacity_types.iter().enumerate() {
                name(
                    &mut problems,
                    format!("{at}.capacity_types[{i}].type"),
                    &c.name,
                );
            }
            for (i, c) in d.custom_fields.iter().enumerate() {
                name(&mut problems, format!("{at}.custom_fields[{i}]"), &c.name);
            }
            for (i, t) in d.tags.iter().enumerate() {
                name(&mut problems, format!("{at}.tags[{i}]"), t);
            }
            for (gi, g) in d.zone_groups.iter().enumerate() {
                name(&mut problems, format!("{at}.zone_groups[{gi}]"), &g.name);
                for (zi, z) in g.zones.iter().enumerate() {
                    let zat = format!("{at}.zone_groups[{gi}].zones[{zi}]");
                    name(&mut problems, zat.clone(), &z.name);
                    if (1..3).contains(&z.polygon.len())
                        || z.polygon
                            .iter()
                            .any(|[a, b]| Coordinates::new(*a, *b).is_none())
                    {
                        problems.push(format!(
                            "{zat}.polygon: none, or at least 3 [lat, lng] pairs in range"
                        ));
                    }
                }
            }
            for (i, t) in d.notification_templates.iter().enumerate() {
                name(
                    &mut problems,
                    format!("{at}.notification_templates[{i}]"),
                    &t.name,
                );
                if t.channel
                    .as_deref()
                    .is_some_and(|c| Channel::parse(c).is_none())
                {
                    problems.push(format!(
                        "{at}.notification_templates[{i}].type: must be SMS or EMAIL"
                    ));
                }
            }
            super::questionnaires::validate(&at, &d.questionnaires, &mut problems);
            check_settings(&at, &d.settings, &mut problems);
            for (i, p) in d.gazetteer.iter().enumerate() {
                if Coordinates::new(p.lat, p.lng).is_none()
                    || (p.address.is_none() && p.postcode.is_none())
                {
                    problems.push(format!(
                        "{at}.gazetteer[{i}]: needs an address or postcode and lat/lng in range"
                    ));
                }
                let long = |t: &Option<String>| {
                    t.as_ref()
                        .is_some_and(|t| t.chars().count() > MAX_ADDRESS_CHARS)
                };
                if long(&p.address) || long(&p.postcode) {
                    problems.push(format!(
                        "{at}.gazetteer[{i}]: address and postcode must be at most \
                         {MAX_ADDRESS_CHARS} characters"
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(SeedError::Invalid(problems.join("\n")))
    }
}

/// The place of the first string or key holding NUL, as `organisations[0].depots[1].name`.
/// PostgreSQL TEXT cannot hold NUL, so it is refused on every store alike, as the HTTP edge does.
pub(super) fn first_nul(value: &Value, at: &str) -> Option<String> {
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
pub(super) fn check_settings(at: &str, settings: &SeedSettings, problems: &mut Vec<String>) {
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
pub(super) fn check_custom_status(
    set: &StatusSet,
    status: &str,
    at: &str,
) -> Result<(), SeedError> {
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
pub(super) fn starting_status(
    set: &StatusSet,
    status: &str,
    depot: &str,
) -> Result<String, SeedError> {
    set.resolve_settable(status)
        .map(|s| s.as_str().to_owned())
        .map_err(|e| {
            SeedError::Invalid(format!(
                "depot {depot}: settings.starting_status: {e} (a default or custom order status of the organisation)"
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::seed::parse;

    fn seed_with(tag: &str, address: &str) -> SeedFile {
        let doc = serde_json::json!({"organisations": [{"name": "Org", "depots": [{
            "name": "Depot", "tags": [tag],
            "gazetteer": [{"address": address, "lat": 51.5, "lng": -0.1}]}]}]});
        parse(&doc.to_string()).unwrap()
    }

    #[test]
    fn names_and_gazetteer_addresses_longer_than_the_index_limit_are_refused_with_their_place() {
        assert!(validate(&seed_with(&"t".repeat(255), &"a".repeat(255))).is_ok());
        let Err(SeedError::Invalid(why)) = validate(&seed_with(&"t".repeat(256), &"a".repeat(256)))
        else {
            panic!("a 256-character tag and address were accepted");
        };
        assert!(
            why.contains("depots[0].tags[0]: name must be at most 255"),
            "{why}"
        );
        assert!(
            why.contains("depots[0].gazetteer[0]: address and postcode"),
            "{why}"
        );
    }
}
