//! The driver side: credentials that identify one vehicle, and who a driver request acts for.

use crate::model::organisation::DepotScope;
use crate::time::Timestamp;

/// A driver credential as stored: never the credential itself, only its SHA-256 digest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverCredential {
    /// Identifier.
    pub id: i64,
    /// The depot of the vehicle.
    pub depot_id: i64,
    /// That depot's organisation.
    pub organisation_id: i64,
    /// The vehicle the credential drives.
    pub vehicle_id: i64,
    /// A label for people (for example the driver's name or the device).
    pub name: String,
    /// SHA-256 digest of the credential.
    pub key_hash: [u8; 32],
    /// Creation instant.
    pub created: Timestamp,
    /// When it was revoked; a revoked credential is refused.
    pub revoked: Option<Timestamp>,
}

impl DriverCredential {
    /// The credential `id` just issued to `vehicle_id` of `scope`'s depot: not revoked.
    pub fn issued(
        id: i64,
        scope: DepotScope,
        vehicle_id: i64,
        name: &str,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> DriverCredential {
        DriverCredential {
            id,
            depot_id: scope.depot_id,
            organisation_id: scope.organisation_id,
            vehicle_id,
            name: name.to_owned(),
            key_hash,
            created: now,
            revoked: None,
        }
    }

    /// Who requests made with this credential act for.
    pub fn driver(&self) -> Driver {
        Driver {
            scope: DepotScope {
                organisation_id: self.organisation_id,
                depot_id: self.depot_id,
            },
            vehicle_id: self.vehicle_id,
            credential_id: self.id,
        }
    }
}

/// The caller of a driver endpoint: one vehicle of one depot. It reaches only that vehicle's
/// dispatched routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Driver {
    /// The depot.
    pub scope: DepotScope,
    /// The vehicle.
    pub vehicle_id: i64,
    /// The credential used.
    pub credential_id: i64,
}
