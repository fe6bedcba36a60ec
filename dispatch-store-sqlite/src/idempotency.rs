//! The idempotency-key records on SQLite.
//!
//! The records live in the service's database file, in the `idempotency_keys` table of the
//! schema (migration 0003). Claims, releases and the responses of requests that changed nothing
//! go through this store's own connections: the idempotency layer runs before any handler and
//! must not wait behind (or take part in) the handler's store transactions. The response of a
//! request that changed something is recorded by the handler's own store transaction
//! (`IdempotencyRepo` on the store), so it commits with the effect. WAL mode lets the
//! connections work on the file at once; every claim is one `BEGIN IMMEDIATE` transaction, so
//! concurrent claims of one key (from threads or processes) are serialised by SQLite and exactly
//! one wins.

use std::path::Path;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use dispatch_core::ports::idempotency::{
    Claim, ClaimToken, IdempotencyScope, IdempotencyStore, IdempotencyStoreError, StoredResponse,
};
use dispatch_core::time::Timestamp;
use dispatch_store_sql::idempotency;
use rusqlite::{Connection, TransactionBehavior};

use crate::sql::Sqlite;

/// [`IdempotencyStore`] over a SQLite database file.
///
/// Two connections with different durability: claims and releases commit without waiting for
/// the disk (`synchronous=NORMAL`; under WAL a killed process loses nothing, and a claim lost
/// to a power cut only means the retry executes, exactly as after any crash: a claim's effect
/// and response commit together, later, with `synchronous=FULL`), while responses completed
/// here are committed with `synchronous=FULL`. This keeps one disk flush, not two, per
/// idempotent request.
#[derive(Debug)]
pub struct SqliteIdempotencyStore {
    claims: Mutex<Connection>,
    completions: Mutex<Connection>,
}

fn db_err(e: impl std::fmt::Display) -> IdempotencyStoreError {
    IdempotencyStoreError(e.to_string())
}

fn connect(path: &Path, synchronous: &str) -> Result<Connection, IdempotencyStoreError> {
    let conn = Connection::open(path).map_err(db_err)?;
    conn.busy_timeout(Duration::from_secs(10)).map_err(db_err)?;
    conn.pragma_update(None, "journal_mode", "WAL")
        .map_err(db_err)?;
    conn.pragma_update(None, "synchronous", synchronous)
        .map_err(db_err)?;
    Ok(conn)
}

fn lock(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    // Every use is a complete SQLite transaction or statement, so a panic elsewhere while the
    // lock was held cannot leave the connection mid-transaction in a way SQLite keeps.
    conn.lock().unwrap_or_else(|e| e.into_inner())
}

impl SqliteIdempotencyStore {
    /// Opens (creating if needed) the database file at `path` and its idempotency table.
    ///
    /// Opening is starting the service: claims that an earlier run left unfinished (it was
    /// killed mid-request) are released, so a retry after the restart executes at once instead
    /// of waiting out the abandonment period. That is safe because a response commits in the
    /// transaction of its effect: an unfinished claim changed nothing. One serving process per
    /// database file is assumed (as `dispatch serve` documents); a second one opening the file
    /// would release the first one's in-flight claims.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, IdempotencyStoreError> {
        let mut completions = connect(path.as_ref(), "FULL")?;
        crate::migrations::apply(&mut completions).map_err(db_err)?;
        completions
            .execute("DELETE FROM idempotency_keys WHERE status IS NULL", [])
            .map_err(db_err)?;
        Ok(SqliteIdempotencyStore {
            claims: Mutex::new(connect(path.as_ref(), "NORMAL")?),
            completions: Mutex::new(completions),
        })
    }
}

impl IdempotencyStore for SqliteIdempotencyStore {
    fn claim(
        &self,
        scope: &IdempotencyScope,
        body_digest: &str,
        token: &ClaimToken,
        now: Timestamp,
    ) -> Result<Claim, IdempotencyStoreError> {
        let mut conn = lock(&self.claims);
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(db_err)?;
        let claim =
            idempotency::claim(Sqlite(&tx), scope, body_digest, token, now).map_err(db_err)?;
        if claim == Claim::Claimed {
            tx.commit().map_err(db_err)?;
        }
        Ok(claim)
    }

    fn complete(
        &self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
        response: &StoredResponse,
    ) -> Result<(), IdempotencyStoreError> {
        idempotency::complete(Sqlite(&lock(&self.completions)), scope, token, response)
            .map_err(db_err)?;
        Ok(())
    }

    fn release(
        &self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
    ) -> Result<(), IdempotencyStoreError> {
        idempotency::release(Sqlite(&lock(&self.claims)), scope, token).map_err(db_err)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Barrier};

    use dispatch_core::ports::idempotency::conformance::{claim, complete, created, T0};

    use super::*;

    dispatch_core::idempotency_store_conformance!(
        let dir = tempfile::tempdir().unwrap();
        SqliteIdempotencyStore::open(dir.path().join("d.db")).unwrap()
    );

    #[test]
    fn a_response_recorded_in_a_store_transaction_commits_with_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.db");
        let store = crate::SqliteStore::open(&path).unwrap();
        let keys = SqliteIdempotencyStore::open(&path).unwrap();
        dispatch_core::ports::idempotency::conformance::a_response_recorded_in_a_transaction_commits_with_it(
            &store, &keys,
        );
    }

    #[test]
    fn completed_keys_survive_reopening_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("dispatch.db");
        {
            let store = SqliteIdempotencyStore::open(&path).unwrap();
            assert_eq!(claim(&store, "k", "h", "a", T0), Claim::Claimed);
            complete(&store, "k", "a");
        }
        let reopened = SqliteIdempotencyStore::open(&path).unwrap();
        let later = T0.add_millis(1000);
        assert_eq!(
            claim(&reopened, "k", "h", "b", later),
            Claim::Completed(created())
        );
        assert_eq!(
            claim(&reopened, "k", "other", "b", later),
            Claim::BodyMismatch
        );
    }

    #[test]
    fn claims_left_unfinished_by_a_killed_run_are_released_on_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.db");
        let store = SqliteIdempotencyStore::open(&path).unwrap();
        claim(&store, "done", "h", "a", T0);
        complete(&store, "done", "a");
        claim(&store, "running", "h", "b", T0);
        drop(store);
        let reopened = SqliteIdempotencyStore::open(&path).unwrap();
        assert_eq!(claim(&reopened, "running", "h", "c", T0), Claim::Claimed);
        assert_eq!(
            claim(&reopened, "done", "h", "c", T0),
            Claim::Completed(created())
        );
    }

    #[test]
    fn concurrent_claims_through_separate_connections_have_exactly_one_winner() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("d.db");
        let threads = 8;
        let barrier = Arc::new(Barrier::new(threads));
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let store = SqliteIdempotencyStore::open(&path).unwrap();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    claim(&store, "k", "h", &i.to_string(), T0)
                })
            })
            .collect();
        let claims: Vec<Claim> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        let winners = claims.iter().filter(|c| **c == Claim::Claimed).count();
        assert_eq!(winners, 1, "{claims:?}");
        assert!(claims
            .iter()
            .all(|c| matches!(c, Claim::Claimed | Claim::InProgress)));
    }
}
