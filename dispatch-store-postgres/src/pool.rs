//! The connection pool: r2d2 over [`Connection`]s that keep their prepared statements.

use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::store::StoreError;

use crate::sql::Connection;

/// Connections per process unless the caller asks otherwise. Store calls run on blocking
/// threads; more callers than connections queue for one (up to [`CHECKOUT_TIMEOUT`]).
pub const DEFAULT_SIZE: u32 = 16;

/// Connections of an idempotency store (claims are short transactions).
pub const CLAIM_POOL_SIZE: u32 = 4;

/// How long a caller waits for a free connection.
const CHECKOUT_TIMEOUT: Duration = Duration::from_secs(30);

/// Session settings of every connection. `lock_timeout` bounds the wait for the write lock
/// (SQLite's busy timeout was 10 s; a writer queue on several nodes gets longer).
const SESSION: &str = "SET lock_timeout = '30s'; SET TIME ZONE 'UTC'";

/// Opens [`Connection`]s to one database.
#[derive(Debug)]
pub struct Manager {
    config: tokio_postgres::Config,
    round_trips: Arc<AtomicU64>,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Connection;
    type Error = tokio_postgres::Error;

    fn connect(&self) -> Result<Connection, tokio_postgres::Error> {
        metrics::counter!("dispatch_db_connections_opened_total").increment(1);
        Connection::connect(&self.config, SESSION, self.round_trips.clone())
    }

    fn is_valid(&self, conn: &mut Connection) -> Result<(), tokio_postgres::Error> {
        conn.ping()
    }

    fn has_broken(&self, conn: &mut Connection) -> bool {
        conn.is_broken()
    }
}

/// The pool of one store (clones share it).
#[derive(Clone)]
pub struct Pool {
    inner: r2d2::Pool<Manager>,
    config: tokio_postgres::Config,
    round_trips: Arc<AtomicU64>,
    url: String,
    target: String,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.target)
    }
}

impl Pool {
    /// A pool of at most `size` connections to `url`; none is opened yet.
    pub fn new(url: &str, size: u32) -> Result<Pool, StoreError> {
        let mut config = tokio_postgres::Config::from_str(url)
            .map_err(|e| StoreError::Backend(format!("invalid PostgreSQL address: {e}")))?;
        if config.get_application_name().is_none() {
            config.application_name("dispatch");
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(Duration::from_secs(10));
        }
        let target = describe(&config);
        let round_trips = Arc::new(AtomicU64::new(0));
        let inner = r2d2::Pool::builder()
            .max_size(size.max(1))
            .min_idle(Some(0))
            .connection_timeout(CHECKOUT_TIMEOUT)
            .test_on_check_out(false)
            .build_unchecked(Manager {
                config: config.clone(),
                round_trips: round_trips.clone(),
            });
        Ok(Pool {
            inner,
            config,
            round_trips,
            url: url.to_owned(),
            target,
        })
    }

    /// A connection, waiting for one to be free (the wait timed for GET /metrics).
    pub fn get(&self) -> Result<r2d2::PooledConnection<Manager>, StoreError> {
        let waiting = std::time::Instant::now();
        let conn = self
            .inner
            .get()
            .map_err(|e| StoreError::Backend(format!("PostgreSQL at {}: {e}", self.target)))?;
        dispatch_store_sql::record_connection_wait(waiting);
        Ok(conn)
    }

    /// One connection opened at once, outside the pool. Opening a store goes through it: a
    /// pool hides why it cannot connect (it retries until its checkout timeout, then reports
    /// "timed out waiting for connection: db error"), while a refused connection, a database
    /// that does not exist or a rejected password are errors that waiting will not cure.
    pub fn connect_now(&self) -> Result<Connection, StoreError> {
        let manager = Manager {
            config: self.config.clone(),
            round_trips: self.round_trips.clone(),
        };
        r2d2::ManageConnection::connect(&manager).map_err(|e| {
            StoreError::Backend(format!("PostgreSQL at {}: {}", self.target, reason(&e)))
        })
    }

    /// The round trips to the server the pool's connections made so far (each statement, each
    /// preparation, each batch of statements without parameters such as a BEGIN with its lock).
    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::Relaxed)
    }

    /// The address the pool was made from (with its password: never log it).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `user@host:port/database`, never the password.
    pub fn target(&self) -> &str {
        &self.target
    }
}

/// The server's own message for a database error (`tokio_postgres::Error` displays only "db
/// error"), else the error and its cause ("error connecting to server: Connection refused").
fn reason(e: &tokio_postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

fn describe(config: &tokio_postgres::Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    format!(
        "{}@{host}:{port}/{}",
        config.get_user().unwrap_or(""),
        config.get_dbname().unwrap_or("")
    )
}
