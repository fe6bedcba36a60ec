//! The caller's depot: `PUT /depots/{id}` sets its name, address and position.
//!
//! The position is where `depot` starts and ends of vehicles are, so a depot without one cannot
//! be planned for ([`needs_position`]). It is set either as `lat` and `lng` (both, in range) or
//! from the `address` alone, geocoded with the service's geocoder; an address sent without
//! coordinates always replaces the position, so the two never disagree. `null` for both `lat`
//! and `lng` clears the position; absent properties are kept.

use super::{Found, ServiceError};
use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::model::location::Coordinates;
use crate::model::organisation::{Depot, DepotScope};
use crate::patch::Patch;
use crate::ports::geocoder::{GeocodeQuery, Geocoder};
use crate::ports::store::{NewDepot, Store};
use crate::time::Timestamp;

/// Longest depot name.
pub const MAX_NAME_CHARS: usize = 100;
/// Longest depot address.
pub const MAX_ADDRESS_CHARS: usize = 255;

/// A depot write, as read from the wire: absent keeps, `null` clears.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DepotPatch {
    /// New name (never null).
    pub name: Patch<String>,
    /// New street address.
    pub address: Patch<String>,
    /// New latitude (set together with `lng`).
    pub lat: Patch<f64>,
    /// New longitude (set together with `lat`).
    pub lng: Patch<f64>,
}

fn issue(
    key: &str,
    code: IssueCode,
    expected: &str,
    received: &str,
    message: &str,
) -> ValidationIssue {
    let path: Vec<PathSegment> = vec![key.into()];
    ValidationIssue::new(code, path, expected, received, message)
}

/// What the patch says about the position: `None` keeps it, `Some(None)` clears it,
/// `Some(Some(_))` sets it; `Geocode` asks the geocoder for the sent address.
enum Position {
    Keep,
    Set(Option<Coordinates>),
    Geocode(String),
}

fn check(patch: &DepotPatch, errors: &mut ValidationErrors) -> Position {
    match &patch.name {
        Patch::Null => errors.push(issue(
            "name",
            IssueCode::InvalidType,
            "a string",
            "null",
            "name cannot be null",
        )),
        Patch::Value(name) if name.trim().is_empty() => errors.push(issue(
            "name",
            IssueCode::TooSmall,
            "a non-empty string",
            name,
            "name cannot be empty",
        )),
        Patch::Value(name) if name.chars().count() > MAX_NAME_CHARS => errors.push(issue(
            "name",
            IssueCode::TooBig,
            "at most 100 characters",
            &name.chars().count().to_string(),
            "name is longer than 100 characters",
        )),
        _ => {}
    }
    if let Patch::Value(address) = &patch.address {
        if address.chars().count() > MAX_ADDRESS_CHARS {
            errors.push(issue(
                "address",
                IssueCode::TooBig,
                "at most 255 characters",
                &address.chars().count().to_string(),
                "address is longer than 255 characters",
            ));
        }
    }
    let range = |key: &str, v: f64, limit: f64, errors: &mut ValidationErrors| {
        if !(v.is_finite() && (-limit..=limit).contains(&v)) {
            errors.push(issue(
                key,
                IssueCode::Custom,
                &format!("a number from -{limit} to {limit}"),
                &v.to_string(),
                &format!("{key} is out of range"),
            ));
        }
    };
    match (&patch.lat, &patch.lng) {
        (Patch::Value(lat), Patch::Value(lng)) => {
            range("lat", *lat, 90.0, errors);
            range("lng", *lng, 180.0, errors);
            Position::Set(Coordinates::new(*lat, *lng))
        }
        (Patch::Null, Patch::Null) => Position::Set(None),
        (Patch::Absent, Patch::Absent) => match &patch.address {
            Patch::Value(address) if !address.trim().is_empty() => {
                Position::Geocode(address.clone())
            }
            _ => Position::Keep,
        },
        (lat, lng) => {
            let (sent, missing) = if matches!(lat, Patch::Absent) || matches!(lat, Patch::Null) {
                ("lng", "lat")
            } else {
                ("lat", "lng")
            };
            let received = match (lat, lng) {
                (Patch::Null, _) | (_, Patch::Null) => "null",
                _ => "undefined",
            };
            errors.push(issue(
                missing,
                IssueCode::Custom,
                "lat and lng together (both numbers, or both null)",
                received,
                &format!("{sent} is sent without {missing}: the position takes both"),
            ));
            Position::Keep
        }
    }
}

