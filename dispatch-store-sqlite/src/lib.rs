//! dispatch-store-sqlite: the embedded default [`Store`] on SQLite (rusqlite, bundled).
//!
//! - One database file; versioned migrations (`migrations/NNNN_*.sql`) run at open, each in its
//!   own transaction, tracked by `PRAGMA user_version`.
//! - WAL journal, `synchronous=FULL` (a commit is on disk before it is acknowledged), foreign
//!   keys on, a busy timeout so several processes (`serve` and `seed`) can share the file.
//! - Write transactions start with `BEGIN IMMEDIATE` (no failing lock upgrades) and are
//!   serialised in-process by a mutex; other processes are waited for by the busy timeout.
//!   Owned writes (a batch of new orders) run on the store's writer thread (`writer.rs`).
//!   Reads run in deferred snapshots in parallel.
//! - Blocking: callers on an async runtime run store calls on blocking threads.

pub mod backup;
mod catalog;
mod connection;
mod gate;
mod gazetteer;
pub mod idempotency;
mod migrations;
mod sql;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use dispatch_core::model::order::Order;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{OwnedWrite, PreparedOrders, Store, StoreError, StoreTx};
use dispatch_store_sql::OutboxObservers;
use rusqlite::Connection;

pub use gazetteer::SqliteGazetteer;
pub use migrations::SCHEMA_VERSION;

/// Most idle connections kept for reuse.
const MAX_IDLE_CONNECTIONS: usize = 8;

/// Writers take the lock at once and queue on the busy timeout instead of failing on upgrades.
const BEGIN_WRITE: &str = "BEGIN IMMEDIATE";
/// Readers share a snapshot (WAL).
const BEGIN_READ: &str = "BEGIN DEFERRED";

/// The SQLite store: a small pool of connections to one database file, and a writer thread.
pub struct SqliteStore {
    pool: Arc<Pool>,
    writer: writer::Writer,
}

/// What the store's callers and its writer thread share.
struct Pool {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    /// Held for the length of every write transaction (`gate.rs`).
    write_gate: gate::Gate,
    /// Told after every commit of this process that appended outbox events.
    outbox_observers: OutboxObservers,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.pool.path)
            .finish()
    }
}

impl SqliteStore {
    /// Opens (creating if missing) the database at `path` and brings its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<SqliteStore, StoreError> {
        let path = path.as_ref().to_path_buf();
        // Counted like every later one (as the PostgreSQL pool counts its first connections).
        metrics::counter!("dispatch_db_connections_opened_total").increment(1);
        let mut conn = connection::open(&path)?;
        migrations::apply(&mut conn)?;
        let pool = Arc::new(Pool {
            path,
            idle: Mutex::new(vec![conn]),
            write_gate: gate::Gate::default(),
            outbox_observers: OutboxObservers::default(),
        });
        Ok(SqliteStore {
            writer: writer::Writer::start(pool.clone())?,
            pool,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.pool.path
    }

    /// Calls `observer` after every commit of this store that appended outbox events (never for
    /// a rolled-back one), on the committing thread: how the webhook worker of `serve` hears of
    /// new events at once. Commits of other processes are not seen; their reader has to poll.
    /// For owned writes the committing thread is the writer thread, which holds the write lock
    /// meanwhile: an observer signals, it never writes to the store.
    pub fn on_outbox_commit(&self, observer: impl Fn() + Send + Sync + 'static) {
        self.pool.outbox_observers.add(observer);
    }

    /// The schema version after migrations (the number of applied migrations).
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        self.pool.with_connection(|c| {
            c.query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(sql::db_err)
        })
    }

    /// The schema of the database as SQLite's catalog describes it, for dispatch-store-sql's
    /// `schema::differences` against the PostgreSQL store's.
    pub fn catalog(&self) -> Result<dispatch_store_sql::schema::Catalog, StoreError> {
        self.pool.with_connection(|c| catalog::read(c))
    }
}

