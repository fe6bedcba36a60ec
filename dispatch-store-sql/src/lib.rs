//! dispatch-store-sql: the repository layer of dispatch's SQL stores, written once.
//!
//! Every repository trait of `dispatch-core`'s store port is implemented here on [`Db`], generic
//! over [`sql::Connection`]: a small rusqlite-shaped interface (prepare, execute, query a row,
//! map rows; typed parameters and columns through [`sql::Val`]). `dispatch-store-sqlite`
//! implements it over rusqlite and `dispatch-store-postgres` over the postgres client; each
//! store crate keeps only what is really its own: connections and their pool, migrations,
//! transactions (isolation, locks), and where idempotency claims run. [`idempotency`] holds the
//! claim statements and [`OutboxObservers`] the commit notifications both stores use;
//! [`migrations`] the migration files both apply, and [`schema`] the check that both stores'
//! migrations describe the same schema.
//!
//! The SQL is SQLite's, with `?N` placeholders. Where PostgreSQL needs another spelling
//! (`RETURNING` aside, which both accept: upserts that SQLite writes `INSERT OR ...`, boolean
//! literals, casts of untyped parameters, string aggregation, sequences, row locks), the
//! statement is chosen by [`sql::Connection::DIALECT`] at the point of use.

pub mod idempotency;
pub mod migrations;
mod observers;
pub mod repo;
pub mod schema;
pub mod sql;

pub use observers::OutboxObservers;
pub use repo::{db_err, prepare_new_orders, Db, Sql};

/// Records for GET /metrics how long a transaction waited, from `started`, for its connection:
/// an idle one of the pool, one newly opened, or (PostgreSQL, every connection busy) the next
/// one handed back.
pub fn record_connection_wait(started: std::time::Instant) {
    metrics::histogram!("dispatch_db_connection_wait_seconds")
        .record(started.elapsed().as_secs_f64());
}

/// Records one transaction of `kind` (`read`, `write`, `claim`) that began at `started` and
/// ended with `outcome` (`commit` or `rollback`) for GET /metrics, the same on every SQL store.
pub fn record_transaction(kind: &'static str, outcome: &'static str, started: std::time::Instant) {
    metrics::histogram!(
        "dispatch_db_transaction_duration_seconds",
        "kind" => kind,
        "outcome" => outcome,
    )
    .record(started.elapsed().as_secs_f64());
}
