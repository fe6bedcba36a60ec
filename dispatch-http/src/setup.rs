//! Declarative setup: the `dispatch seed` file format (operator interface), applying it
//! idempotently by name, and the first-start default organisation, depot and key of `serve`.

use dispatch_core::model::location::Coordinates;
use dispatch_core::model::notification::{Channel, NotificationSettings};
use dispatch_core::model::organisation::{DepotScope, DepotSettings, KeyPermission, Webhook};
use dispatch_core::model::zone::Polygon;
use dispatch_core::ports::geocoder::GazetteerEntry;
use dispatch_core::ports::store::{NewDepot, Store, StoreError, StoreTx};
use dispatch_core::status::StatusSet;
use dispatch_core::time::Timestamp;
use serde::Deserialize;
use serde_json::{json, Value};

use crate::keys::ensure_key;

/// A seed file. Every key is optional except names; an unknown key anywhere is refused with its
/// path, as the API refuses unknown properties.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedFile {
    /// Organisations to create or update.
    #[serde(default)]
    pub organisations: Vec<SeedOrganisation>,
}

/// One organisation of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedOrganisation {
    /// Name (the identity).
    pub name: String,
    /// Custom order statuses.
    #[serde(default)]
    pub order_statuses: Vec<String>,
    /// Third parties.
    #[serde(default)]
    pub third_parties: Vec<Named>,
    /// Depots.
    #[serde(default)]
    pub depots: Vec<SeedDepot>,
}

/// Anything identified by its name only.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Named {
    /// Name.
    pub name: String,
}

/// One depot of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedDepot {
    /// Name (the identity within the organisation).
    pub name: String,
    /// Street address.
    pub address: Option<String>,
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lng: Option<f64>,
    /// Settings; absent keys take the defaults.
    #[serde(default)]
    pub settings: SeedSettings,
    /// Access keys.
    #[serde(default)]
    pub access_keys: Vec<SeedKey>,
    /// Capacity types.
    #[serde(default)]
    pub capacity_types: Vec<SeedCapacityType>,
    /// Custom fields.
    #[serde(default)]
    pub custom_fields: Vec<Named>,
    /// Tag names.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Zone groups with their zones.
    #[serde(default)]
    pub zone_groups: Vec<SeedZoneGroup>,
    /// Notification templates.
    #[serde(default)]
    pub notification_templates: Vec<SeedTemplate>,
    /// The offline geocoder's table.
    #[serde(default)]
    pub gazetteer: Vec<SeedPlace>,
    /// Driver questionnaires (see [`crate::setup_questionnaires`]).
    #[serde(default)]
    pub questionnaires: Vec<crate::setup_questionnaires::SeedQuestionnaire>,
}

/// Depot settings of a seed file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedSettings {
    /// See [`DepotSettings::allow_orders_without_customer`].
    pub allow_orders_without_customer: Option<bool>,
    /// See [`DepotSettings::starting_status`].
    pub starting_status: Option<String>,
    /// See [`DepotSettings::partial_orders`].
    pub partial_orders: Option<bool>,
    /// See [`DepotSettings::timezone`].
    pub timezone: Option<String>,
    /// Webhook receiver.
    pub webhook: Option<SeedWebhook>,
    /// Automatic customer notifications.
    pub notifications: Option<SeedNotifications>,
}

/// `settings.notifications` of a seed file: templates named as in the depot's
/// `notification_templates`. Absent keys leave the setting unset.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedNotifications {
    /// Template sent to each order's customer when its route is dispatched.
    pub planned_start_template: Option<String>,
    /// Template sent when a stop enters its on-delivery window.
    pub on_delivery_template: Option<String>,
    /// Minutes before the ETA at which the on-delivery window opens.
    pub on_delivery_window_minutes: Option<u32>,
}

/// Webhook receiver of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedWebhook {
    /// URL.
    pub url: String,
    /// Basic-auth user.
    #[serde(default)]
    pub username: String,
    /// Basic-auth password.
    #[serde(default)]
    pub password: String,
}

/// An access key of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedKey {
    /// Name (the identity within the depot).
    pub name: String,
    /// `all` (default) or `read`.
    pub permission: Option<String>,
}

/// A capacity type of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedCapacityType {
    /// Display name (the identity).
    #[serde(rename = "type")]
    pub name: String,
    /// Default amount.
    pub default: Option<String>,
}

