//! Repository implementations, one file per aggregate, all on [`Db`]: a connection inside an
//! open transaction.

mod customers;
mod driver;
mod idempotency;
mod notifications;
mod order_codec;
mod order_rows;
mod orders;
mod organisation;
pub(crate) mod outbox;
mod plans;
mod pod;
mod questionnaires;
mod reference;
mod route_log;
mod routes;
mod vehicle;

use crate::sql::Connection;
use dispatch_core::ports::store::StoreError;
use dispatch_core::time::{TimeOfDay, Timestamp};

/// A connection with an open transaction; the repository traits are implemented on it.
pub struct Db<'c>(pub &'c Connection);

/// Maps an error: integrity constraint violations (SQLSTATE class 23) are conflicts, the rest
/// backend failures.
pub fn db_err(e: crate::sql::Error) -> StoreError {
    let constraint = match &e {
        crate::sql::Error::Db(db) => db.code().is_some_and(|c| c.code().starts_with("23")),
        _ => false,
    };
    if constraint {
        StoreError::Conflict(e.to_string())
    } else {
        StoreError::Backend(e.to_string())
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
