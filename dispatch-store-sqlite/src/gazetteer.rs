//! The default geocoder: the depot's gazetteer table, read fresh on every call so rows added by
//! `dispatch seed` while the server runs are seen at once.

use std::sync::Arc;

use dispatch_core::model::location::Coordinates;
use dispatch_core::ports::geocoder::{gazetteer_lookup, GeocodeError, GeocodeQuery, Geocoder};
use dispatch_core::ports::store::{Store, StoreError};

use crate::SqliteStore;

/// Gazetteer geocoder over a [`SqliteStore`].
#[derive(Debug, Clone)]
pub struct SqliteGazetteer {
    store: Arc<SqliteStore>,
}

impl SqliteGazetteer {
    /// A geocoder reading `store`'s gazetteer.
    pub fn new(store: Arc<SqliteStore>) -> Self {
        SqliteGazetteer { store }
    }
}

impl Geocoder for SqliteGazetteer {
    fn geocode(&self, query: &GeocodeQuery<'_>) -> Result<Coordinates, GeocodeError> {
        let store: &dyn Store = &*self.store;
        let entries = store
            .read(|tx| tx.list_gazetteer(query.scope))
            .map_err(|e: StoreError| GeocodeError::Unavailable(e.to_string()))?;
        gazetteer_lookup(&entries, query.address, query.postcode).ok_or(GeocodeError::NoMatch)
    }
}