/// A zone group of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedZoneGroup {
    /// Name.
    pub name: String,
    /// Zones.
    #[serde(default)]
    pub zones: Vec<SeedZone>,
}

/// A zone of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedZone {
    /// Name.
    pub name: String,
    /// `[lat, lng]` corners, implicitly closed; without them the zone contains nothing.
    #[serde(default)]
    pub polygon: Vec<[f64; 2]>,
}

/// A notification template of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedTemplate {
    /// `SMS` (the default) or `EMAIL`.
    #[serde(rename = "type", default)]
    pub channel: Option<String>,
    /// Name (the identity).
    pub name: String,
    /// Message text.
    #[serde(default)]
    pub body: String,
}

/// A gazetteer row of a seed file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedPlace {
    /// Address.
    pub address: Option<String>,
    /// Postcode.
    pub postcode: Option<String>,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
}

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

/// Parses a seed document.
pub fn parse(text: &str) -> Result<SeedFile, SeedError> {
    // serde reads a JSON array as a struct's fields in order, so `[]` or `[[...]]` would pass
    // for a seed file that creates nothing, or organisations by position.
    if text.trim_start().starts_with('[') {
        return Err(SeedError::Invalid(
            "invalid seed file at the top level: expected an object {\"organisations\": [...]}, \
             found an array"
                .to_owned(),
        ));
    }
    let mut json = serde_json::Deserializer::from_str(text);
    let seed = serde_path_to_error::deserialize(&mut json).map_err(|e| {
        let at = match e.path().to_string() {
            root if root == "." => "the top level".to_owned(),
            path => path,
        };
        SeedError::Invalid(format!("invalid seed file at {at}: {}", e.inner()))
    })?;
    json.end()
        .map_err(|e| SeedError::Invalid(format!("invalid seed file: {e}")))?;
    let value: Value = serde_json::from_str(text)
        .map_err(|e| SeedError::Invalid(format!("invalid seed file: {e}")))?;
    if let Some(at) = crate::setup_values::first_nul(&value, "") {
        return Err(SeedError::Invalid(format!(
            "invalid seed file at {at}: text must not contain NUL (\\u0000)"
        )));
    }
    Ok(seed)
}

/// Applies a seed file in one transaction and returns the output document (the input's tree
/// with ids added, and the clear access keys).
pub fn apply(store: &dyn Store, seed: &SeedFile, now: Timestamp) -> Result<Value, SeedError> {
    validate(seed)?;
    store.transaction(|tx| {
        let mut orgs = Vec::new();
        for (i, o) in seed.organisations.iter().enumerate() {
            orgs.push(apply_organisation(tx, i, o, now)?);
        }
        Ok(json!({ "organisations": orgs }))
    })
}

