//! An in-memory [`Store`] for core tests and examples. A transaction works on a copy of the
//! state and swaps it in on commit, so rollbacks and isolation behave like the real store.

use std::sync::Mutex;

mod driver;
mod idempotency;
mod leases;
mod notifications;
mod orders;
mod outbox;
mod plans;
mod pod;
mod route_log;
mod routes;

use super::{NewDepot, OrganisationRepo, ReferenceRepo, Store, StoreError, StoreTx, VehicleRepo};
use crate::model::notification::{Channel, NotificationTemplate};
use crate::model::organisation::{
    key_lookup, AccessKey, Depot, DepotScope, KeyPermission, Organisation,
};
use crate::model::reference::{CapacityType, CustomField, Skill, Tag, ThirdParty};
use crate::model::vehicle::{Vehicle, VehicleFields};
use crate::model::zone::{Polygon, Zone, ZoneGroup};
use crate::ports::geocoder::{CachedAnswer, GazetteerEntry};
use crate::time::Timestamp;

/// The in-memory store.
#[derive(Debug, Default)]
pub struct InMemoryStore {
    state: Mutex<State>,
}

impl InMemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[derive(Debug, Clone, Default)]
struct State {
    next_id: i64,
    organisations: Vec<Organisation>,
    depots: Vec<Depot>,
    keys: Vec<AccessKey>,
    /// (depot scope, key name, generation) of revoked key names.
    revoked_keys: Vec<(DepotScope, String, u32)>,
    secrets: Vec<(String, [u8; 32])>,
    capacity_types: Vec<(i64, CapacityType)>,
    custom_fields: Vec<(i64, CustomField)>,
    tags: Vec<(i64, Tag)>,
    skills: Vec<(i64, Skill)>,
    zone_groups: Vec<(i64, ZoneGroup)>,
    zones: Vec<(i64, Zone)>,
    third_parties: Vec<(i64, ThirdParty)>,
    order_statuses: Vec<(i64, String)>,
    templates: Vec<(i64, NotificationTemplate)>,
    gazetteer: Vec<(i64, GazetteerEntry)>,
    /// (organisation, question) -> an outside geocoder's answer.
    geocode_cache: std::collections::HashMap<(i64, String), CachedAnswer>,
    vehicles: Vec<Vehicle>,
    orders: orders::OrderBook,
    outbox: outbox::Outbox,
    notifications: notifications::Notifications,
    planning: plans::Planning,
    route_log: route_log::RouteLog,
    driver: driver::DriverSide,
    proofs: pod::Proofs,
    idempotency: idempotency::Records,
    leases: leases::Leases,
}

impl State {
    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }
}

impl Store for InMemoryStore {
    fn run_write(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut guard = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut copy = guard.clone();
        work(&mut copy)?;
        *guard = copy;
        Ok(())
    }

    fn run_read(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let mut copy = self.state.lock().unwrap_or_else(|e| e.into_inner()).clone();
        work(&mut copy)
    }
}

/// Rows of one depot (or organisation) from a scoped table, in id order.
fn scoped<T: Clone>(rows: &[(i64, T)], owner: i64) -> Vec<T> {
    rows.iter()
        .filter(|(o, _)| *o == owner)
        .map(|(_, r)| r.clone())
        .collect()
}

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

impl ReferenceRepo for State {
    fn list_capacity_types(&mut self, scope: DepotScope) -> Result<Vec<CapacityType>, StoreError> {
        Ok(scoped(&self.capacity_types, scope.depot_id))
    }

    fn upsert_capacity_type(
        &mut self,
        scope: DepotScope,
        name: &str,
        default: &str,
        now: Timestamp,
    ) -> Result<CapacityType, StoreError> {
        let depot = scope.depot_id;
        if let Some((_, c)) = self
            .capacity_types
            .iter_mut()
            .find(|(d, c)| *d == depot && c.name == name)
        {
            if c.default != default {
                c.default = default.into();
                c.updated = now;
            }
            return Ok(c.clone());
        }
        let row = CapacityType {
            id: self.id(),
            name: name.into(),
            default: default.into(),
            created: now,
            updated: now,
        };
        self.capacity_types.push((depot, row.clone()));
        Ok(row)
    }

