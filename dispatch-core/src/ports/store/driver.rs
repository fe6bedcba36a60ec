//! The driver side's storage: credentials per vehicle (looked up across depots by digest, like
//! access keys) and the lookups that tie a driver request to a route.

use super::StoreError;
use crate::model::driver::DriverCredential;
use crate::model::organisation::DepotScope;
use crate::time::Timestamp;

/// Driver credentials and the driver's view of routes.
pub trait DriverRepo {
    /// Stores a credential for a vehicle of the depot.
    fn insert_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        name: &str,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> Result<DriverCredential, StoreError>;
    /// Credentials of any depot whose digest starts with `lookup` (see
    /// [`crate::model::organisation::key_lookup`]), revoked ones included.
    fn driver_credentials_by_lookup(
        &mut self,
        lookup: i64,
    ) -> Result<Vec<DriverCredential>, StoreError>;
    /// The vehicle's credentials, revoked ones included, by id.
    fn list_driver_credentials(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
    ) -> Result<Vec<DriverCredential>, StoreError>;
    /// Marks a credential of the vehicle revoked (a second revocation keeps the first time);
    /// the credential as it now is, `None` when the vehicle has no such credential.
    fn revoke_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        id: i64,
        now: Timestamp,
    ) -> Result<Option<DriverCredential>, StoreError>;
    /// The route of a stop of the depot, `None` when the depot has no such stop.
    fn route_of_stop(&mut self, scope: DepotScope, stop_id: i64)
        -> Result<Option<i64>, StoreError>;
}
