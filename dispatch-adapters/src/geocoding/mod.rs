//! Geocoding for the service: the depot's gazetteer first, then an outside geocoder
//! ([`nominatim`]) whose answers are remembered in the store, so that one address is asked once.
//!
//! Order of the questions ([`Remembering`]):
//! 1. the depot's gazetteer (the seed file's table): an exact match wins, so a depot can pin
//!    an address the outside geocoder places badly;
//! 2. the organisation's remembered answers (`geocode_cache`): a position found once is kept;
//!    "nothing found" is kept for [`NOT_FOUND_KEPT_MS`] and then asked again;
//! 3. the outside geocoder. A position or "nothing found" is remembered; a failure to ask
//!    (timeout, 429, a server error) is not, and gives [`GeocodeError::Unavailable`], which the
//!    use cases treat like "nothing found" (the order is saved without coordinates and the
//!    answer carries `GEOCODING_FAILED`), counted and logged by the client.

pub mod nominatim;

use std::sync::Arc;

use dispatch_core::model::location::Coordinates;
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::geocoder::{
    CachedAnswer, GeocodeError, GeocodeQuery, Geocoder, StoreGazetteer,
};
use dispatch_core::ports::store::{Store, StoreError};

pub use nominatim::Nominatim;

/// How long a remembered "nothing found" is believed before the address is asked again: a
/// day, so that a street newly mapped is found the next day without asking the same unknown
/// address all day long.
pub const NOT_FOUND_KEPT_MS: i64 = 24 * 60 * 60 * 1000;

/// The service's geocoder when an outside geocoder is configured: the gazetteer, then the
/// remembered answers, then the outside geocoder (see the module's documentation).
pub struct Remembering {
    store: Arc<dyn Store>,
    gazetteer: StoreGazetteer,
    outside: Arc<dyn Geocoder>,
    clock: Arc<dyn Clock>,
}

impl Remembering {
    /// Asks `outside` what `store`'s gazetteers and remembered answers do not know; `clock`
    /// dates the answers.
    pub fn new(
        store: Arc<dyn Store>,
        outside: Arc<dyn Geocoder>,
        clock: Arc<dyn Clock>,
    ) -> Remembering {
        Remembering {
            gazetteer: StoreGazetteer::new(store.clone()),
            store,
            outside,
            clock,
        }
    }

    fn remember(&self, organisation_id: i64, key: &str, location: Option<Coordinates>) {
        let answer = CachedAnswer {
            location,
            asked: self.clock.now(),
        };
        let kept = self
            .store
            .transaction(|tx| tx.put_geocode_answer(organisation_id, key, &answer));
        if let Err(e) = kept {
            // The answer is still used; only the next identical question asks again.
            tracing::warn!(error = %e, "cannot remember a geocoder's answer");
        }
    }
}

impl std::fmt::Debug for Remembering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Remembering")
    }
}

impl Geocoder for Remembering {
    fn geocode(&self, query: &GeocodeQuery<'_>) -> Result<Coordinates, GeocodeError> {
        match self.gazetteer.geocode(query) {
            Err(GeocodeError::NoMatch) => {}
            pinned => return pinned,
        }
        let Some(key) = query.cache_key() else {
            return Err(GeocodeError::NoMatch);
        };
        let organisation_id = query.scope.organisation_id;
        let remembered = self
            .store
            .read(|tx| tx.find_geocode_answer(organisation_id, &key))
            .map_err(|e: StoreError| GeocodeError::Unavailable(e.to_string()))?;
        if let Some(answer) = remembered {
            let age = self.clock.now().millis() - answer.asked.millis();
            if answer.location.is_some() || age < NOT_FOUND_KEPT_MS {
                metrics::counter!("dispatch_geocoder_cache_hits_total").increment(1);
                return answer.location.ok_or(GeocodeError::NoMatch);
            }
        }
        match self.outside.geocode(query) {
            Ok(found) => {
                self.remember(organisation_id, &key, Some(found));
                Ok(found)
            }
            Err(GeocodeError::NoMatch) => {
                self.remember(organisation_id, &key, None);
                Err(GeocodeError::NoMatch)
            }
            Err(unavailable) => Err(unavailable),
        }
    }
}
