//! Organisations, their depots, depot settings and the access keys that identify a depot.

use crate::time::Timestamp;

/// A customer of the service; owns depots, organisation-wide order statuses and third parties.
#[derive(Debug, Clone, PartialEq)]
pub struct Organisation {
    /// Identifier.
    pub id: i64,
    /// Unique name.
    pub name: String,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

/// Where a request's data lives: every depot-scoped row and query is filtered by `depot_id`,
/// every organisation-wide one by `organisation_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DepotScope {
    /// The organisation owning the depot.
    pub organisation_id: i64,
    /// The depot itself.
    pub depot_id: i64,
}

/// A depot: the unit an access key identifies and the scope of almost all data.
#[derive(Debug, Clone, PartialEq)]
pub struct Depot {
    /// Identifier.
    pub id: i64,
    /// Owning organisation.
    pub organisation_id: i64,
    /// Name, unique within the organisation.
    pub name: String,
    /// Street address of the depot (route start and end for `depot` locations).
    pub address: Option<String>,
    /// Latitude of the depot.
    pub lat: Option<f64>,
    /// Longitude of the depot.
    pub lng: Option<f64>,
    /// Behaviour switches of the depot.
    pub settings: DepotSettings,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

impl Depot {
    /// The sentence that tells an operator how to give depot `depot_id` a position: every
    /// refusal for want of one names it.
    pub fn position_fix(depot_id: i64) -> String {
        format!(
            "give the depot a position with PUT /v2/depots/{depot_id} (`lat` and `lng`, or an \
             `address` to geocode), or start `dispatch serve` on a new database with --depot-lat \
             and --depot-lng (or --depot-address)"
        )
    }

    /// The scope of this depot's data.
    pub fn scope(&self) -> DepotScope {
        DepotScope {
            organisation_id: self.organisation_id,
            depot_id: self.id,
        }
    }
}

/// Depot settings that change behaviour of the service.
#[derive(Debug, Clone, PartialEq)]
pub struct DepotSettings {
    /// Whether orders without a customer are accepted (otherwise 403 PERMISSION).
    pub allow_orders_without_customer: bool,
    /// Status given to new orders.
    pub starting_status: String,
    /// Whether orders may be delivered in part (stops list only the delivered line items).
    pub partial_orders: bool,
    /// IANA time-zone name of the depot.
    pub timezone: String,
    /// Webhook receiver, if configured.
    pub webhook: Option<Webhook>,
}

impl Default for DepotSettings {
    fn default() -> Self {
        DepotSettings {
            allow_orders_without_customer: true,
            starting_status: "OPEN".to_owned(),
            partial_orders: false,
            timezone: "UTC".to_owned(),
            webhook: None,
        }
    }
}

/// The one webhook receiver of a depot and its Basic credentials.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Webhook {
    /// Receiver URL.
    pub url: String,
    /// Basic-auth user name.
    pub username: String,
    /// Basic-auth password.
    pub password: String,
}

/// What an access key may call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyPermission {
    /// Every endpoint.
    All,
    /// GET endpoints only; anything else is 403 PERMISSION.
    Read,
}

impl KeyPermission {
    /// The spelling used in seed files and storage (`all`, `read`).
    pub fn as_str(self) -> &'static str {
        match self {
            KeyPermission::All => "all",
            KeyPermission::Read => "read",
        }
    }

    /// Parses `all` or `read`.
    pub fn parse(s: &str) -> Option<KeyPermission> {
        match s {
            "all" => Some(KeyPermission::All),
            "read" => Some(KeyPermission::Read),
            _ => None,
        }
    }
}

/// An access key as stored: never the key itself, only its SHA-256 digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessKey {
    /// Identifier.
    pub id: i64,
    /// The depot the key identifies.
    pub depot_id: i64,
    /// That depot's organisation.
    pub organisation_id: i64,
    /// Name, unique within the depot.
    pub name: String,
    /// What the key may call.
    pub permission: KeyPermission,
    /// SHA-256 digest of the key.
    pub key_hash: [u8; 32],
}

/// The indexed lookup value of a key digest: its first 8 bytes as a big-endian integer. Stores
/// find candidate keys by it; the full digest is then compared in constant time.
pub fn key_lookup(key_hash: &[u8; 32]) -> i64 {
    let mut head = [0u8; 8];
    head.copy_from_slice(&key_hash[..8]);
    i64::from_be_bytes(head)
}

impl AccessKey {
    /// The scope of the data this key reaches.
    pub fn scope(&self) -> DepotScope {
        DepotScope {
            organisation_id: self.organisation_id,
            depot_id: self.depot_id,
        }
    }
}
