//! Zone lookup: which zone of a group contains a location.

use super::ServiceError;
use crate::model::location::Coordinates;
use crate::model::organisation::DepotScope;
use crate::model::zone::{locate, Zone, ZoneGroup};
use crate::ports::geocoder::{GeocodeQuery, Geocoder};
use crate::ports::store::Store;
use crate::service::Found;

/// The location to look up: coordinates, or an address/postcode to geocode.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocationQuery {
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lng: Option<f64>,
    /// Street address.
    pub address: Option<String>,
    /// Postcode.
    pub postcode: Option<String>,
    /// Country code.
    pub country: Option<String>,
}

/// The zone of group `group_id` containing the location (`None` when no zone does). Without
/// both lat and lng the address or postcode is geocoded; a missing address and postcode or a
/// failed geocode is 400 INVALID_INPUT; an unknown group is 404.
pub fn contains(
    store: &dyn Store,
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    group_id: i64,
    location: &LocationQuery,
) -> Result<Option<(Zone, ZoneGroup)>, ServiceError> {
    let (group, zones) = store.read(|tx| {
        let group = tx.get_zone_group(scope, group_id).found("zone group")?;
        let zones = tx.list_zones(scope, group_id)?;
        Ok::<_, ServiceError>((group, zones))
    })?;
    let point = match (location.lat, location.lng) {
        (Some(lat), Some(lng)) => Coordinates::new(lat, lng).ok_or_else(|| {
            ServiceError::invalid(
                vec!["location".into()],
                "lat -90..90 and lng -180..180",
                &format!("{lat}, {lng}"),
                "coordinates out of range",
            )
        })?,
        _ => geocode(geocoder, scope, location)?,
    };
    Ok(locate(&zones, point).map(|z| (z.clone(), group)))
}

fn present(s: &Option<String>) -> Option<&str> {
    s.as_deref().filter(|s| !s.trim().is_empty())
}

fn geocode(
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    location: &LocationQuery,
) -> Result<Coordinates, ServiceError> {
    let (address, postcode) = (present(&location.address), present(&location.postcode));
    if address.is_none() && postcode.is_none() {
        return Err(ServiceError::invalid(
            vec!["location".into()],
            "lat and lng, or an address or postcode",
            "neither",
            "location needs lat and lng, or an address or postcode to geocode",
        ));
    }
    let query = GeocodeQuery {
        scope,
        address,
        postcode,
        country: location.country.as_deref(),
    };
    geocoder.geocode(&query).map_err(|e| {
        ServiceError::invalid(
            vec!["location".into()],
            "an address or postcode that can be geocoded",
            address.or(postcode).unwrap_or_default(),
            &format!("the location could not be geocoded: {e}"),
        )
    })
}