    fn list_custom_fields(&mut self, scope: DepotScope) -> Result<Vec<CustomField>, StoreError> {
        Ok(scoped(&self.custom_fields, scope.depot_id))
    }

    fn upsert_custom_field(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<CustomField, StoreError> {
        let depot = scope.depot_id;
        if let Some((_, c)) = self
            .custom_fields
            .iter()
            .find(|(d, c)| *d == depot && c.name == name)
        {
            return Ok(c.clone());
        }
        let row = CustomField {
            id: self.id(),
            name: name.into(),
            created: now,
            updated: now,
        };
        self.custom_fields.push((depot, row.clone()));
        Ok(row)
    }

    fn list_tags(&mut self, scope: DepotScope) -> Result<Vec<Tag>, StoreError> {
        Ok(scoped(&self.tags, scope.depot_id))
    }

    fn upsert_tag(
        &mut self,
        scope: DepotScope,
        name: &str,
        _now: Timestamp,
    ) -> Result<Tag, StoreError> {
        let depot = scope.depot_id;
        if let Some((_, t)) = self
            .tags
            .iter()
            .find(|(d, t)| *d == depot && t.name == name)
        {
            return Ok(t.clone());
        }
        let row = Tag {
            id: self.id(),
            name: name.into(),
        };
        self.tags.push((depot, row.clone()));
        Ok(row)
    }

    fn list_skills(&mut self, scope: DepotScope) -> Result<Vec<Skill>, StoreError> {
        Ok(scoped(&self.skills, scope.depot_id))
    }

    fn upsert_skill(
        &mut self,
        scope: DepotScope,
        name: &str,
        _now: Timestamp,
    ) -> Result<Skill, StoreError> {
        let depot = scope.depot_id;
        if let Some((_, s)) = self
            .skills
            .iter()
            .find(|(d, s)| *d == depot && s.name == name)
        {
            return Ok(s.clone());
        }
        let row = Skill {
            id: self.id(),
            name: name.into(),
        };
        self.skills.push((depot, row.clone()));
        Ok(row)
    }

    fn list_zone_groups(&mut self, scope: DepotScope) -> Result<Vec<ZoneGroup>, StoreError> {
        Ok(scoped(&self.zone_groups, scope.depot_id))
    }

    fn get_zone_group(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<ZoneGroup>, StoreError> {
        Ok(scoped(&self.zone_groups, scope.depot_id)
            .into_iter()
            .find(|g| g.id == id))
    }

    fn upsert_zone_group(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<ZoneGroup, StoreError> {
        let depot = scope.depot_id;
        if let Some((_, g)) = self
            .zone_groups
            .iter()
            .find(|(d, g)| *d == depot && g.name == name)
        {
            return Ok(g.clone());
        }
        let row = ZoneGroup {
            id: self.id(),
            name: name.into(),
            created: now,
            updated: now,
        };
        self.zone_groups.push((depot, row.clone()));
        Ok(row)
    }

    fn list_zones(
        &mut self,
        scope: DepotScope,
        zone_group_id: i64,
    ) -> Result<Vec<Zone>, StoreError> {
        Ok(scoped(&self.zones, scope.depot_id)
            .into_iter()
            .filter(|z| z.zone_group_id == zone_group_id)
            .collect())
    }

    fn upsert_zone(
        &mut self,
        scope: DepotScope,
        zone_group_id: i64,
        name: &str,
        polygon: &Polygon,
        _now: Timestamp,
    ) -> Result<Zone, StoreError> {
        let depot = scope.depot_id;
        if let Some((_, z)) = self
            .zones
            .iter_mut()
            .find(|(d, z)| *d == depot && z.zone_group_id == zone_group_id && z.name == name)
        {
            z.polygon = polygon.clone();
            return Ok(z.clone());
        }
        let row = Zone {
            id: self.id(),
            zone_group_id,
            name: name.into(),
            polygon: polygon.clone(),
        };
        self.zones.push((depot, row.clone()));
        Ok(row)
    }

    fn list_third_parties(&mut self, organisation_id: i64) -> Result<Vec<ThirdParty>, StoreError> {
        Ok(scoped(&self.third_parties, organisation_id))
    }

    fn upsert_third_party(
        &mut self,
        organisation_id: i64,
        name: &str,
        _now: Timestamp,
    ) -> Result<ThirdParty, StoreError> {
        if let Some((_, t)) = self
            .third_parties
            .iter()
            .find(|(o, t)| *o == organisation_id && t.name == name)
        {
            return Ok(t.clone());
        }
        let row = ThirdParty {
            id: self.id(),
            name: name.into(),
        };
        self.third_parties.push((organisation_id, row.clone()));
        Ok(row)
    }

    fn list_custom_order_statuses(
        &mut self,
        organisation_id: i64,
    ) -> Result<Vec<String>, StoreError> {
        Ok(scoped(&self.order_statuses, organisation_id))
    }

    fn insert_custom_order_status(
        &mut self,
        organisation_id: i64,
        status: &str,
        _now: Timestamp,
    ) -> Result<bool, StoreError> {
        if self
            .order_statuses
            .iter()
            .any(|(o, s)| *o == organisation_id && s == status)
        {
            return Ok(false);
        }
        self.order_statuses.push((organisation_id, status.into()));
        Ok(true)
    }

    fn list_notification_templates(
        &mut self,
        scope: DepotScope,
    ) -> Result<Vec<NotificationTemplate>, StoreError> {
        Ok(scoped(&self.templates, scope.depot_id))
    }

    fn upsert_notification_template(
        &mut self,
        scope: DepotScope,
        channel: Channel,
        name: &str,
        body: &str,
        _now: Timestamp,
    ) -> Result<NotificationTemplate, StoreError> {
        let depot = scope.depot_id;
        if let Some((_, t)) = self
            .templates
            .iter_mut()
            .find(|(d, t)| *d == depot && t.name == name)
        {
            t.channel = channel;
            t.body = body.into();
            return Ok(t.clone());
        }
        let row = NotificationTemplate {
            id: self.id(),
            channel,
            name: name.into(),
            body: body.into(),
        };
        self.templates.push((depot, row.clone()));
        Ok(row)
    }

    fn list_gazetteer(&mut self, scope: DepotScope) -> Result<Vec<GazetteerEntry>, StoreError> {
        Ok(scoped(&self.gazetteer, scope.depot_id))
    }

    fn upsert_gazetteer_entry(
        &mut self,
        scope: DepotScope,
        entry: &GazetteerEntry,
    ) -> Result<(), StoreError> {
        let depot = scope.depot_id;
        match self.gazetteer.iter_mut().find(|(d, e)| {
            *d == depot && e.address == entry.address && e.postcode == entry.postcode
        }) {
            Some((_, e)) => e.location = entry.location,
            None => self.gazetteer.push((depot, entry.clone())),
        }
        Ok(())
    }

    fn find_geocode_answer(
        &mut self,
        organisation_id: i64,
        query: &str,
    ) -> Result<Option<CachedAnswer>, StoreError> {
        Ok(self
            .geocode_cache
            .get(&(organisation_id, query.to_owned()))
            .copied())
    }

    fn put_geocode_answer(
        &mut self,
        organisation_id: i64,
        query: &str,
        answer: &CachedAnswer,
    ) -> Result<(), StoreError> {
        self.geocode_cache
            .insert((organisation_id, query.to_owned()), *answer);
        Ok(())
    }
}

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
