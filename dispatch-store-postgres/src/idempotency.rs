//! The idempotency-key records on PostgreSQL.
//!
//! The records live in the `idempotency_keys` table of the store's schema. Claims, releases and
//! the responses of requests that changed nothing go through short transactions of their own
//! (the idempotency layer runs before any handler and takes no part in the handler's store
//! transaction); the response of a request that changed something is recorded by the handler's
//! own store transaction (`IdempotencyRepo` on the store), so it commits with the effect.
//!
//! Every claim runs under the store's write lock ([`crate::WRITE_LOCK`]), like every store
//! write: concurrent claims of one key, from any thread of any node, are serialised and exactly
//! one wins; a replay on another node sees the recorded response.
//!
//! Unlike the SQLite store, opening does not release unfinished claims: on a shared database
//! another node may be executing them. A claim left by a killed node is taken over once it is
//! abandoned (`KeyRecord::is_free_at`).

use dispatch_core::ports::idempotency::{
    decide, Claim, ClaimToken, IdempotencyScope, IdempotencyStore, IdempotencyStoreError,
    KeyRecord, StoredResponse, RETENTION_MILLIS,
};
use dispatch_core::time::Timestamp;

use crate::sql::{params, Connection, OptionalExtension};
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

fn read_record(
    conn: &Connection,
    scope: &IdempotencyScope,
) -> crate::sql::Result<Option<KeyRecord>> {
    conn.query_row(
        "SELECT body_digest, received_at, token, status, content_type, body
         FROM idempotency_keys WHERE access_key_id = ?1 AND endpoint = ?2 AND key = ?3",
        params![scope.access_key_id, scope.endpoint, scope.key],
        |row| {
            let status: Option<u16> = row.get(3)?;
            Ok(KeyRecord {
                body_digest: row.get(0)?,
                received_at: Timestamp::from_millis(row.get(1)?),
                token: ClaimToken(row.get(2)?),
                response: match status {
                    Some(status) => Some(StoredResponse {
                        status,
                        content_type: row.get(4)?,
                        body: row.get::<_, Option<Vec<u8>>>(5)?.unwrap_or_default(),
                    }),
                    None => None,
                },
            })
        },
    )
    .optional()
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
        conn.begin(&crate::begin_write()).map_err(db_err)?;
        let claimed = claim_in(&conn, scope, body_digest, token, now);
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
        self.conn()?
            .execute(
                "UPDATE idempotency_keys SET status = ?5, content_type = ?6, body = ?7
                 WHERE access_key_id = ?1 AND endpoint = ?2 AND key = ?3 AND token = ?4
                   AND status IS NULL",
                params![
                    scope.access_key_id,
                    scope.endpoint,
                    scope.key,
                    token.0,
                    response.status,
                    response.content_type,
                    response.body
                ],
            )
            .map_err(db_err)?;
        Ok(())
    }

    fn release(
        &self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
    ) -> Result<(), IdempotencyStoreError> {
        self.conn()?
            .execute(
                "DELETE FROM idempotency_keys
                 WHERE access_key_id = ?1 AND endpoint = ?2 AND key = ?3 AND token = ?4
                   AND status IS NULL",
                params![scope.access_key_id, scope.endpoint, scope.key, token.0],
            )
            .map_err(db_err)?;
        Ok(())
    }
}

/// The claim, inside the locked transaction.
fn claim_in(
    conn: &Connection,
    scope: &IdempotencyScope,
    body_digest: &str,
    token: &ClaimToken,
    now: Timestamp,
) -> crate::sql::Result<Claim> {
    conn.execute(
        "DELETE FROM idempotency_keys WHERE received_at <= ?1",
        params![now.millis() - RETENTION_MILLIS],
    )?;
    let existing = read_record(conn, scope)?;
    let claim = decide(existing.as_ref(), body_digest, now);
    if claim != Claim::Claimed {
        return Ok(claim);
    }
    conn.execute(
        "INSERT INTO idempotency_keys
             (access_key_id, endpoint, key, body_digest, received_at, token)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (access_key_id, endpoint, key) DO UPDATE SET
             body_digest = excluded.body_digest, received_at = excluded.received_at,
             token = excluded.token, status = NULL, content_type = NULL, body = NULL",
        params![
            scope.access_key_id,
            scope.endpoint,
            scope.key,
            body_digest,
            now.millis(),
            token.0
        ],
    )?;
    Ok(Claim::Claimed)
}
