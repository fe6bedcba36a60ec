//! dispatch-store-postgres: dispatch-core's [`Store`] on PostgreSQL, for running several API
//! nodes and workers on one database.
//!
//! - Versioned migrations (`migrations/NNNN_*.sql`, numbered on their own) run at open, each in
//!   its own transaction under an advisory lock, so nodes starting at once migrate once.
//! - A bounded pool of connections (r2d2) per process; each connection keeps its prepared
//!   statements.
//! - Write transactions run at READ COMMITTED behind advisory locks: a depot's writes
//!   (`run_depot_write`, almost every write) behind that depot's lock ([`DEPOT_LOCKS`]), so
//!   writers of one depot on every node are serialised as SQLite's single writer serialised
//!   them and writers of different depots run in parallel; writes of orders by number
//!   (`run_order_write`, the bulk POST /orders) hold the depot's lock shared and run side by
//!   side, ordered by the rows they lock; writes of the whole store
//!   (`run_write`) behind [`WRITE_LOCK`] held exclusively, which depot writers hold shared.
//!   Every rule that relied on the serial order (order numbers unique per depot, a route
//!   dispatched once, an order on one active route) holds across nodes. Claims of background work (`run_claim`) skip that lock
//!   and order themselves by row locks with `SKIP LOCKED` instead. Reads (`run_read`) are REPEATABLE READ READ ONLY
//!   snapshots and never wait for writers. See ARCHITECTURE.md, "PostgreSQL".
//! - A commit is acknowledged after PostgreSQL reports it durable (`synchronous_commit`, on by
//!   default).
//! - Blocking: callers on an async runtime run store calls on blocking threads.

mod catalog;
pub mod idempotency;
mod migrations;
mod pool;
pub mod rate_limits;
mod sql;
pub mod throwaway;

use std::sync::Arc;
use std::time::Instant;

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::rate_limit::SharedRateLimits;
use dispatch_core::ports::store::{Store, StoreError, StoreTx};
use dispatch_store_sql::OutboxObservers;

pub use migrations::SCHEMA_VERSION;

/// The advisory lock on the whole store (`pg_advisory_xact_lock`; the key is "dispatch" in
/// ASCII): a write of the whole store (`run_write`: organisations, depots, order statuses,
/// third parties, seeding) holds it exclusively, a depot's write (`run_depot_write`) shared,
/// beside its depot's lock ([`DEPOT_LOCKS`]).
pub const WRITE_LOCK: i64 = 0x6469_7370_6174_6368;

/// The class of the per-depot advisory locks (`pg_advisory_xact_lock(DEPOT_LOCKS, depot)`, the
/// two-key form, whose keys never meet the one-key locks above): "dpot" in ASCII.
pub const DEPOT_LOCKS: i32 = 0x6470_6f74;

/// The PostgreSQL store: a pool of connections to one database.
pub struct PostgresStore {
    pool: pool::Pool,
    /// Told after every commit of this process that appended outbox events.
    outbox_observers: OutboxObservers,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("database", &self.pool.target())
            .finish()
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, or
    /// the key-value form) and brings its schema up to date.
    pub fn open(url: &str) -> Result<PostgresStore, StoreError> {
        Self::open_with_pool_size(url, pool::DEFAULT_SIZE)
    }

    /// [`PostgresStore::open`] with at most `connections` connections in this process's pool.
    pub fn open_with_pool_size(url: &str, connections: u32) -> Result<PostgresStore, StoreError> {
        let pool = pool::Pool::new(url, connections)?;
        migrations::apply(&pool.connect_now()?)?;
        Ok(PostgresStore {
            pool,
            outbox_observers: OutboxObservers::default(),
        })
    }

    /// Whether `url` is a PostgreSQL address this store can use (without connecting).
    pub fn check_url(url: &str) -> Result<(), String> {
        pool::Pool::new(url, 1).map(drop).map_err(|e| e.to_string())
    }

    /// The database this store works on, without its password.
    pub fn target(&self) -> &str {
        self.pool.target()
    }

    /// Calls `observer` after every commit of this store that appended outbox events (never for
    /// a rolled-back one), on the committing thread. Commits of other processes (other nodes)
    /// are not seen; their readers poll.
    pub fn on_outbox_commit(&self, observer: impl Fn() + Send + Sync + 'static) {
        self.outbox_observers.add(observer);
    }

    /// The schema version after migrations (the highest applied migration).
    pub fn schema_version(&self) -> Result<u32, StoreError> {
        let conn = self.pool.get()?;
        migrations::version(&conn)
    }

    /// The schema of the database as PostgreSQL's catalog describes it, for
    /// dispatch-store-sql's `schema::differences` against the SQLite store's.
    pub fn catalog(&self) -> Result<dispatch_store_sql::schema::Catalog, StoreError> {
        let conn = self.pool.get()?;
        catalog::read(&conn)
    }

    /// How many round trips to the database this store's connections have made since it was
    /// opened (statements, preparations, COMMIT; a transaction's BEGIN goes with its first
    /// statement): what a request costs in waits on the network, for sizing nodes and for
    /// counting a change's effect.
    pub fn round_trips(&self) -> u64 {
        self.pool.round_trips()
    }

