//! The repositories this store still implements itself (leases and notification tasks, until
//! their rework lands; see `dispatch_store_sql::OwnRepos`). Every other repository is
//! dispatch-store-sql's, on [`crate::sql::Sqlite`].

mod leases;
mod notifications;

use dispatch_core::paging::PageRequest;
use rusqlite::Connection;

use crate::sql::Sqlite;

pub use dispatch_store_sql::repo::ts;

/// A connection with an open transaction. It dereferences to the shared repositories, which
/// these two files call for jobs (`get_optimisation`, ...).
pub struct Db<'c>(pub &'c Connection, dispatch_store_sql::Db<Sqlite<'c>>);

impl<'c> Db<'c> {
    /// The repositories on `conn`.
    pub fn new(conn: &'c Connection) -> Self {
        Db(conn, dispatch_store_sql::Db(Sqlite(conn)))
    }
}

impl<'c> std::ops::Deref for Db<'c> {
    type Target = dispatch_store_sql::Db<Sqlite<'c>>;

    fn deref(&self) -> &Self::Target {
        &self.1
    }
}

impl std::ops::DerefMut for Db<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.1
    }
}

/// Maps a SQLite error: constraint violations are conflicts, the rest backend failures.
pub fn db_err(e: rusqlite::Error) -> dispatch_core::ports::store::StoreError {
    use dispatch_core::ports::store::StoreError;
    match e.sqlite_error_code() {
        Some(rusqlite::ErrorCode::ConstraintViolation) => StoreError::Conflict(e.to_string()),
        _ => StoreError::Backend(e.to_string()),
    }
}

/// `?`-friendly conversion of rusqlite results.
pub trait Sql<T> {
    /// The result with the error mapped by [`db_err`].
    fn st(self) -> Result<T, dispatch_core::ports::store::StoreError>;
}

impl<T> Sql<T> for Result<T, rusqlite::Error> {
    fn st(self) -> Result<T, dispatch_core::ports::store::StoreError> {
        self.map_err(db_err)
    }
}

/// The keyset conditions of a page, for `notifications.rs`'s rusqlite parameters (the shared
/// repositories' `keyset` binds the shared values); goes when that file moves.
mod order_rows {
    use super::PageRequest;

    pub fn keyset(
        page: &PageRequest,
        prefix: &'static str,
        conditions: &mut Vec<&'static str>,
        values: &mut Vec<Box<dyn rusqlite::ToSql>>,
    ) {
        debug_assert_eq!(prefix, "t.");
        if let Some(m) = page.updated_at_min {
            conditions.push("t.updated >= ?");
            values.push(Box::new(m.millis()));
        }
        if let Some(c) = page.after {
            conditions.push("t.updated <= ?");
            conditions.push("(t.updated < ? OR t.id < ?)");
            values.push(Box::new(c.updated.millis()));
            values.push(Box::new(c.updated.millis()));
            values.push(Box::new(c.id));
        }
    }
}
