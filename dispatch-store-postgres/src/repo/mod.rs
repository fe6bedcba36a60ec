//! The repositories this store still implements itself (leases and notification tasks, until
//! their rework lands; see `dispatch_store_sql::OwnRepos`). Every other repository is
//! dispatch-store-sql's, on [`crate::sql::Pg`].

mod leases;
mod notifications;

use crate::sql::{Connection, Pg};

pub use dispatch_store_sql::repo::{db_err, ts, Sql};

mod order_rows {
    pub use dispatch_store_sql::repo::keyset;
}

/// A connection with an open transaction. It dereferences to the shared repositories, which
/// these two files call for jobs (`get_optimisation`, ...).
pub struct Db<'c>(pub &'c Connection, dispatch_store_sql::Db<Pg<'c>>);

impl<'c> Db<'c> {
    /// The repositories on `conn`.
    pub fn new(conn: &'c Connection) -> Self {
        Db(conn, dispatch_store_sql::Db(Pg(conn)))
    }
}

impl<'c> std::ops::Deref for Db<'c> {
    type Target = dispatch_store_sql::Db<Pg<'c>>;

    fn deref(&self) -> &Self::Target {
        &self.1
    }
}

impl std::ops::DerefMut for Db<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.1
    }
}