    pub(crate) fn url(&self) -> &str {
        self.pool.url()
    }

    /// One transaction of `kind` (`write`, `read`, `claim`), timed for GET /metrics as on
    /// SQLite; a write's BEGIN includes the wait for its advisory locks, timed on its own.
    fn run(
        &self,
        begin: &str,
        kind: &'static str,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let conn = self.pool.get()?;
        let started = Instant::now();
        conn.begin(begin).map_err(dispatch_store_sql::db_err)?;
        let result = work(&mut dispatch_store_sql::Db(sql::Pg(&conn)));
        let outcome = if result.is_ok() { "commit" } else { "rollback" };
        let result = match result {
            Ok(()) => conn.finish("COMMIT").map_err(dispatch_store_sql::db_err),
            Err(e) => {
                conn.finish("ROLLBACK")
                    .map_err(dispatch_store_sql::db_err)?;
                Err(e)
            }
        };
        // The BEGIN went with the work's first statement: its wait is timed from there.
        if let (Some(waited), "write") = (conn.begin_wait(), kind) {
            metrics::histogram!("dispatch_db_write_wait_seconds").record(waited.as_secs_f64());
        }
        dispatch_store_sql::record_transaction(kind, outcome, started);
        result
    }
}

/// How a write of the whole store starts: READ COMMITTED (each statement sees every commit
/// before it) behind the store's write lock, held exclusively.
pub(crate) fn begin_write() -> String {
    format!("BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock({WRITE_LOCK})")
}

/// How a write of one depot starts: READ COMMITTED, the store's write lock shared (writes of
/// the whole store wait for it, other depots' writers do not), then the depot's own lock. Depot
/// ids beyond 32 bits fold onto the same keys: two depots sharing a key only wait for each other.
/// Both locks are taken by one `SELECT`, left to right (its columns are evaluated in order):
/// one statement fewer for the server to parse, plan and answer at every write's start. The
/// keys are written into the text as literals (a simple query takes no parameters, and the
/// connection sends it with the transaction's first statement, in the same round trip): they
/// are integers formatted here, never text from a request, so nothing can be injected.
fn begin_depot_write(depot: i64) -> String {
    format!(
        "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock_shared({WRITE_LOCK}), \
         pg_advisory_xact_lock({DEPOT_LOCKS}, {})",
        depot.rem_euclid(i64::from(i32::MAX)) as i32
    )
}

/// How a write of orders by number starts ([`Store::run_order_write`]): as a depot's write,
/// with the depot's lock shared: such writers of one depot run side by side, every other
/// writer of the depot (which holds it exclusively) waits for them and they for it.
fn begin_order_write(depot: i64) -> String {
    format!(
        "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock_shared({WRITE_LOCK}), \
         pg_advisory_xact_lock_shared({DEPOT_LOCKS}, {})",
        depot.rem_euclid(i64::from(i32::MAX)) as i32
    )
}

impl Store for PostgresStore {
    /// One statement needs no transaction: it runs on its own (one round trip, where BEGIN,
    /// the statement and COMMIT are three) and sees one consistent state.
    fn run_single_read(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let conn = self.pool.get()?;
        let started = Instant::now();
        let result = conn.single_statement(|| work(&mut dispatch_store_sql::Db(sql::Pg(&conn))));
        let outcome = if result.is_ok() { "commit" } else { "rollback" };
        dispatch_store_sql::record_transaction("read", outcome, started);
        result
    }

    fn run_write(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.outbox_observers
            .write(|| self.run(&begin_write(), "write", work))
    }

    /// Behind the depot's lock and the store's write lock shared: writers of different depots
    /// run in parallel on every node.
    fn run_depot_write(
        &self,
        depot: DepotScope,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.outbox_observers
            .write(|| self.run(&begin_depot_write(depot.depot_id), "write", work))
    }

    /// Beside the depot's other writes of orders by number: the orders a writer finds are
    /// locked (`FOR UPDATE`, `repo/order_lookup.rs`), a number two writers insert is refused
    /// to the second by the unique index, a deadlock is broken by PostgreSQL; both fail with
    /// a conflict the caller runs again.
    fn run_order_write(
        &self,
        depot: DepotScope,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.outbox_observers
            .write(|| self.run(&begin_order_write(depot.depot_id), "write", work))
    }

    fn order_writes_side_by_side(&self) -> bool {
        true
    }

    fn run_read(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.run(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            "read",
            work,
        )
    }

    /// Claims and leases run at READ COMMITTED without the write lock: they order themselves
    /// by row locks (`FOR UPDATE [SKIP LOCKED]`, see dispatch-store-sql's `repo/leases.rs`),
    /// so claimers on every node never queue behind the API's writers, nor behind each other
    /// for different jobs.
    fn run_claim(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.run("BEGIN ISOLATION LEVEL READ COMMITTED", "claim", work)
    }

    /// Every node on this database counts in the same windows.
    fn shared_rate_limits(&self) -> Option<Arc<dyn SharedRateLimits>> {
        Some(Arc::new(rate_limits::PostgresRateLimits {
            pool: self.pool.clone(),
        }))
    }
}
