//! The access-key port: the clear text and digest of a depot's keys.
//!
//! Keys are derived from a random secret of the installation with a cryptographic hash, so a
//! re-run of a seed file prints the same keys without any key being stored in clear. The core
//! holds neither the hash nor the random source; the HTTP adapter implements this port.

use crate::model::organisation::DepotScope;
use crate::ports::store::{StoreError, StoreTx};

/// Derives access keys and the digests the store keeps of them.
pub trait KeyDerivation: Send + Sync {
    /// The clear text of the depot's key named `name` in its current generation (a revoked
    /// name gets a new one), read inside the caller's transaction.
    fn clear_key(
        &self,
        tx: &mut dyn StoreTx,
        scope: DepotScope,
        name: &str,
    ) -> Result<String, StoreError>;

    /// The digest stored for a key's clear text (and looked up when a key is presented).
    fn digest(&self, clear: &str) -> [u8; 32];
}
