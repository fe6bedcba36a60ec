//! Coordinates for posted orders and the customers they create, looked up before the write
//! transaction (a geocoder may be slow; the depot's writers should not wait on it).

use std::collections::HashMap;

use super::order_references::new_customer_source;
use crate::model::location::Coordinates;
use crate::model::order::{Order, Side};
use crate::model::order_input::{EndpointFields, OrderChanges};
use crate::model::organisation::DepotScope;
use crate::ports::geocoder::{GeocodeError, GeocodeQuery, Geocoder};

/// What the geocoder answered per (place in the batch, order end).
pub(super) type Located = HashMap<(usize, Side), Result<Coordinates, GeocodeError>>;

/// Coordinates for the customers an order may create (by account, without coordinates): the
/// customer's own address geocoded, or the order end it falls back to. Looked up before the
/// write transaction, like the orders' own ends; only successes are kept.
pub(super) fn locate_new_customers(
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    all: &[OrderChanges],
    located: &Located,
) -> HashMap<usize, Coordinates> {
    let mut found = HashMap::new();
    for (i, changes) in all.iter().enumerate() {
        let Some(c) = changes.customer.as_ref().filter(|c| c.id.is_none()) else {
            continue;
        };
        let coordinates = match new_customer_source(c, changes) {
            Some(side) => located
                .get(&(i, side))
                .and_then(|r| r.as_ref().ok())
                .copied(),
            None if c.lat.is_some() && c.lng.is_some() => None,
            None => geocoder
                .geocode(&GeocodeQuery {
                    scope,
                    address: c.address.as_deref(),
                    postcode: c.postcode.as_deref(),
                    country: c.country_code.as_deref(),
                })
                .ok(),
        };
        if let Some(coordinates) = coordinates {
            found.insert(i, coordinates);
        }
    }
    found
}

pub(super) fn geocode_end(
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    end: &EndpointFields,
) -> Option<Result<Coordinates, GeocodeError>> {
    let address = end.address.clone().flatten();
    let postcode = end.postcode.clone().flatten();
    if (address.is_none() && postcode.is_none())
        || (end.lat.flatten().is_some() && end.lng.flatten().is_some())
    {
        return None;
    }
    let country = end.country_code.clone().flatten();
    Some(geocoder.geocode(&GeocodeQuery {
        scope,
        address: address.as_deref(),
        postcode: postcode.as_deref(),
        country: country.as_deref(),
    }))
}

/// Puts geocoded coordinates on the ends that asked for them; true when one failed.
pub(super) fn apply_geocoding<'a>(
    order: &mut Order,
    sides: &[Side],
    located: impl Fn(Side) -> Option<&'a Result<Coordinates, GeocodeError>>,
) -> bool {
    let mut failed = false;
    for side in sides {
        let end = match side {
            Side::Delivery => &mut order.delivery,
            Side::Pickup => &mut order.pickup,
        };
        match located(*side) {
            Some(Ok(c)) => {
                end.lat = Some(c.lat);
                end.lng = Some(c.lng);
            }
            _ => failed = true,
        }
    }
    failed
}
