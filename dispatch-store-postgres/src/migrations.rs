//! Versioned schema migrations, numbered on their own (not SQLite's): migration `n` (1-based)
//! is recorded in `dispatch_schema_migrations` in the transaction that applies it. Later work
//! appends files here; applied files never change. Where both stores can apply one file, it
//! lives in dispatch-store-sql's `migrations`; dispatch-store-sql's `schema` check (run by this
//! crate's tests) keeps both stores' schemas the same.

use dispatch_core::ports::store::StoreError;

use dispatch_store_sql::migrations;
use dispatch_store_sql::sql::{params, Connection as _};
use dispatch_store_sql::{db_err, Sql};

use crate::sql::{Connection, Pg};

/// The migrations, in order.
const MIGRATIONS: &[&str] = &[
    include_str!("../migrations/0001_init.sql"),
    migrations::ACCESS_KEY_REVOCATIONS,
    include_str!("../migrations/0003_pgshared.sql"),
    migrations::NODE_LEASES,
    migrations::NOTIFICATION_LEASES,
    include_str!("../migrations/0006_active_route_orders.sql"),
    include_str!("../migrations/0007_promises_and_travel.sql"),
    include_str!("../migrations/0008_geocode_cache.sql"),
    migrations::ROUTE_BREAKS,
];

/// The schema version of a database this program has fully migrated.
pub const SCHEMA_VERSION: u32 = MIGRATIONS.len() as u32;

/// Serialises migrating processes (nodes starting at once): "dispatch" + 1.
const MIGRATION_LOCK: i64 = crate::WRITE_LOCK + 1;

/// Applies every migration the database has not seen yet, each in its own transaction under
/// [`MIGRATION_LOCK`]; the version is re-read under the lock, so concurrent starts apply each
/// migration once.
pub fn apply(conn: &Connection) -> Result<(), StoreError> {
    // Created under the lock too: two sessions running `CREATE TABLE IF NOT EXISTS` at once can
    // both pass the check, and the loser fails on the catalog (a duplicate type).
    let created = conn.execute_batch(&format!(
        "BEGIN; SELECT pg_advisory_xact_lock({MIGRATION_LOCK});
         CREATE TABLE IF NOT EXISTS dispatch_schema_migrations (
             version BIGINT PRIMARY KEY,
             applied TIMESTAMPTZ NOT NULL DEFAULT now()
         );
         COMMIT"
    ));
    if created.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    created.st()?;
    for (index, sql) in MIGRATIONS.iter().enumerate() {
        let target = index as u32 + 1;
        conn.begin(&format!(
            "BEGIN; SELECT pg_advisory_xact_lock({MIGRATION_LOCK})"
        ))
        .st()?;
        let applied = (|| {
            if version(conn)? >= target {
                return Ok(());
            }
            conn.execute_batch(sql).st()?;
            Pg(conn)
                .execute(
                    "INSERT INTO dispatch_schema_migrations (version) VALUES (?1)",
                    params![target],
                )
                .st()?;
            Ok(())
        })();
        match applied {
            Ok(()) => conn.finish("COMMIT").map_err(db_err)?,
            Err(e) => {
                let _ = conn.finish("ROLLBACK");
                return Err(e);
            }
        }
    }
    let version = version(conn)?;
    if version as usize > MIGRATIONS.len() {
        return Err(StoreError::Backend(format!(
            "database schema version {version} is newer than this program ({})",
            MIGRATIONS.len()
        )));
    }
    Ok(())
}

/// The highest applied migration.
pub fn version(conn: &Connection) -> Result<u32, StoreError> {
    Pg(conn)
        .query_row(
            "SELECT coalesce(max(version), 0) FROM dispatch_schema_migrations",
            params![],
            |r| r.get(0),
        )
        .st()
}
