//! The idempotency-key records on PostgreSQL.
//!
//! The records live in the `idempotency_keys` table of the store's schema. Claims, releases and
//! the responses of requests that changed nothing go through short transactions of their own
//! (the idempotency layer runs before any handler and takes no part in the handler's store
//! transaction); the response of a request that changed something is recorded by the handler's
//! own store transaction (`IdempotencyRepo` on the store), so it commits with the effect.
//!
//! Every claim takes an advisory lock on its key and locks the key's record: concurrent claims
//! of one key, from any thread of any node, are serialised and exactly one wins, while claims
//! of other keys run beside them; a replay on another node sees the recorded response.
//!
//! Unlike the SQLite store, opening does not release unfinished claims: on a shared database
//! another node may be executing them. A claim left by a killed node is taken over once it is
//! abandoned (`KeyRecord::is_free_at`).

use dispatch_core::ports::idempotency::{
    Claim, ClaimToken, IdempotencyScope, IdempotencyStore, IdempotencyStoreError, StoredResponse,
};
use dispatch_core::time::Timestamp;
use dispatch_store_sql::idempotency;

use crate::sql::Pg;
use crate::PostgresStore;

/// [`IdempotencyStore`] over the database of a [`PostgresStore`], sharing its pool.
#[derive(Debug)]
pub struct PostgresIdempotencyStore {
    pool: crate::pool::Pool,
}

fn db_err(e: impl std::fmt::Display) -> IdempotencyStoreError {
    IdempotencyStoreError(e.to_string())
}

impl PostgresIdempotencyStore {
    /// The records of `store`'s database (migrated when the store was opened), on a pool of
    /// their own so claims never queue behind the store's transactions.
    pub fn new(store: &PostgresStore) -> Result<Self, IdempotencyStoreError> {
        Ok(PostgresIdempotencyStore {
            pool: crate::pool::Pool::new(store.url(), crate::pool::CLAIM_POOL_SIZE)
                .map_err(db_err)?,
        })
    }

    fn conn(&self) -> Result<r2d2::PooledConnection<crate::pool::Manager>, IdempotencyStoreError> {
        self.pool.get().map_err(db_err)
    }
}

impl IdempotencyStore for PostgresIdempotencyStore {
    fn claim(
        &self,
        scope: &IdempotencyScope,
        body_digest: &str,
        token: &ClaimToken,
        now: Timestamp,
    ) -> Result<Claim, IdempotencyStoreError> {
        let conn = self.conn()?;
        conn.begin("BEGIN ISOLATION LEVEL READ COMMITTED")
            .map_err(db_err)?;
        let claimed = idempotency::claim(Pg(&conn), scope, body_digest, token, now);
        let end = if matches!(claimed, Ok(Claim::Claimed)) {
            "COMMIT"
        } else {
            "ROLLBACK"
        };
        conn.finish(end).map_err(db_err)?;
        claimed.map_err(db_err)
    }

    fn complete(
        &self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
        response: &StoredResponse,
    ) -> Result<(), IdempotencyStoreError> {
        idempotency::complete(Pg(&*self.conn()?), scope, token, response).map_err(db_err)?;
        Ok(())
    }

    fn release(
        &self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
    ) -> Result<(), IdempotencyStoreError> {
        idempotency::release(Pg(&*self.conn()?), scope, token).map_err(db_err)?;
        Ok(())
    }
}
