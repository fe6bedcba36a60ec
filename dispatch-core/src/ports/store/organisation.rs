//! The organisation repository: organisations, depots, access keys and installation secrets.

use super::StoreError;
use crate::model::location::Coordinates;
use crate::model::organisation::{
    AccessKey, Depot, DepotScope, DepotSettings, KeyPermission, Organisation,
};
use crate::time::Timestamp;

/// A depot to create.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDepot {
    /// Name, unique within the organisation.
    pub name: String,
    /// Street address.
    pub address: Option<String>,
    /// Coordinates of the depot.
    pub location: Option<Coordinates>,
    /// Settings.
    pub settings: DepotSettings,
}

/// Organisations, depots, access keys and installation secrets.
pub trait OrganisationRepo {
    /// The organisation of that name.
    fn find_organisation_by_name(&mut self, name: &str)
        -> Result<Option<Organisation>, StoreError>;
    /// Creates an organisation.
    fn insert_organisation(
        &mut self,
        name: &str,
        now: Timestamp,
    ) -> Result<Organisation, StoreError>;
    /// How many depots exist in the whole store.
    fn count_depots(&mut self) -> Result<u64, StoreError>;
    /// The depot of the scope.
    fn get_depot(&mut self, scope: DepotScope) -> Result<Option<Depot>, StoreError>;
    /// The depot of the scope with its organisation's custom order statuses (in creation
    /// order): what a write of orders reads before its transaction, one question for both.
    fn get_depot_with_statuses(
        &mut self,
        scope: DepotScope,
    ) -> Result<Option<(Depot, Vec<String>)>, StoreError>;
    /// The depot of that name in the organisation.
    fn find_depot_by_name(
        &mut self,
        organisation_id: i64,
        name: &str,
    ) -> Result<Option<Depot>, StoreError>;
    /// Creates a depot.
    fn insert_depot(
        &mut self,
        organisation_id: i64,
        depot: &NewDepot,
        now: Timestamp,
    ) -> Result<Depot, StoreError>;
    /// Overwrites a depot's name, address, location and settings (`updated` becomes `now`).
    fn update_depot(
        &mut self,
        scope: DepotScope,
        depot: &NewDepot,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Access keys whose digest starts with `lookup` (the first 8 digest bytes, big-endian);
    /// the caller compares the full digest in constant time.
    fn access_keys_by_lookup(&mut self, lookup: i64) -> Result<Vec<AccessKey>, StoreError>;
    /// The key of that name in the depot.
    fn find_access_key_by_name(
        &mut self,
        scope: DepotScope,
        name: &str,
    ) -> Result<Option<AccessKey>, StoreError>;
    /// Stores a key (its digest only).
    fn insert_access_key(
        &mut self,
        scope: DepotScope,
        name: &str,
        permission: KeyPermission,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> Result<AccessKey, StoreError>;
    /// Changes a key's permission.
    fn set_access_key_permission(
        &mut self,
        scope: DepotScope,
        id: i64,
        permission: KeyPermission,
    ) -> Result<(), StoreError>;
    /// The installation secret named `name`; stores `fresh` first when none exists yet.
    fn installation_secret(&mut self, name: &str, fresh: [u8; 32]) -> Result<[u8; 32], StoreError>;
    /// Every organisation, by id.
    fn list_organisations(&mut self) -> Result<Vec<Organisation>, StoreError>;
    /// The organisation's depots, by id.
    fn list_depots(&mut self, organisation_id: i64) -> Result<Vec<Depot>, StoreError>;
    /// The depot's keys in force, by name.
    fn list_access_keys(&mut self, scope: DepotScope) -> Result<Vec<AccessKey>, StoreError>;
    /// Revokes the depot's key of that name: it stops authenticating with the commit, and the
    /// name's generation (see [`OrganisationRepo::access_key_generation`]) goes up by one.
    /// `false` when the depot has no key of that name.
    fn revoke_access_key(
        &mut self,
        scope: DepotScope,
        name: &str,
        now: Timestamp,
    ) -> Result<bool, StoreError>;
    /// How many times a key of that name was revoked in the depot (0 when never). Keys are
    /// derived from it, so a key created again under a revoked name is a new key.
    fn access_key_generation(&mut self, scope: DepotScope, name: &str) -> Result<u32, StoreError>;
}
