//! Declarative setup: applying a seed file (`dispatch seed`, the operator interface)
//! idempotently by name in one transaction, and the first-start default organisation, depot
//! and key of `serve`.
//!
//! Seeding is a use case like any other: the file's rules are checked with the core's own
//! rules before anything is written, and the store is reached only through the
//! store port; the access keys' clear text comes from the [`KeyDerivation`] port.

mod checks;
mod file;
mod questionnaires;

use serde_json::{json, Value};

use crate::model::location::Coordinates;
use crate::model::notification::{Channel, NotificationSettings};
use crate::model::organisation::{AccessKey, DepotScope, DepotSettings, KeyPermission, Webhook};
use crate::model::zone::Polygon;
use crate::ports::access_keys::KeyDerivation;
use crate::ports::geocoder::GazetteerEntry;
use crate::ports::store::{NewDepot, Store, StoreError, StoreTx};
use crate::status::StatusSet;
use crate::time::Timestamp;

pub use file::*;
pub use questionnaires::{SeedQuestion, SeedQuestionnaire};

/// Why a seed could not be applied.
#[derive(Debug, thiserror::Error)]
pub enum SeedError {
    /// The file broke a rule (message names the place).
    #[error("{0}")]
    Invalid(String),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Applies a seed file in one transaction and returns the output document (the input's tree
/// with ids added, and the clear access keys).
pub fn apply(
    store: &dyn Store,
    keys: &dyn KeyDerivation,
    seed: &SeedFile,
    now: Timestamp,
) -> Result<Value, SeedError> {
    checks::validate(seed)?;
    store.transaction(|tx| {
        let mut orgs = Vec::new();
        for (i, o) in seed.organisations.iter().enumerate() {
            orgs.push(apply_organisation(tx, keys, i, o, now)?);
        }
        Ok(json!({ "organisations": orgs }))
    })
}

fn apply_organisation(
    tx: &mut dyn StoreTx,
    keys: &dyn KeyDerivation,
    index: usize,
    o: &SeedOrganisation,
    now: Timestamp,
) -> Result<Value, SeedError> {
    let org = match tx.find_organisation_by_name(&o.name)? {
        Some(org) => org,
        None => tx.insert_organisation(&o.name, now)?,
    };
    for (i, status) in o.order_statuses.iter().enumerate() {
        let set = StatusSet::new(tx.list_custom_order_statuses(org.id)?);
        let at = format!("organisations[{index}].order_statuses[{i}]");
        checks::check_custom_status(&set, status, &at)?;
        tx.insert_custom_order_status(org.id, status, now)?;
    }
    let mut third_parties = Vec::new();
    for t in &o.third_parties {
        let row = tx.upsert_third_party(org.id, &t.name, now)?;
        third_parties.push(json!({"id": row.id, "name": row.name}));
    }
    let mut depots = Vec::new();
    for d in &o.depots {
        depots.push(apply_depot(tx, keys, org.id, d, now)?);
    }
    Ok(json!({
        "id": org.id,
        "name": org.name,
        "order_statuses": o.order_statuses,
        "third_parties": third_parties,
        "depots": depots,
    }))
}

fn apply_depot(
    tx: &mut dyn StoreTx,
    keys: &dyn KeyDerivation,
    organisation_id: i64,
    d: &SeedDepot,
    now: Timestamp,
) -> Result<Value, SeedError> {
    let defaults = DepotSettings::default();
    let s = &d.settings;
    let starting_status = match &s.starting_status {
        Some(status) => {
            let set = StatusSet::new(tx.list_custom_order_statuses(organisation_id)?);
            checks::starting_status(&set, status, &d.name)?
        }
        None => defaults.starting_status,
    };
    let new = NewDepot {
        name: d.name.clone(),
        address: d.address.clone(),
        location: d
            .lat
            .zip(d.lng)
            .and_then(|(lat, lng)| Coordinates::new(lat, lng)),
        settings: DepotSettings {
            allow_orders_without_customer: s
                .allow_orders_without_customer
                .unwrap_or(defaults.allow_orders_without_customer),
            starting_status,
            partial_orders: s.partial_orders.unwrap_or(defaults.partial_orders),
            timezone: s.timezone.clone().unwrap_or(defaults.timezone),
            webhook: s.webhook.as_ref().map(|w| Webhook {
                url: w.url.clone(),
                username: w.username.clone(),
                password: w.password.clone(),
            }),
        },
    };
    let depot = match tx.find_depot_by_name(organisation_id, &d.name)? {
        Some(existing) => {
            let same = existing.address == new.address
                && existing.lat == new.location.map(|c| c.lat)
                && existing.lng == new.location.map(|c| c.lng)
                && existing.settings == new.settings;
            if !same {
                tx.update_depot(existing.scope(), &new, now)?;
            }
            existing
        }
        None => tx.insert_depot(organisation_id, &new, now)?,
    };
    let scope = depot.scope();
    let mut access_keys = Vec::new();
    for k in &d.access_keys {
        let permission = k
            .permission
            .as_deref()
            .map_or(Some(KeyPermission::All), KeyPermission::parse)
            .unwrap_or(KeyPermission::All);
        let (key, clear) = ensure_key(tx, keys, scope, &k.name, permission, now)?;
        access_keys
            .push(json!({"name": key.name, "permission": key.permission.as_str(), "key": clear}));
    }
    let mut capacity_types = Vec::new();
    for c in &d.capacity_types {
        let row =
            tx.upsert_capacity_type(scope, &c.name, c.default.as_deref().unwrap_or("0"), now)?;
        capacity_types.push(json!({"id": row.id, "type": row.name}));
    }
    let mut custom_fields = Vec::new();
    for c in &d.custom_fields {
        let row = tx.upsert_custom_field(scope, &c.name, now)?;
        custom_fields.push(json!({"id": row.id, "name": row.name}));
    }
    let mut tags = Vec::new();
    for t in &d.tags {
        let row = tx.upsert_tag(scope, t, now)?;
        tags.push(json!({"id": row.id, "name": row.name}));
    }
    let mut zone_groups = Vec::new();
    for g in &d.zone_groups {
        let group = tx.upsert_zone_group(scope, &g.name, now)?;
        let mut zones = Vec::new();
        for z in &g.zones {
            let polygon = Polygon(
                z.polygon
                    .iter()
                    .map(|[lat, lng]| Coordinates {
                        lat: *lat,
                        lng: *lng,
                    })
                    .collect(),
            );
            let zone = tx.upsert_zone(scope, group.id, &z.name, &polygon, now)?;
            zones.push(json!({"id": zone.id, "name": zone.name}));
        }
        zone_groups.push(json!({"id": group.id, "name": group.name, "zones": zones}));
    }
    let mut templates = Vec::new();
    for t in &d.notification_templates {
        let channel = t
            .channel
            .as_deref()
            .and_then(Channel::parse)
            .unwrap_or(Channel::Sms);
        let row = tx.upsert_notification_template(scope, channel, &t.name, &t.body, now)?;
        templates.push(json!({"id": row.id, "type": row.channel.as_str(), "name": row.name}));
    }
    if let Some(n) = &s.notifications {
        apply_notification_settings(tx, scope, n, &d.name)?;
    }
    for p in &d.gazetteer {
        let entry = GazetteerEntry {
            address: p.address.clone(),
            postcode: p.postcode.clone(),
            location: Coordinates {
                lat: p.lat,
                lng: p.lng,
            },
        };
        tx.upsert_gazetteer_entry(scope, &entry)?;
    }
    let questionnaires = questionnaires::apply(tx, scope, &d.questionnaires, now)?;
    Ok(json!({
        "id": depot.id,
        "name": depot.name,
        "access_keys": access_keys,
        "capacity_types": capacity_types,
        "custom_fields": custom_fields,
        "tags": tags,
        "zone_groups": zone_groups,
        "notification_templates": templates,
        "questionnaires": questionnaires,
    }))
}

fn apply_notification_settings(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    n: &SeedNotifications,
    depot: &str,
) -> Result<(), SeedError> {
    let templates = tx.list_notification_templates(scope)?;
    let find = |key: &str, name: &Option<String>| -> Result<Option<i64>, SeedError> {
        match name {
            None => Ok(None),
            Some(name) => templates
                .iter()
                .find(|t| &t.name == name)
                .map(|t| Some(t.id))
                .ok_or_else(|| {
                    SeedError::Invalid(format!(
                        "depot {depot}: settings.notifications.{key}: no notification template named {name:?}"
                    ))
                }),
        }
    };
    let settings = NotificationSettings {
        planned_start_template: find("planned_start_template", &n.planned_start_template)?,
        on_delivery_template: find("on_delivery_template", &n.on_delivery_template)?,
        on_delivery_window_minutes: n.on_delivery_window_minutes,
    };
    tx.set_notification_settings(scope, &settings)?;
    Ok(())
}

/// The depot [`bootstrap_default`] creates, when it exists.
pub fn default_depot(store: &dyn Store) -> Result<Option<DepotScope>, StoreError> {
    store.read(|tx| {
        let Some(org) = tx.find_organisation_by_name("Default")? else {
            return Ok(None);
        };
        Ok(tx.find_depot_by_name(org.id, "Default")?.map(|d| d.scope()))
    })
}

/// On a store without any depot: creates organisation "Default", depot "Default" and an access
/// key named "default" with permission `all`, and returns the key. `None` when a depot exists.
pub fn bootstrap_default(
    store: &dyn Store,
    keys: &dyn KeyDerivation,
    now: Timestamp,
) -> Result<Option<String>, StoreError> {
    store.transaction(|tx| {
        if tx.count_depots()? > 0 {
            return Ok(None);
        }
        let org = match tx.find_organisation_by_name("Default")? {
            Some(org) => org,
            None => tx.insert_organisation("Default", now)?,
        };
        let new = NewDepot {
            name: "Default".into(),
            address: None,
            location: None,
            settings: DepotSettings::default(),
        };
        let depot = tx.insert_depot(org.id, &new, now)?;
        let (_, clear) = ensure_key(tx, keys, depot.scope(), "default", KeyPermission::All, now)?;
        Ok(Some(clear))
    })
}

/// The key named `name` of the depot with `permission`, created when missing (re-seeding
/// prints the same key again); returns the stored key and its clear text.
fn ensure_key(
    tx: &mut dyn StoreTx,
    keys: &dyn KeyDerivation,
    scope: DepotScope,
    name: &str,
    permission: KeyPermission,
    now: Timestamp,
) -> Result<(AccessKey, String), StoreError> {
    let clear = keys.clear_key(tx, scope, name)?;
    let key = match tx.find_access_key_by_name(scope, name)? {
        Some(mut key) => {
            if key.permission != permission {
                tx.set_access_key_permission(scope, key.id, permission)?;
                key.permission = permission;
            }
            key
        }
        None => tx.insert_access_key(scope, name, permission, keys.digest(&clear), now)?,
    };
    Ok((key, clear))
}
