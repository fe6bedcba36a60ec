//! The in-memory driver repository.

use super::State;
use crate::model::driver::DriverCredential;
use crate::model::organisation::{key_lookup, DepotScope};
use crate::ports::store::{DriverRepo, StoreError};
use crate::time::Timestamp;

/// Every depot's driver-side rows.
#[derive(Debug, Clone, Default)]
pub(super) struct DriverSide {
    credentials: Vec<DriverCredential>,
}

impl DriverRepo for State {
    fn insert_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        name: &str,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> Result<DriverCredential, StoreError> {
        let credential = DriverCredential {
            id: self.id(),
            depot_id: scope.depot_id,
            organisation_id: scope.organisation_id,
            vehicle_id,
            name: name.to_owned(),
            key_hash,
            created: now,
            revoked: None,
        };
        self.driver.credentials.push(credential.clone());
        Ok(credential)
    }

    fn driver_credentials_by_lookup(
        &mut self,
        lookup: i64,
    ) -> Result<Vec<DriverCredential>, StoreError> {
        let vehicles = &self.vehicles;
        Ok(self
            .driver
            .credentials
            .iter()
            .filter(|c| key_lookup(&c.key_hash) == lookup)
            // Vehicles are deleted for real and take their credentials with them.
            .filter(|c| vehicles.iter().any(|v| v.id == c.vehicle_id))
            .cloned()
            .collect())
    }

    fn list_driver_credentials(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
    ) -> Result<Vec<DriverCredential>, StoreError> {
        Ok(self
            .driver
            .credentials
            .iter()
            .filter(|c| c.depot_id == scope.depot_id && c.vehicle_id == vehicle_id)
            .cloned()
            .collect())
    }

    fn revoke_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        id: i64,
        now: Timestamp,
    ) -> Result<Option<DriverCredential>, StoreError> {
        Ok(self
            .driver
            .credentials
            .iter_mut()
            .find(|c| c.depot_id == scope.depot_id && c.vehicle_id == vehicle_id && c.id == id)
            .map(|c| {
                c.revoked.get_or_insert(now);
                c.clone()
            }))
    }

    fn route_of_stop(
        &mut self,
        scope: DepotScope,
        stop_id: i64,
    ) -> Result<Option<i64>, StoreError> {
        Ok(self
            .planning
            .stops
            .iter()
            .find(|(d, s)| *d == scope.depot_id && s.id == stop_id)
            .map(|(_, s)| s.route_id))
    }
}
