//! The in-memory vehicle repository.

use super::State;
use crate::model::organisation::DepotScope;
use crate::model::vehicle::{Vehicle, VehicleFields};
use crate::ports::store::{StoreError, VehicleRepo};
use crate::time::Timestamp;

impl State {
    /// Fills the capacity names a read shows.
    fn named(&self, mut v: Vehicle) -> Vehicle {
        for c in &mut v.fields.capacities {
            if let Some((_, t)) = self
                .capacity_types
                .iter()
                .find(|(d, t)| *d == v.depot_id && t.id == c.id)
            {
                c.type_name = t.name.clone();
            }
        }
        v
    }
}

impl VehicleRepo for State {
    fn list_vehicles(&mut self, scope: DepotScope) -> Result<Vec<Vehicle>, StoreError> {
        Ok(self
            .vehicles
            .iter()
            .filter(|v| v.depot_id == scope.depot_id)
            .map(|v| self.named(v.clone()))
            .collect())
    }

    fn get_vehicle(&mut self, scope: DepotScope, id: i64) -> Result<Option<Vehicle>, StoreError> {
        Ok(self
            .vehicles
            .iter()
            .find(|v| v.depot_id == scope.depot_id && v.id == id)
            .map(|v| self.named(v.clone())))
    }

    fn insert_vehicle(
        &mut self,
        scope: DepotScope,
        fields: &VehicleFields,
        now: Timestamp,
    ) -> Result<i64, StoreError> {
        let id = self.id();
        self.vehicles.push(Vehicle {
            id,
            depot_id: scope.depot_id,
            fields: fields.clone(),
            created: now,
            updated: now,
        });
        Ok(id)
    }

    fn update_vehicle(
        &mut self,
        scope: DepotScope,
        id: i64,
        fields: &VehicleFields,
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        match self
            .vehicles
            .iter_mut()
            .find(|v| v.depot_id == scope.depot_id && v.id == id)
        {
            Some(v) => {
                v.fields = fields.clone();
                v.updated = now;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    fn delete_vehicle(&mut self, scope: DepotScope, id: i64) -> Result<bool, StoreError> {
        let before = self.vehicles.len();
        self.vehicles
            .retain(|v| !(v.depot_id == scope.depot_id && v.id == id));
        let deleted = self.vehicles.len() < before;
        if deleted {
            self.planning.forget_vehicle(scope, id);
        }
        Ok(deleted)
    }

    fn count_vehicles_in_organisation(&mut self, organisation_id: i64) -> Result<u64, StoreError> {
        let depots: Vec<i64> = self
            .depots
            .iter()
            .filter(|d| d.organisation_id == organisation_id)
            .map(|d| d.id)
            .collect();
        Ok(self
            .vehicles
            .iter()
            .filter(|v| depots.contains(&v.depot_id))
            .count() as u64)
    }
}
