//! The vehicle repository: vehicles of a depot with their skills and capacities.

use super::StoreError;
use crate::model::organisation::DepotScope;
use crate::model::vehicle::{Vehicle, VehicleFields};
use crate::time::Timestamp;

/// Vehicles of a depot.
pub trait VehicleRepo {
    /// All vehicles of the depot (inactive included), by id.
    fn list_vehicles(&mut self, scope: DepotScope) -> Result<Vec<Vehicle>, StoreError>;
    /// One vehicle of the depot.
    fn get_vehicle(&mut self, scope: DepotScope, id: i64) -> Result<Option<Vehicle>, StoreError>;
    /// Stores a new vehicle. Its skills must exist in the depot (see
    /// [`ReferenceRepo::upsert_skill`](super::ReferenceRepo::upsert_skill)) and its capacities
    /// name capacity types of the depot.
    fn insert_vehicle(
        &mut self,
        scope: DepotScope,
        fields: &VehicleFields,
        now: Timestamp,
    ) -> Result<i64, StoreError>;
    /// Overwrites a vehicle; false when it is not in the depot.
    fn update_vehicle(
        &mut self,
        scope: DepotScope,
        id: i64,
        fields: &VehicleFields,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Deletes a vehicle with its skills, capacities and every assignment of it; false when it
    /// is not in the depot.
    fn delete_vehicle(&mut self, scope: DepotScope, id: i64) -> Result<bool, StoreError>;
    /// How many vehicles the organisation holds across its depots.
    fn count_vehicles_in_organisation(&mut self, organisation_id: i64) -> Result<u64, StoreError>;
}
