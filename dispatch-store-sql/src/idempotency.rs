//! The statements of idempotency-key records, shared by both stores' `IdempotencyStore` (which
//! run them in short transactions of their own) and by [`IdempotencyRepo`] (which records a
//! response in the transaction of its effect).

use dispatch_core::ports::idempotency::{
    decide, Claim, ClaimToken, IdempotencyRepo, IdempotencyScope, KeyRecord, StoredResponse,
    CLAIM_LOST, RETENTION_MILLIS,
};
use dispatch_core::ports::store::StoreError;
use dispatch_core::time::Timestamp;

use crate::repo::{Db, Sql};
use crate::sql::{params, Connection, Dialect, OptionalExtension, Result};

fn read_record<C: Connection>(conn: C, scope: &IdempotencyScope) -> Result<Option<KeyRecord>> {
    // On PostgreSQL the row is locked: a response recorded by the effect's transaction
    // (`complete`) commits before the claim decides, never under it.
    conn.query_row(
        C::DIALECT.pick(
            "SELECT body_digest, received_at, token, status, content_type, body
             FROM idempotency_keys WHERE access_key_id = ?1 AND endpoint = ?2 AND key = ?3",
            "SELECT body_digest, received_at, token, status, content_type, body
             FROM idempotency_keys WHERE access_key_id = ?1 AND endpoint = ?2 AND key = ?3
             FOR UPDATE",
        ),
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

/// Claims `scope`'s key for `token` unless a live record decides otherwise; records past their
/// retention are dropped first. Runs inside the caller's transaction, which must serialise
/// claims of one key (SQLite's `BEGIN IMMEDIATE`, PostgreSQL's lock on the key, taken here)
/// and which the caller commits only for [`Claim::Claimed`].
pub fn claim<C: Connection>(
    conn: C,
    scope: &IdempotencyScope,
    body_digest: &str,
    token: &ClaimToken,
    now: Timestamp,
) -> Result<Claim> {
    if C::DIALECT == Dialect::Postgres {
        // Claims of other keys run at the same time: one advisory lock per key, hashed into 64
        // bits (a collision only makes two claims wait for each other).
        conn.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(?1::text || chr(31) || ?2 || chr(31) || ?3, 0))",
            params![scope.access_key_id, scope.endpoint, scope.key],
        )?;
    }
    // Expired records of other keys may be locked by their own claims or effects: skipped,
    // the next claim drops them.
    conn.execute(
        C::DIALECT.pick(
            "DELETE FROM idempotency_keys WHERE received_at <= ?1",
            "DELETE FROM idempotency_keys WHERE (access_key_id, endpoint, key) IN (
                 SELECT access_key_id, endpoint, key FROM idempotency_keys
                 WHERE received_at <= ?1 FOR UPDATE SKIP LOCKED)",
        ),
        params![now.millis() - RETENTION_MILLIS],
    )?;
    let existing = read_record(conn, scope)?;
    let claim = decide(existing.as_ref(), body_digest, now);
    if claim != Claim::Claimed {
        return Ok(claim);
    }
    conn.execute(
        C::DIALECT.pick(
            "INSERT OR REPLACE INTO idempotency_keys
                 (access_key_id, endpoint, key, body_digest, received_at, token)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            "INSERT INTO idempotency_keys
                 (access_key_id, endpoint, key, body_digest, received_at, token)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (access_key_id, endpoint, key) DO UPDATE SET
                 body_digest = excluded.body_digest, received_at = excluded.received_at,
                 token = excluded.token, status = NULL, content_type = NULL, body = NULL",
        ),
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

/// Records the response of `token`'s claim; how many records took it (0: the claim was lost).
pub fn complete<C: Connection>(
    conn: C,
    scope: &IdempotencyScope,
    token: &ClaimToken,
    response: &StoredResponse,
) -> Result<usize> {
    conn.execute(
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
}

/// Gives `token`'s unfinished claim up, so a retry executes.
pub fn release<C: Connection>(
    conn: C,
    scope: &IdempotencyScope,
    token: &ClaimToken,
) -> Result<usize> {
    conn.execute(
        "DELETE FROM idempotency_keys
         WHERE access_key_id = ?1 AND endpoint = ?2 AND key = ?3 AND token = ?4
           AND status IS NULL",
        params![scope.access_key_id, scope.endpoint, scope.key, token.0],
    )
}

impl<C: Connection> IdempotencyRepo for Db<C> {
    fn record_idempotent_response(
        &mut self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
        response: &StoredResponse,
    ) -> std::result::Result<(), StoreError> {
        if complete(self.0, scope, token, response).st()? == 1 {
            Ok(())
        } else {
            Err(StoreError::Conflict(CLAIM_LOST.into()))
        }
    }
}
