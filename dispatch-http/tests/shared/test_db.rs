//! Which database a test runs on. By default each test database is a SQLite file at the path
//! the test chose; with `DISPATCH_TEST_DB=postgres` it is a fresh database of one throwaway
//! PostgreSQL cluster per test process (`dispatch_store_postgres::throwaway`), so the same
//! tests drive the PostgreSQL store. A test keeps naming its databases by path: the same path
//! always means the same database, which is what restarts and a `seed` before `serve` rely on.
//!
//! Shared by dispatch-http's test harnesses and the workspace's binary tests (`#[path]`).

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use dispatch_core::ports::store::Store;
use dispatch_server::cli::database::{Database, Service};

/// The variable that selects the store under test: `sqlite` (the default) or `postgres`.
pub const VARIABLE: &str = "DISPATCH_TEST_DB";

/// True when this test process runs on PostgreSQL.
pub fn on_postgres() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| match std::env::var(VARIABLE).as_deref() {
        Err(_) | Ok("") | Ok("sqlite") => false,
        Ok("postgres") => true,
        Ok(other) => panic!("{VARIABLE}={other}: expected sqlite or postgres"),
    })
}

/// The `--db` value for the database a test calls `path`: the path itself on SQLite, the
/// address of a database created for it on PostgreSQL (a `postgres://` address stays as it is).
pub fn db_arg(path: &Path) -> String {
    let given = path.to_str().expect("UTF-8 temp path");
    // A test that made its own PostgreSQL database passes its address as it is.
    if !on_postgres() || given.starts_with("postgres://") {
        return given.to_owned();
    }
    static BY_PATH: OnceLock<Mutex<HashMap<PathBuf, String>>> = OnceLock::new();
    let mut known = BY_PATH
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    known
        .entry(path.to_owned())
        .or_insert_with(|| {
            off_runtime(|| {
                let cluster = dispatch_store_postgres::throwaway::Cluster::shared()
                    .unwrap_or_else(|e| panic!("{VARIABLE}=postgres: {e}"));
                cluster
                    .create_database()
                    .unwrap_or_else(|e| panic!("a test database: {e}"))
            })
        })
        .clone()
}

/// The [`Database`] a test calls `path`.
pub fn database(path: &Path) -> Database {
    Database::parse(&db_arg(path)).expect("a test database address")
}

/// The store of the database a test calls `path` (schema migrated).
pub fn open_store(path: &Path) -> Arc<dyn Store> {
    let db = database(path);
    off_runtime(move || db.open()).expect("open the test store")
}

/// Everything `serve` opens on the database a test calls `path`.
pub fn open_service(path: &Path, on_outbox: Arc<dyn Fn() + Send + Sync>) -> Service {
    let db = database(path);
    off_runtime(move || db.open_service(on_outbox)).expect("open the test service")
}

/// Runs `work` on a thread of its own and waits for it. PostgreSQL's synchronous client
/// refuses to block a thread that drives an async runtime, which is what a `#[tokio::test]`
/// body is; the service itself calls its store from blocking threads for the same reason.
pub fn off_runtime<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    std::thread::scope(|s| match s.spawn(work).join() {
        Ok(r) => r,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}
