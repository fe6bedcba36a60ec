//! The in-memory reference-data repository.

use super::{scoped, State};
use crate::model::notification::{Channel, NotificationTemplate};
use crate::model::organisation::DepotScope;
use crate::model::reference::{CapacityType, CustomField, Skill, Tag, ThirdParty};
use crate::model::zone::{Polygon, Zone, ZoneGroup};
use crate::ports::geocoder::{CachedAnswer, GazetteerEntry};
use crate::ports::store::{ReferenceRepo, StoreError};
use crate::time::Timestamp;

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
