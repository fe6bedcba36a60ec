//! The geocoder port: turns an address or postcode of a depot into coordinates.
//!
//! The default is the offline gazetteer of the seed file: an exact, case-insensitive,
//! whitespace-trimmed match on the address, then on the postcode ([`gazetteer_lookup`]).
//! Other geocoders (an HTTP geocoding service) implement [`Geocoder`] too; their answers can be
//! remembered per organisation in the store ([`CachedAnswer`], keyed by
//! [`GeocodeQuery::cache_key`]).

use std::collections::HashMap;
use std::sync::RwLock;

use crate::model::location::Coordinates;
use crate::model::organisation::DepotScope;
use crate::time::Timestamp;

/// What to geocode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeocodeQuery<'a> {
    /// The depot asking (gazetteers are per depot).
    pub scope: DepotScope,
    /// Street address.
    pub address: Option<&'a str>,
    /// Postcode.
    pub postcode: Option<&'a str>,
    /// Two-letter country code.
    pub country: Option<&'a str>,
}

impl GeocodeQuery<'_> {
    /// The question as the key of a remembered answer: address, postcode and country, each
    /// trimmed, in lower case, with inner whitespace collapsed, one per line. `None` when there
    /// is neither an address nor a postcode to ask about.
    pub fn cache_key(&self) -> Option<String> {
        let norm = |v: Option<&str>| {
            v.unwrap_or_default()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        };
        let (address, postcode) = (norm(self.address), norm(self.postcode));
        if address.is_empty() && postcode.is_empty() {
            return None;
        }
        Some(format!("{address}\n{postcode}\n{}", norm(self.country)))
    }
}

/// An outside geocoder's answer, remembered so that the same question is not asked again.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CachedAnswer {
    /// Where the address is; `None` when the geocoder found nothing.
    pub location: Option<Coordinates>,
    /// When the geocoder answered.
    pub asked: Timestamp,
}

/// Why geocoding gave no coordinates.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GeocodeError {
    /// Nothing matched the address or postcode.
    #[error("no match for the address or postcode")]
    NoMatch,
    /// The geocoder could not be asked (service down, storage failure ...).
    #[error("geocoder unavailable: {0}")]
    Unavailable(String),
}

/// A geocoder. Calls may block; callers run them off async threads.
pub trait Geocoder: Send + Sync {
    /// Coordinates for the query.
    fn geocode(&self, query: &GeocodeQuery<'_>) -> Result<Coordinates, GeocodeError>;
}

/// One row of a depot's gazetteer.
#[derive(Debug, Clone, PartialEq)]
pub struct GazetteerEntry {
    /// Address as written in the seed file.
    pub address: Option<String>,
    /// Postcode as written in the seed file.
    pub postcode: Option<String>,
    /// Where it is.
    pub location: Coordinates,
}

fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.trim(), b.trim());
    !a.is_empty() && a.to_lowercase() == b.to_lowercase()
}

/// The gazetteer rule: the first entry whose address matches the query's address, else the
/// first whose postcode matches its postcode (exact after trimming, ignoring case).
pub fn gazetteer_lookup(
    entries: &[GazetteerEntry],
    address: Option<&str>,
    postcode: Option<&str>,
) -> Option<Coordinates> {
    let by = |wanted: Option<&str>, field: fn(&GazetteerEntry) -> Option<&str>| {
        let wanted = wanted?;
        entries
            .iter()
            .find(|e| field(e).is_some_and(|v| same(v, wanted)))
            .map(|e| e.location)
    };
    by(address, |e| e.address.as_deref()).or_else(|| by(postcode, |e| e.postcode.as_deref()))
}

/// A gazetteer geocoder held in memory, per depot; for tests and examples.
#[derive(Debug, Default)]
pub struct InMemoryGazetteer {
    entries: RwLock<HashMap<i64, Vec<GazetteerEntry>>>,
}

impl InMemoryGazetteer {
    /// An empty gazetteer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an entry for a depot.
    pub fn add(&self, depot_id: i64, entry: GazetteerEntry) {
        let mut map = self.entries.write().unwrap_or_else(|e| e.into_inner());
        map.entry(depot_id).or_default().push(entry);
    }
}

