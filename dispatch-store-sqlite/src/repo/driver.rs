//! Driver credentials and the driver's lookups (migration 0007).

use dispatch_core::model::driver::DriverCredential;
use dispatch_core::model::organisation::{key_lookup, DepotScope};
use dispatch_core::ports::store::{DriverRepo, StoreError};
use dispatch_core::time::Timestamp;
use rusqlite::{params, OptionalExtension, Row};

use super::{ts, Db, Sql};

const CREDENTIAL_COLUMNS: &str = "c.id, c.depot_id, d.organisation_id, c.vehicle_id, c.name, \
     c.key_hash, c.created, c.revoked";

fn credential(r: &Row<'_>) -> rusqlite::Result<DriverCredential> {
    let hash: Vec<u8> = r.get(5)?;
    Ok(DriverCredential {
        id: r.get(0)?,
        depot_id: r.get(1)?,
        organisation_id: r.get(2)?,
        vehicle_id: r.get(3)?,
        name: r.get(4)?,
        // The column is CHECKed to 32 bytes; a zero digest matches no presented credential.
        key_hash: hash.try_into().unwrap_or([0; 32]),
        created: ts(r.get(6)?),
        revoked: r.get::<_, Option<i64>>(7)?.map(ts),
    })
}

impl Db<'_> {
    fn credentials_where(
        &self,
        clause: &str,
        values: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<DriverCredential>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {CREDENTIAL_COLUMNS} FROM driver_credentials c \
                 JOIN depots d ON d.id = c.depot_id WHERE {clause} ORDER BY c.id"
            ))
            .st()?;
        let rows = stmt.query_map(values, credential).st()?;
        rows.collect::<Result<_, _>>().st()
    }
}

impl DriverRepo for Db<'_> {
    fn insert_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        name: &str,
        key_hash: [u8; 32],
        now: Timestamp,
    ) -> Result<DriverCredential, StoreError> {
        self.0
            .prepare_cached(
                "INSERT INTO driver_credentials (depot_id, vehicle_id, name, key_lookup, key_hash, created) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )
            .st()?
            .execute(params![
                scope.depot_id,
                vehicle_id,
                name,
                key_lookup(&key_hash),
                &key_hash[..],
                now.millis()
            ])
            .st()?;
        Ok(DriverCredential {
            id: self.0.last_insert_rowid(),
            depot_id: scope.depot_id,
            organisation_id: scope.organisation_id,
            vehicle_id,
            name: name.to_owned(),
            key_hash,
            created: now,
            revoked: None,
        })
    }

    fn driver_credentials_by_lookup(
        &mut self,
        lookup: i64,
    ) -> Result<Vec<DriverCredential>, StoreError> {
        self.credentials_where("c.key_lookup = ?1", &[&lookup])
    }

    fn list_driver_credentials(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
    ) -> Result<Vec<DriverCredential>, StoreError> {
        self.credentials_where(
            "c.depot_id = ?1 AND d.organisation_id = ?2 AND c.vehicle_id = ?3",
            &[&scope.depot_id, &scope.organisation_id, &vehicle_id],
        )
    }

    fn revoke_driver_credential(
        &mut self,
        scope: DepotScope,
        vehicle_id: i64,
        id: i64,
        now: Timestamp,
    ) -> Result<Option<DriverCredential>, StoreError> {
        self.0
            .prepare_cached(
                "UPDATE driver_credentials SET revoked = coalesce(revoked, ?4) \
                 WHERE depot_id = ?1 AND vehicle_id = ?2 AND id = ?3",
            )
            .st()?
            .execute(params![scope.depot_id, vehicle_id, id, now.millis()])
            .st()?;
        Ok(self
            .credentials_where(
                "c.depot_id = ?1 AND d.organisation_id = ?2 AND c.vehicle_id = ?3 AND c.id = ?4",
                &[&scope.depot_id, &scope.organisation_id, &vehicle_id, &id],
            )?
            .pop())
    }

    fn route_of_stop(
        &mut self,
        scope: DepotScope,
        stop_id: i64,
    ) -> Result<Option<i64>, StoreError> {
        self.0
            .prepare_cached("SELECT route_id FROM stops WHERE depot_id = ?1 AND id = ?2")
            .st()?
            .query_row(params![scope.depot_id, stop_id], |r| r.get(0))
            .optional()
            .st()
    }
}
