//! Repository implementations, one file per aggregate, all on [`Db`]: a connection inside an
//! open transaction, of either store.

mod batch_sql;
mod customers;
mod driver;
mod leases;
mod line_items;
mod new_orders;
mod notifications;
mod optimisations;
mod order_batch_start;
mod order_codec;
mod order_inserts;
mod order_lookup;
mod order_rows;
mod order_updates;
mod orders;
mod organisation;
pub mod outbox;
mod plans;
mod pod;
mod questionnaires;
mod reference;
mod route_log;
mod route_stops;
mod routes;
mod vehicle;

pub use new_orders::prepare_new_orders;

use crate::sql::Connection;
use dispatch_core::ports::store::StoreError;
use dispatch_core::time::{TimeOfDay, Timestamp};

/// Ids per `IN (...)` list, well under SQLite's bound on bound parameters (32 766; 999 before
/// 3.32) and PostgreSQL's (65 535).
pub(crate) const IN_CHUNK: usize = 500;

/// A connection with an open transaction; the repository traits are implemented on it, and
/// with every one of them it is the store's `StoreTx`.
pub struct Db<C: Connection>(pub C);

/// Maps an error: integrity constraint violations are conflicts, the rest backend failures.
pub fn db_err(e: crate::sql::Error) -> StoreError {
    match e {
        crate::sql::Error::Constraint(_) => StoreError::Conflict(e.to_string()),
        e => StoreError::Backend(e.to_string()),
    }
}

/// `?`-friendly conversion of [`crate::sql`] results.
pub trait Sql<T> {
    /// The result with the error mapped by [`db_err`].
    fn st(self) -> Result<T, StoreError>;
}

impl<T> Sql<T> for Result<T, crate::sql::Error> {
    fn st(self) -> Result<T, StoreError> {
        self.map_err(db_err)
    }
}

/// A row count as a SQL `LIMIT` (`usize::MAX` and other counts past `i64::MAX` mean no limit).
pub fn limit(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// A stored millisecond timestamp.
pub fn ts(millis: i64) -> Timestamp {
    Timestamp::from_millis(millis)
}

/// A stored time of day (minutes after midnight), `None` when null or out of range.
pub fn tod(minutes: Option<i64>) -> Option<TimeOfDay> {
    minutes
        .and_then(|m| u32::try_from(m).ok())
        .and_then(TimeOfDay::from_minutes)
}
