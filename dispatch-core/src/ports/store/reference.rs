//! The reference-data repository: what a depot's orders and vehicles refer to by name.

use super::StoreError;
use crate::model::notification::{Channel, NotificationTemplate};
use crate::model::order_fields::{Catalog, NamedRef};
use crate::model::organisation::DepotScope;
use crate::model::reference::{CapacityType, CustomField, Skill, Tag, ThirdParty};
use crate::model::zone::{Polygon, Zone, ZoneGroup};
use crate::ports::geocoder::{CachedAnswer, GazetteerEntry};
use crate::time::Timestamp;

/// Reference data of a depot (and organisation-wide third parties and order statuses).
pub trait ReferenceRepo {
    /// Capacity types of the depot, by id.
    fn list_capacity_types(&mut self, scope: DepotScope) -> Result<Vec<CapacityType>, StoreError>;
    /// Creates the capacity type named `name` or updates its default.
    fn upsert_capacity_type(
        &mut self,
        scope: DepotScope,
        name: &str,
        default: &str,
        now: Timestamp,
    ) -> Result<CapacityType, StoreError>;
    /// Custom fields of the depot, by id.
    fn list_custom_fields(&mut self, scope: DepotScope) -> Result<Vec<CustomField>, StoreError>;
    /// Creates the custom field named `name` unless it exists.
    fn upsert_custom_field(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<CustomField, StoreError>;
    /// Tags of the depot, by id.
    fn list_tags(&mut self, scope: DepotScope) -> Result<Vec<Tag>, StoreError>;
    /// Creates the tag named `name` unless it exists.
    fn upsert_tag(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<Tag, StoreError>;
    /// Skills of the depot, by id.
    fn list_skills(&mut self, scope: DepotScope) -> Result<Vec<Skill>, StoreError>;
    /// The depot's capacity types, skills, tags and custom fields by id and name, each list by
    /// id: what order and customer writes resolve names against. By default the four lists
    /// one after the other; a store may ask for them in one question.
    fn reference_catalog(&mut self, scope: DepotScope) -> Result<Catalog, StoreError> {
        let named = |id, name: &str| NamedRef {
            id,
            name: name.to_owned(),
        };
        Ok(Catalog {
            capacity_types: self
                .list_capacity_types(scope)?
                .iter()
                .map(|c| named(c.id, &c.name))
                .collect(),
            skills: self
                .list_skills(scope)?
                .iter()
                .map(|s| named(s.id, &s.name))
                .collect(),
            tags: self
                .list_tags(scope)?
                .iter()
                .map(|t| named(t.id, &t.name))
                .collect(),
            custom_fields: self
                .list_custom_fields(scope)?
                .iter()
                .map(|f| named(f.id, &f.name))
                .collect(),
        })
    }
    /// The skill named exactly `name` (case-sensitive), created when missing.
    fn upsert_skill(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<Skill, StoreError>;
    /// Zone groups of the depot, by id.
    fn list_zone_groups(&mut self, scope: DepotScope) -> Result<Vec<ZoneGroup>, StoreError>;
    /// One zone group of the depot.
    fn get_zone_group(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<ZoneGroup>, StoreError>;
    /// Creates the zone group named `name` unless it exists.
    fn upsert_zone_group(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<ZoneGroup, StoreError>;
    /// Zones of one group of the depot, by id.
    fn list_zones(
        &mut self,
        scope: DepotScope,
        zone_group_id: i64,
    ) -> Result<Vec<Zone>, StoreError>;
    /// Creates the zone named `name` in the group or replaces its polygon.
    fn upsert_zone(
        &mut self,
        scope: DepotScope,
        zone_group_id: i64,
        name: &str,
        polygon: &Polygon,
        now: Timestamp,
    ) -> Result<Zone, StoreError>;
    /// Third parties of the organisation, by id.
    fn list_third_parties(&mut self, organisation_id: i64) -> Result<Vec<ThirdParty>, StoreError>;
    /// Creates the third party named `name` unless it exists.
    fn upsert_third_party(
        &mut self,
        organisation_id: i64,
        name: &str,
        now: Timestamp,
    ) -> Result<ThirdParty, StoreError>;
    /// Custom order statuses of the organisation, in creation order.
    fn list_custom_order_statuses(
        &mut self,
        organisation_id: i64,
    ) -> Result<Vec<String>, StoreError>;
    /// Adds a custom order status; false when it already exists.
    fn insert_custom_order_status(
        &mut self,
        organisation_id: i64,
        status: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Notification templates of the depot, by id.
    fn list_notification_templates(
        &mut self,
        scope: DepotScope,
    ) -> Result<Vec<NotificationTemplate>, StoreError>;
    /// Creates the template named `name` or updates its channel and body.
    fn upsert_notification_template(
        &mut self,
        scope: DepotScope,
        channel: Channel,
        name: &str,
        body: &str,
        now: Timestamp,
    ) -> Result<NotificationTemplate, StoreError>;
    /// The depot's gazetteer (offline geocoder table).
    fn list_gazetteer(&mut self, scope: DepotScope) -> Result<Vec<GazetteerEntry>, StoreError>;
    /// Adds a gazetteer entry, or moves the one with the same address and postcode.
    fn upsert_gazetteer_entry(
        &mut self,
        scope: DepotScope,
        entry: &GazetteerEntry,
    ) -> Result<(), StoreError>;
    /// The organisation's remembered answer of an outside geocoder to the question `query`
    /// (a [`GeocodeQuery::cache_key`](crate::ports::geocoder::GeocodeQuery::cache_key)).
    fn find_geocode_answer(
        &mut self,
        organisation_id: i64,
        query: &str,
    ) -> Result<Option<CachedAnswer>, StoreError>;
    /// Remembers an outside geocoder's answer to `query`, replacing an older one.
    fn put_geocode_answer(
        &mut self,
        organisation_id: i64,
        query: &str,
        answer: &CachedAnswer,
    ) -> Result<(), StoreError>;
}