/// `PUT /depots/{id}`: the caller's depot only (any other id is 404). Geocoding runs before the
/// write transaction, which then re-reads the depot so settings changed meanwhile are kept.
pub fn update(
    store: &dyn Store,
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    depot_id: i64,
    patch: &DepotPatch,
    now: Timestamp,
) -> Result<Depot, ServiceError> {
    if depot_id != scope.depot_id {
        return Err(ServiceError::NotFound("depot"));
    }
    let mut errors = ValidationErrors::default();
    let position = check(patch, &mut errors);
    errors.into_result()?;
    let location = match position {
        Position::Keep => None,
        Position::Set(c) => Some(c),
        Position::Geocode(address) => {
            let query = GeocodeQuery {
                scope,
                address: Some(&address),
                postcode: None,
                country: None,
            };
            let found = geocoder.geocode(&query).map_err(|e| {
                ServiceError::GeocodingFailed(format!(
                    "the depot's address `{address}` could not be geocoded ({e}); send `lat` and \
                     `lng` with it"
                ))
            })?;
            Some(Some(found))
        }
    };
    store.transaction(|tx| {
        let current = tx.get_depot(scope).found("depot")?;
        let name = match &patch.name {
            Patch::Value(name) => name.trim().to_owned(),
            Patch::Absent | Patch::Null => current.name.clone(),
        };
        if let Some(other) = tx.find_depot_by_name(scope.organisation_id, &name)? {
            if other.id != current.id {
                return Err(ServiceError::invalid(
                    vec!["name".into()],
                    "a name no other depot of the organisation has",
                    &name,
                    "another depot of the organisation has this name",
                ));
            }
        }
        let address = match &patch.address {
            Patch::Value(a) if !a.trim().is_empty() => Some(a.trim().to_owned()),
            Patch::Value(_) | Patch::Null => None,
            Patch::Absent => current.address.clone(),
        };
        let location = location.unwrap_or_else(|| {
            current
                .lat
                .zip(current.lng)
                .and_then(|(lat, lng)| Coordinates::new(lat, lng))
        });
        let new = NewDepot {
            name,
            address,
            location,
            settings: current.settings.clone(),
        };
        tx.update_depot(scope, &new, now)?;
        tx.get_depot(scope).found("depot")
    })
}

/// Where `dispatch serve --depot-address/--depot-lat/--depot-lng` puts a depot.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Placement {
    /// Street address (geocoded when `lat` and `lng` are not given).
    pub address: Option<String>,
    /// Latitude (with `lng`).
    pub lat: Option<f64>,
    /// Longitude (with `lat`).
    pub lng: Option<f64>,
}

impl Placement {
    /// Whether anything was given.
    pub fn is_empty(&self) -> bool {
        self.address.is_none() && self.lat.is_none() && self.lng.is_none()
    }
}

/// Gives the depot `scope` the placement when it has no position yet (the default depot of a
/// first start); a depot with a position keeps it, since `PUT /depots/{id}` may have set it
/// since. `true` when the depot was placed. The rules are [`update`]'s.
pub fn place_unplaced(
    store: &dyn Store,
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    placement: &Placement,
    now: Timestamp,
) -> Result<bool, ServiceError> {
    let depot = store.read(|tx| tx.get_depot(scope)).found("depot")?;
    if placement.is_empty() || !needs_position(&depot) {
        return Ok(false);
    }
    let value = |v: Option<f64>| v.map_or(Patch::Absent, Patch::Value);
    let patch = DepotPatch {
        name: Patch::Absent,
        address: placement
            .address
            .clone()
            .map_or(Patch::Absent, Patch::Value),
        lat: value(placement.lat),
        lng: value(placement.lng),
    };
    update(store, geocoder, scope, depot.id, &patch, now)?;
    Ok(true)
}

/// Whether the depot has no position a `depot` start or end could use.
pub fn needs_position(depot: &Depot) -> bool {
    depot
        .lat
        .zip(depot.lng)
        .and_then(|(lat, lng)| Coordinates::new(lat, lng))
        .is_none()
}

#[cfg(test)]
#[path = "depots_tests.rs"]
mod tests;
