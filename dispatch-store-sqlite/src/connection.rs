//! Opening one connection with the durability and concurrency settings every connection needs.

use std::path::Path;
use std::time::Duration;

use dispatch_core::ports::store::StoreError;
use rusqlite::Connection;

use crate::sql::db_err;

/// How long a connection waits for another writer before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Prepared statements kept per connection.
const STATEMENT_CACHE: usize = 128;

/// Opens `path` with WAL, `synchronous=FULL`, foreign keys, statement journals in memory,
/// the busy timeout and a statement cache the size of a request's statements.
pub fn open(path: &Path) -> Result<Connection, StoreError> {
    let conn = Connection::open(path).map_err(db_err)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(db_err)?;
    let mode: String = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .map_err(db_err)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(StoreError::Backend(format!(
            "journal mode {mode}, WAL required"
        )));
    }
    // Statement journals (the undo log of one statement inside a transaction, which crash
    // recovery never reads: the WAL is what makes commits durable) stay in memory. Spilled to
    // a temporary file past 64 KiB, every later statement of the transaction wrote its pages
    // there, a write system call each: ten times the WAL's own writes on order ingest.
    conn.execute_batch(
        "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY;",
    )
    .map_err(db_err)?;
    // One write request runs a few dozen distinct statements (the multi-row ones once per row
    // count): rusqlite's default cache of 16 would evict and prepare them again every request.
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    Ok(conn)
}