fn apply_organisation(
    tx: &mut dyn StoreTx,
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
        crate::setup_values::check_custom_status(&set, status, &at)?;
        tx.insert_custom_order_status(org.id, status, now)?;
    }
    let mut third_parties = Vec::new();
    for t in &o.third_parties {
        let row = tx.upsert_third_party(org.id, &t.name, now)?;
        third_parties.push(json!({"id": row.id, "name": row.name}));
    }
    let mut depots = Vec::new();
    for d in &o.depots {
        depots.push(apply_depot(tx, org.id, d, now)?);
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
    organisation_id: i64,
    d: &SeedDepot,
    now: Timestamp,
) -> Result<Value, SeedError> {
    let defaults = DepotSettings::default();
    let s = &d.settings;
    let starting_status = match &s.starting_status {
        Some(status) => {
            let set = StatusSet::new(tx.list_custom_order_statuses(organisation_id)?);
            crate::setup_values::starting_status(&set, status, &d.name)?
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
    let mut keys = Vec::new();
    for k in &d.access_keys {
        let permission = k
            .permission
            .as_deref()
            .map_or(Some(KeyPermission::All), KeyPermission::parse)
            .unwrap_or(KeyPermission::All);
        let (key, clear) = ensure_key(tx, scope, &k.name, permission, now)?;
        keys.push(json!({"name": key.name, "permission": key.permission.as_str(), "key": clear}));
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
    let questionnaires = crate::setup_questionnaires::apply(tx, scope, &d.questionnaires, now)?;
    Ok(json!({
        "id": depot.id,
        "name": depot.name,
        "access_keys": keys,
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
    scope: dispatch_core::model::organisation::DepotScope,
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

/// Checks what serde cannot: non-empty names, enum values, coordinates and polygons.
fn validate(seed: &SeedFile) -> Result<(), SeedError> {
    let mut problems = Vec::new();
    let name = |problems: &mut Vec<String>, what: String, n: &str| {
        if n.trim().is_empty() {
            problems.push(format!("{what}: name must not be empty"));
        }
    };
    for (oi, o) in seed.organisations.iter().enumerate() {
        let at = format!("organisations[{oi}]");
        name(&mut problems, at.clone(), &o.name);
        for (i, s) in o.order_statuses.iter().enumerate() {
            if s.is_empty() || s.chars().count() > 255 {
                problems.push(format!("{at}.order_statuses[{i}]: 1 to 255 characters"));
            }
        }
        for (i, t) in o.third_parties.iter().enumerate() {
            name(&mut problems, format!("{at}.third_parties[{i}]"), &t.name);
        }
        for (di, d) in o.depots.iter().enumerate() {
            let at = format!("{at}.depots[{di}]");
            name(&mut problems, at.clone(), &d.name);
            if d.lat.is_some() != d.lng.is_some()
                || d.lat
                    .zip(d.lng)
                    .is_some_and(|(a, b)| Coordinates::new(a, b).is_none())
            {
                problems.push(format!(
                    "{at}: lat and lng must be given together and in range"
                ));
            }
            for (i, k) in d.access_keys.iter().enumerate() {
                name(&mut problems, format!("{at}.access_keys[{i}]"), &k.name);
                if k.permission
                    .as_deref()
                    .is_some_and(|p| KeyPermission::parse(p).is_none())
                {
                    problems.push(format!(
                        "{at}.access_keys[{i}].permission: must be all or read"
                    ));
                }
            }
            for (i, c) in d.capacity_types.iter().enumerate() {
                name(
                    &mut problems,
                    format!("{at}.capacity_types[{i}].type"),
                    &c.name,
                );
            }
            for (i, c) in d.custom_fields.iter().enumerate() {
                name(&mut problems, format!("{at}.custom_fields[{i}]"), &c.name);
            }
            for (i, t) in d.tags.iter().enumerate() {
                name(&mut problems, format!("{at}.tags[{i}]"), t);
            }
            for (gi, g) in d.zone_groups.iter().enumerate() {
                name(&mut problems, format!("{at}.zone_groups[{gi}]"), &g.name);
                for (zi, z) in g.zones.iter().enumerate() {
                    let zat = format!("{at}.zone_groups[{gi}].zones[{zi}]");
                    name(&mut problems, zat.clone(), &z.name);
                    if (1..3).contains(&z.polygon.len())
                        || z.polygon
                            .iter()
                            .any(|[a, b]| Coordinates::new(*a, *b).is_none())
                    {
                        problems.push(format!(
                            "{zat}.polygon: none, or at least 3 [lat, lng] pairs in range"
                        ));
                    }
                }
            }
            for (i, t) in d.notification_templates.iter().enumerate() {
                name(
                    &mut problems,
                    format!("{at}.notification_templates[{i}]"),
                    &t.name,
                );
                if t.channel
                    .as_deref()
                    .is_some_and(|c| Channel::parse(c).is_none())
                {
                    problems.push(format!(
                        "{at}.notification_templates[{i}].type: must be SMS or EMAIL"
                    ));
                }
            }
            crate::setup_questionnaires::validate(&at, &d.questionnaires, &mut problems);
            crate::setup_values::check_settings(&at, &d.settings, &mut problems);
            for (i, p) in d.gazetteer.iter().enumerate() {
                if Coordinates::new(p.lat, p.lng).is_none()
                    || (p.address.is_none() && p.postcode.is_none())
                {
                    problems.push(format!(
                        "{at}.gazetteer[{i}]: needs an address or postcode and lat/lng in range"
                    ));
                }
            }
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(SeedError::Invalid(problems.join("\n")))
    }
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
pub fn bootstrap_default(store: &dyn Store, now: Timestamp) -> Result<Option<String>, StoreError> {
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
        let (_, clear) = ensure_key(tx, depot.scope(), "default", KeyPermission::All, now)?;
        Ok(Some(clear))
    })
}
