//! The seed file as the operator writes it (`dispatch seed FILE`): the document's types, read
//! strictly (an unknown key anywhere is refused with its path).

use serde::Deserialize;
use serde_json::Value;

use super::questionnaires::SeedQuestionnaire;
use super::SeedError;

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
    /// Driver questionnaires (titles unique within the depot).
    #[serde(default)]
    pub questionnaires: Vec<SeedQuestionnaire>,
}

/// Depot settings of a seed file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SeedSettings {
    /// See [`DepotSettings::allow_orders_without_customer`](crate::model::organisation::DepotSettings::allow_orders_without_customer).
    pub allow_orders_without_customer: Option<bool>,
    /// See [`DepotSettings::starting_status`](crate::model::organisation::DepotSettings::starting_status).
    pub starting_status: Option<String>,
    /// See [`DepotSettings::partial_orders`](crate::model::organisation::DepotSettings::partial_orders).
    pub partial_orders: Option<bool>,
    /// See [`DepotSettings::timezone`](crate::model::organisation::DepotSettings::timezone).
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
    if let Some(at) = super::checks::first_nul(&value, "") {
        return Err(SeedError::Invalid(format!(
            "invalid seed file at {at}: text must not contain NUL (\\u0000)"
        )));
    }
    Ok(seed)
}
