//! Access keys: derivation, digests and constant-time verification.
//!
//! Keys are never stored. The store holds the SHA-256 digest of each key (and an 8-byte lookup
//! prefix of it, indexed); a presented key is hashed, candidates are fetched by the prefix and
//! the full digests are compared in constant time (`subtle`).
//!
//! A key is derived from a random 32-byte installation secret (generated once per database with
//! the OS random source, `getrandom`) together with the depot id and key name:
//! `hex(SHA-256("dispatch-access-key-v1" || secret || depot_id || name))`. That lets
//! `dispatch seed` print the same key again on a re-run, as the operator interface requires,
//! without keeping keys in clear. Whoever holds the database file can re-derive keys, but that
//! party holds all the data anyway.

use dispatch_core::model::organisation::{key_lookup, AccessKey, DepotScope, KeyPermission};
use dispatch_core::ports::access_keys::KeyDerivation;
use dispatch_core::ports::store::{Store, StoreError, StoreTx};
use dispatch_core::time::Timestamp;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Name of the installation secret keys are derived from.
const SECRET_NAME: &str = "access-key-derivation";

/// SHA-256 of a presented key.
pub fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Generation 0 (a name never revoked) keeps the original derivation, so keys printed before
/// revocation existed stay valid; later generations add the generation number.
fn derive(secret: &[u8; 32], depot_id: i64, name: &str, generation: u32) -> String {
    let mut h = Sha256::new();
    h.update(b"dispatch-access-key-v1");
    h.update(secret);
    h.update(depot_id.to_be_bytes());
    h.update(name.as_bytes());
    if generation > 0 {
        h.update(b"\0generation");
        h.update(generation.to_be_bytes());
    }
    hex::encode(h.finalize())
}

/// The clear text of the depot's key named `name` in its current generation.
fn clear_key(tx: &mut dyn StoreTx, scope: DepotScope, name: &str) -> Result<String, StoreError> {
    let mut fresh = [0u8; 32];
    getrandom::fill(&mut fresh)
        .map_err(|e| StoreError::Backend(format!("no OS randomness: {e}")))?;
    let secret = tx.installation_secret(SECRET_NAME, fresh)?;
    let generation = tx.access_key_generation(scope, name)?;
    Ok(derive(&secret, scope.depot_id, name, generation))
}

/// The access key presented as `x-access-key`, if it is valid.
pub fn authenticate(store: &dyn Store, presented: &str) -> Result<Option<AccessKey>, StoreError> {
    let hash = digest(presented);
    let candidates = store.read_single(|tx| tx.access_keys_by_lookup(key_lookup(&hash)))?;
    Ok(candidates
        .into_iter()
        .find(|k| bool::from(k.key_hash.ct_eq(&hash))))
}

/// The core's [`KeyDerivation`] port as this module derives keys: what `dispatch seed` and
/// the first start of `serve` issue keys with.
#[derive(Debug, Clone, Copy, Default)]
pub struct DerivedKeys;

impl KeyDerivation for DerivedKeys {
    fn clear_key(
        &self,
        tx: &mut dyn StoreTx,
        scope: DepotScope,
        name: &str,
    ) -> Result<String, StoreError> {
        clear_key(tx, scope, name)
    }

    fn digest(&self, clear: &str) -> [u8; 32] {
        digest(clear)
    }
}

/// Why `dispatch keys create` made no key.
#[derive(Debug, thiserror::Error)]
pub enum CreateKeyError {
    /// The depot already has a key of that name.
    #[error("depot {depot_id} already has a key named {name:?} (permission {permission}); choose another name, or revoke that key first")]
    Exists {
        /// The depot.
        depot_id: i64,
        /// The name asked for.
        name: String,
        /// The existing key's permission.
        permission: &'static str,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Creates a new key named `name` for the depot and returns it with its clear text (shown
/// once); refuses a name the depot already has a key of.
pub fn create_key(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    name: &str,
    permission: KeyPermission,
    now: Timestamp,
) -> Result<(AccessKey, String), CreateKeyError> {
    if let Some(existing) = tx.find_access_key_by_name(scope, name)? {
        return Err(CreateKeyError::Exists {
            depot_id: scope.depot_id,
            name: name.into(),
            permission: existing.permission.as_str(),
        });
    }
    let clear = clear_key(tx, scope, name)?;
    let key = tx.insert_access_key(scope, name, permission, digest(&clear), now)?;
    Ok((key, clear))
}