impl Geocoder for InMemoryGazetteer {
    fn geocode(&self, query: &GeocodeQuery<'_>) -> Result<Coordinates, GeocodeError> {
        let map = self.entries.read().unwrap_or_else(|e| e.into_inner());
        let entries = map
            .get(&query.scope.depot_id)
            .map_or(&[][..], Vec::as_slice);
        gazetteer_lookup(entries, query.address, query.postcode).ok_or(GeocodeError::NoMatch)
    }
}

/// The gazetteer geocoder over any [`Store`](crate::ports::store::Store): the depot's gazetteer
/// table, read fresh on every call, so rows added by `dispatch seed` while the server runs (on
/// this node or another) are seen at once.
#[derive(Clone)]
pub struct StoreGazetteer {
    store: std::sync::Arc<dyn crate::ports::store::Store>,
}

impl StoreGazetteer {
    /// A geocoder reading `store`'s gazetteers.
    pub fn new(store: std::sync::Arc<dyn crate::ports::store::Store>) -> Self {
        StoreGazetteer { store }
    }
}

impl std::fmt::Debug for StoreGazetteer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StoreGazetteer")
    }
}

impl Geocoder for StoreGazetteer {
    fn geocode(&self, query: &GeocodeQuery<'_>) -> Result<Coordinates, GeocodeError> {
        let entries = self
            .store
            .read(|tx| tx.list_gazetteer(query.scope))
            .map_err(|e: crate::ports::store::StoreError| {
                GeocodeError::Unavailable(e.to_string())
            })?;
        gazetteer_lookup(&entries, query.address, query.postcode).ok_or(GeocodeError::NoMatch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(address: &str, postcode: &str, lat: f64) -> GazetteerEntry {
        GazetteerEntry {
            address: Some(address.into()),
            postcode: Some(postcode.into()),
            location: Coordinates { lat, lng: 0.0 },
        }
    }

    #[test]
    fn address_matches_trimmed_and_case_insensitively_before_postcode() {
        let table = [
            entry("1 High St", "AB1 2CD", 1.0),
            entry("2 Low St", "ZZ9 9ZZ", 2.0),
        ];
        let hit = gazetteer_lookup(&table, Some("  1 HIGH st "), Some("ZZ9 9ZZ"));
        assert_eq!(hit.map(|c| c.lat), Some(1.0));
    }

    #[test]
    fn postcode_is_the_fallback_and_partial_matches_fail() {
        let table = [entry("1 High St", "AB1 2CD", 1.0)];
        assert_eq!(
            gazetteer_lookup(&table, Some("Nowhere"), Some("ab1 2cd")).map(|c| c.lat),
            Some(1.0)
        );
        assert!(gazetteer_lookup(&table, Some("1 High"), Some("AB1")).is_none());
        assert!(gazetteer_lookup(&table, None, None).is_none());
        assert!(gazetteer_lookup(&table, Some(""), Some(" ")).is_none());
    }

    #[test]
    fn cache_keys_ignore_case_and_spacing_and_need_an_address_or_postcode() {
        let q = |address, postcode, country| GeocodeQuery {
            scope: DepotScope {
                organisation_id: 1,
                depot_id: 1,
            },
            address,
            postcode,
            country,
        };
        let a = q(Some("  1 High   St "), Some("AB1 2CD"), Some("GB"));
        let b = q(Some("1 high st"), Some("ab1  2cd"), Some("gb"));
        assert_eq!(a.cache_key(), b.cache_key());
        assert_ne!(
            a.cache_key(),
            q(Some("1 High St"), Some("AB1 2CD"), None).cache_key()
        );
        assert_ne!(
            q(Some("AB1"), None, None).cache_key(),
            q(None, Some("AB1"), None).cache_key()
        );
        assert_eq!(q(Some("  "), None, Some("GB")).cache_key(), None);
    }

    #[test]
    fn in_memory_gazetteer_is_per_depot() {
        let g = InMemoryGazetteer::new();
        g.add(1, entry("1 High St", "AB1 2CD", 1.0));
        let q = |depot_id| GeocodeQuery {
            scope: DepotScope {
                organisation_id: 1,
                depot_id,
            },
            address: Some("1 High St"),
            postcode: None,
            country: None,
        };
        assert!(g.geocode(&q(1)).is_ok());
        assert_eq!(g.geocode(&q(2)), Err(GeocodeError::NoMatch));
    }
}
