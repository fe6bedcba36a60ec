//! Versioned schema migrations: migration `n` (1-based) brings `user_version` from `n - 1` to
//! `n`, in one transaction. Later work appends files here; applied files never change. Where
//! both stores can apply one file, it lives in dispatch-store-sql's `migrations`.

use dispatch_core::ports::store::StoreError;
use dispatch_store_sql::migrations;
use rusqlite::Connection;

use crate::sql::db_err;

/// The migrations, in order.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_init.sql"),
    include_str!("../migrations/0002_customers_orders.sql"),
    include_str!("../migrations/0003_hardening.sql"),
    include_str!("../migrations/0004_plans.sql"),
    include_str!("../migrations/0005_events_out.sql"),
    include_str!("../migrations/0006_route_log.sql"),
    include_str!("../migrations/0007_driver.sql"),
    include_str!("../migrations/0008_hardening_attachment_names.sql"),
    include_str!("../migrations/0009_pod.sql"),
    include_str!("../migrations/0010_events2.sql"),
    migrations::ACCESS_KEY_REVOCATIONS,
    migrations::NODE_LEASES,
    migrations::NOTIFICATION_LEASES,
    include_str!("../migrations/0014_vehicle_ids.sql"),
    include_str!("../migrations/0015_line_item_and_key_ids.sql"),
    include_str!("../migrations/0016_active_route_orders.sql"),
    include_str!("../migrations/0017_promises_and_travel.sql"),
    include_str!("../migrations/0018_geocode_cache.sql"),
    migrations::ROUTE_BREAKS,
];

/// The schema version of a database this program has fully migrated.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Applies every migration the database has not seen yet. Safe when several processes open the
/// same file at once: the version is re-read inside the write transaction.
pub fn apply(conn: &mut Connection) -> Result<(), StoreError> {
    for (index, sql) in MIGRATIONS.iter().enumerate() {
        let target = index as u32 + 1;
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(db_err)?;
        let version: u32 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(db_err)?;
        if version >= target {
            continue;
        }
        tx.execute_batch(sql).map_err(db_err)?;
        tx.execute_batch(&format!("PRAGMA user_version = {target}"))
            .map_err(db_err)?;
        tx.commit().map_err(db_err)?;
    }
    let version: u32 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db_err)?;
    if version as usize > MIGRATIONS.len() {
        return Err(StoreError::Backend(format!(
            "database schema version {version} is newer than this program ({})",
            MIGRATIONS.len()
        )));
    }
    Ok(())
}
