//! The in-memory organisation repository: organisations, depots, access keys and secrets.

use super::State;
use crate::model::organisation::{
    key_lookup, AccessKey, Depot, DepotScope, KeyPermission, Organisation,
};
use crate::ports::store::{NewDepot, OrganisationRepo, ReferenceRepo, StoreError};
use crate::time::Timestamp;

impl OrganisationRepo for State {
    fn find_organisation_by_name(
        &mut self,
        name: &str,
    ) -> Result<Option<Organisation>, StoreError> {
        Ok(self.organisations.iter().find(|o| o.name == name).cloned())
    }

    fn insert_organisation(
        &mut self,
        name: &str,
        now: Timestamp,
    ) -> Result<Organisation, StoreError> {
        if self.organisations.iter().any(|o| o.name == name) {
            return Err(StoreError::Conflict(format!("organisation {name}")));
        }
        let org = Organisation {
            id: self.id(),
            name: name.into(),
            created: now,
            updated: now,
        };
        self.organisations.push(org.clone());
        Ok(org)
    }

    fn count_depots(&mut self) -> Result<u64, StoreError> {
        Ok(self.depots.len() as u64)
    }

    fn get_depot(&mut self, scope: DepotScope) -> Result<Option<Depot>, StoreError> {
        Ok(self.depots.iter().find(|d| d.scope() == scope).cloned())
    }

    fn get_depot_with_statuses(
        &mut self,
        scope: DepotScope,
    ) -> Result<Option<(Depot, Vec<String>)>, StoreError> {
        let Some(depot) = self.get_depot(scope)? else {
            return Ok(None);
        };
        Ok(Some((
            depot,
            self.list_custom_order_statuses(scope.organisation_id)?,
        )))
    }

    fn find_depot_by_name(
        &mut self,
        organisation_id: i64,
        name: &str,
    ) -> Result<Option<Depot>, StoreError> {
        Ok(self
            .depots
            .iter()
            .find(|d| d.organisation_id == organisation_id && d.name == name)
            .cloned())
    }

    fn insert_depot(
        &mut self,
        organisation_id: i64,
        depot: &NewDepot,
        now: Timestamp,
    ) -> Result<Depot, StoreError> {
        let row = Depot {
            id: self.id(),
            organisation_id,
            name: depot.name.clone(),
            address: depot.address.clone(),
            lat: depot.location.map(|c| c.lat),
            lng: depot.location.map(|c| c.lng),
            settings: depot.settings.clone(),
            created: now,
            updated: now,
        };
        self.depots.push(row.clone());
        Ok(row)
    }

    fn update_depot(
        &mut self,
        scope: DepotScope,
        depot: &NewDepot,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        if let Some(d) = self.depots.iter_mut().find(|d| d.scope() == scope) {
            d.name = depot.name.clone();
            d.address = depot.address.clone();
            d.lat = depot.location.map(|c| c.lat);
            d.lng = depot.location.map(|c| c.lng);
            d.settings = depot.settings.clone();
            d.updated = now;
        }
        Ok(())
    }

    fn access_keys_by_lookup(&mut self, lookup: i64) -> Result<Vec<AccessKey>, StoreError> {
        Ok(self
            .keys
            .iter()
            .filter(|k| key_lookup(&k.key_hash) == lookup)
            .cloned()
            .collect())
    }

    fn find_access_key_by_name(
        &mut self,
        scope: DepotScope,
        name: &str,
    ) -> Result<Option<AccessKey>, StoreError> {
        Ok(self
            .keys
            .iter()
            .find(|k| k.scope() == scope && k.name == name)
            .cloned())
    }

    fn insert_access_key(
        &mut self,
        scope: DepotScope,
        name: &str,
        permission: KeyPermission,
        key_hash: [u8; 32],
        _now: Timestamp,
    ) -> Result<AccessKey, StoreError> {
        let key = AccessKey {
            id: self.id(),
            depot_id: scope.depot_id,
            organisation_id: scope.organisation_id,
            name: name.into(),
            permission,
            key_hash,
        };
        self.keys.push(key.clone());
        Ok(key)
    }

    fn set_access_key_permission(
        &mut self,
        scope: DepotScope,
        id: i64,
        permission: KeyPermission,
    ) -> Result<(), StoreError> {
        for k in self
            .keys
            .iter_mut()
            .filter(|k| k.scope() == scope && k.id == id)
        {
            k.permission = permission;
        }
        Ok(())
    }

    fn installation_secret(&mut self, name: &str, fresh: [u8; 32]) -> Result<[u8; 32], StoreError> {
        if let Some((_, s)) = self.secrets.iter().find(|(n, _)| n == name) {
            return Ok(*s);
        }
        self.secrets.push((name.into(), fresh));
        Ok(fresh)
    }

    fn list_organisations(&mut self) -> Result<Vec<Organisation>, StoreError> {
        let mut all = self.organisations.clone();
        all.sort_by_key(|o| o.id);
        Ok(all)
    }

    fn list_depots(&mut self, organisation_id: i64) -> Result<Vec<Depot>, StoreError> {
        let mut all: Vec<Depot> = self
            .depots
            .iter()
            .filter(|d| d.organisation_id == organisation_id)
            .cloned()
            .collect();
        all.sort_by_key(|d| d.id);
        Ok(all)
    }

    fn list_access_keys(&mut self, scope: DepotScope) -> Result<Vec<AccessKey>, StoreError> {
        let mut all: Vec<AccessKey> = self
            .keys
            .iter()
            .filter(|k| k.scope() == scope)
            .cloned()
            .collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(all)
    }

    fn revoke_access_key(
        &mut self,
        scope: DepotScope,
        name: &str,
        _now: Timestamp,
    ) -> Result<bool, StoreError> {
        let before = self.keys.len();
        self.keys
            .retain(|k| !(k.scope() == scope && k.name == name));
        if self.keys.len() == before {
            return Ok(false);
        }
        match self
            .revoked_keys
            .iter_mut()
            .find(|(s, n, _)| *s == scope && n == name)
        {
            Some((.., generation)) => *generation += 1,
            None => self.revoked_keys.push((scope, name.into(), 1)),
        }
        Ok(true)
    }

    fn access_key_generation(&mut self, scope: DepotScope, name: &str) -> Result<u32, StoreError> {
        Ok(self
            .revoked_keys
            .iter()
            .find(|(s, n, _)| *s == scope && n == name)
            .map_or(0, |(.., generation)| *generation))
    }
}