impl Pool {
    fn with_connection<R>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<R, StoreError>,
    ) -> Result<R, StoreError> {
        let waiting = Instant::now();
        let pooled = self.idle.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => {
                metrics::counter!("dispatch_db_connections_opened_total").increment(1);
                connection::open(&self.path)?
            }
        };
        dispatch_store_sql::record_connection_wait(waiting);
        let result = f(&mut conn);
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE_CONNECTIONS && conn.is_autocommit() {
            idle.push(conn);
        }
        result
    }

    fn run(
        &self,
        begin: &str,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.with_connection(|conn| run_on(conn, begin, work))
    }

    /// Runs a write transaction on `conn` (the writer thread's own connection, opened when it has
    /// none) with the write gate held by the caller (the writer thread), and
    /// tells the outbox observers of its events (with the gate still held: an observer signals,
    /// it does not write).
    fn write_locked(
        &self,
        conn: &mut Option<Connection>,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.outbox_observers.write(|| {
            if conn.is_none() {
                metrics::counter!("dispatch_db_connections_opened_total").increment(1);
                *conn = Some(connection::open(&self.path)?);
            }
            run_on(conn.as_mut().expect("opened above"), BEGIN_WRITE, work)
        })
    }
}

/// Runs one transaction on `conn`: `begin`, `work`, then `COMMIT` (or `ROLLBACK` on any error).
fn run_on(
    conn: &mut Connection,
    begin: &str,
    work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let started = Instant::now();
    control(conn, begin)?;
    let result = work(&mut dispatch_store_sql::Db(sql::Sqlite(conn)));
    let kind = if begin == BEGIN_WRITE {
        "write"
    } else {
        "read"
    };
    let outcome = if result.is_ok() { "commit" } else { "rollback" };
    let result = match result {
        Ok(()) => match control(conn, "COMMIT") {
            Ok(()) => Ok(()),
            Err(e) => {
                let _ = control(conn, "ROLLBACK");
                Err(e)
            }
        },
        Err(e) => {
            control(conn, "ROLLBACK")?;
            Err(e)
        }
    };
    dispatch_store_sql::record_transaction(kind, outcome, started);
    result
}

/// Runs a transaction control statement (`BEGIN ...`, `COMMIT`, `ROLLBACK`) from the
/// connection's statement cache: prepared once, not parsed again for every transaction.
fn control(conn: &Connection, statement: &str) -> Result<(), StoreError> {
    conn.prepare_cached(statement)
        .and_then(|mut st| st.execute([]))
        .map(drop)
        .map_err(sql::db_err)
}

impl Store for SqliteStore {
    fn run_write(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.pool.outbox_observers.write(|| {
            let waiting = Instant::now();
            let _gate = self.pool.write_gate.lock();
            metrics::histogram!("dispatch_db_write_wait_seconds")
                .record(waiting.elapsed().as_secs_f64());
            self.pool.run(BEGIN_WRITE, work)
        })
    }

    /// On the writer thread (`writer.rs`), which every depot's owned writes share: SQLite has
    /// one writer at a time whatever the depot.
    fn run_owned_write(&self, depot: DepotScope, work: OwnedWrite) -> Result<(), StoreError> {
        let _ = depot;
        self.writer.run(work)
    }

    /// Owned writes run on the writer thread.
    fn writes_on_own_thread(&self) -> bool {
        true
    }

    fn run_read(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.pool.run(BEGIN_READ, work)
    }

    /// Writers run one at a time: a batch's rows are encoded before its transaction.
    fn prepare_new_orders(&self, depot: DepotScope, orders: Vec<Order>) -> PreparedOrders {
        dispatch_store_sql::prepare_new_orders(depot, orders)
    }

    /// A read takes an idle connection of this process and reads pages of a local file; in WAL
    /// mode it never waits for a writer.
    fn reads_in_place(&self) -> bool {
        true
    }
}
