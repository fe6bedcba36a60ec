//! Port: idempotency keys.
//!
//! A client may send an `idempotency-key` with some POSTs so that a retry of the same request is
//! answered from a record instead of being executed twice. This port keeps those records. It is
//! deliberately passive: the caller passes the current time (from its
//! [`Clock`](crate::ports::clock::Clock)) and a digest of the request body, and the store only
//! decides, atomically, what the request is relative to what it already holds.
//!
//! # Crash safety: the response commits with the effect
//!
//! A claim is taken before the request runs, in a transaction of its own. The response of a
//! request that changes anything is recorded by [`IdempotencyRepo::record_idempotent_response`]
//! *inside the write transaction of its effect*, as that transaction's last step (a use case
//! takes a [`BeforeCommit`] and runs it through
//! [`transaction_with`](crate::ports::store::Store#method.transaction_with)). So after a crash
//! either both the effect and the response are stored (a retry replays) or neither is (the claim
//! is still unfinished, and releasing it lets the retry execute once). Responses of requests
//! that changed nothing (refused input) are recorded afterwards with
//! [`IdempotencyStore::complete`].
//!
//! Rules every implementation follows (`InMemoryStore` is the reference):
//! - a key is scoped by access key, endpoint and the client's key string ([`IdempotencyScope`]);
//! - a record expires [`RETENTION_MILLIS`] after the original request was received and is then
//!   treated as absent;
//! - a claim that has not completed within [`ABANDONED_AFTER_MILLIS`] is treated as abandoned (the
//!   process handling it died) and may be claimed again;
//! - completing or releasing only acts on the claim the caller holds ([`ClaimToken`]), so a
//!   request whose abandoned claim was taken over cannot overwrite its successor's record.

use crate::ports::store::{StoreError, StoreTx};
use crate::time::Timestamp;

/// How long a key is remembered, from receipt of the original request: 24 hours.
pub const RETENTION_MILLIS: i64 = 24 * 60 * 60 * 1000;

/// How long an unfinished claim blocks its key before it counts as abandoned: 5 minutes.
pub const ABANDONED_AFTER_MILLIS: i64 = 5 * 60 * 1000;

/// What one idempotency key is scoped to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyScope {
    /// The access key that sent the request.
    pub access_key_id: i64,
    /// The endpoint, e.g. `POST /vehicles` (the caller normalises spelling variants).
    pub endpoint: String,
    /// The client's key, 1 to 255 characters.
    pub key: String,
}

/// Identifies one claim of a key, chosen by the claimant (unique per request).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ClaimToken(pub String);

/// A finished response, kept for replays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResponse {
    /// The HTTP status code.
    pub status: u16,
    /// The `Content-Type` of the original response, if it had one.
    pub content_type: Option<String>,
    /// The original response body, byte for byte.
    pub body: Vec<u8>,
}

/// The outcome of trying to claim a key for a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// The key was free (new, expired or abandoned); the caller now owns it and must
    /// [`complete`](IdempotencyStore::complete) or [`release`](IdempotencyStore::release) it.
    Claimed,
    /// The key is held by a request with the same body that is still running.
    InProgress,
    /// The key belongs to a finished request with the same body: replay this response.
    Completed(StoredResponse),
    /// The key was used with a different body.
    BodyMismatch,
}

/// A failure of the storage behind the port.
#[derive(Debug, thiserror::Error)]
#[error("idempotency store: {0}")]
pub struct IdempotencyStoreError(pub String);

/// Durable records of idempotency keys.
pub trait IdempotencyStore: Send + Sync {
    /// Atomically decides what a request with `body_digest` is for `scope` at `now`, and claims
    /// the key under `token` when it is free. Concurrent claims of one key: exactly one gets
    /// [`Claim::Claimed`].
    fn claim(
        &self,
        scope: &IdempotencyScope,
        body_digest: &str,
        token: &ClaimToken,
        now: Timestamp,
    ) -> Result<Claim, IdempotencyStoreError>;

    /// Records the response of the claim `token`; later claims with the same body replay it.
    fn complete(
        &self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
        response: &StoredResponse,
    ) -> Result<(), IdempotencyStoreError>;

    /// Forgets the claim `token`, so that a retry executes afresh.
    fn release(
        &self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
    ) -> Result<(), IdempotencyStoreError>;
}

/// Recording an idempotent response inside a store transaction (part of
/// [`StoreTx`]).
pub trait IdempotencyRepo {
    /// Records `response` for the claim `token` of `scope`, in the current transaction, so it
    /// commits together with the request's effect. Fails with [`StoreError::Conflict`] when
    /// `token` no longer holds an unfinished claim of the key (it was abandoned and taken over):
    /// the transaction must then roll back, or the effect could happen twice.
    fn record_idempotent_response(
        &mut self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
        response: &StoredResponse,
    ) -> Result<(), StoreError>;
}

/// The last step of a use case's write transaction, given the result about to commit. An
/// idempotent request renders and records its response here; `()` does nothing.
pub trait BeforeCommit<R: ?Sized> {
    /// Runs inside the transaction, after its work succeeded; an `Err` rolls everything back.
    fn before_commit(&self, tx: &mut dyn StoreTx, result: &R) -> Result<(), StoreError>;
}

impl<R: ?Sized> BeforeCommit<R> for () {
    fn before_commit(&self, _tx: &mut dyn StoreTx, _result: &R) -> Result<(), StoreError> {
        Ok(())
    }
}

/// A [`BeforeCommit`] a use case may hand to the thread that runs its transaction (a store's
/// writer thread, [`crate::ports::store::Store::run_owned_write`]).
pub type SharedBeforeCommit<R> = std::sync::Arc<dyn BeforeCommit<R> + Send + Sync>;

/// The message of the [`StoreError::Conflict`] a lost claim causes.
pub const CLAIM_LOST: &str = "the idempotency claim was taken over";

/// The state of one key, as every implementation models it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRecord {
    /// Digest of the body of the request that claimed the key.
    pub body_digest: String,
    /// When that request was received (start of retention).
    pub received_at: Timestamp,
    /// The claim currently holding the key.
    pub token: ClaimToken,
    /// The response, once the request finished.
    pub response: Option<StoredResponse>,
}

impl KeyRecord {
    /// True when retention is over at `now` and the record counts as absent.
    pub fn is_expired_at(&self, now: Timestamp) -> bool {
        now.millis() - self.received_at.millis() >= RETENTION_MILLIS
    }

    /// True when the record no longer blocks its key at `now`: retention is over, or the
    /// request never finished and is presumed dead.
    fn is_free_at(&self, now: Timestamp) -> bool {
        self.is_expired_at(now)
            || (self.response.is_none()
                && now.millis() - self.received_at.millis() >= ABANDONED_AFTER_MILLIS)
    }
}

/// The one decision every [`IdempotencyStore`] makes: what a claim with `body_digest` at `now`
/// gets, given the record the store holds for its scope (if any). [`Claim::Claimed`] means the
/// key is free (new, expired or abandoned) and the store must now record the claim in place of
/// `existing`; every other answer leaves the record untouched.
pub fn decide(existing: Option<&KeyRecord>, body_digest: &str, now: Timestamp) -> Claim {
    match existing {
        Some(record) if !record.is_free_at(now) => {
            if record.body_digest != body_digest {
                Claim::BodyMismatch
            } else {
                match &record.response {
                    Some(response) => Claim::Completed(response.clone()),
                    None => Claim::InProgress,
                }
            }
        }
        _ => Claim::Claimed,
    }
}

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
