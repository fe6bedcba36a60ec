//! The behaviour every [`IdempotencyStore`] must show, as one suite run against each store.
//!
//! Each case takes a fresh, empty store. [`idempotency_store_conformance!`](crate::idempotency_store_conformance)
//! turns the cases into named `#[test]`s for one store, so a store crate writes one line per
//! store instead of copying the cases.

use super::*;

/// The instant the cases start at.
pub const T0: Timestamp = Timestamp::from_millis(1_800_000_000_000);

/// The scope of client key `key` for access key 1 on `POST /vehicles`.
pub fn scope(key: &str) -> IdempotencyScope {
    IdempotencyScope {
        access_key_id: 1,
        endpoint: "POST /vehicles".into(),
        key: key.into(),
    }
}

/// The claim token `t`.
pub fn token(t: &str) -> ClaimToken {
    ClaimToken(t.into())
}

/// A `201 Created` JSON response.
pub fn created() -> StoredResponse {
    StoredResponse {
        status: 201,
        content_type: Some("application/json".into()),
        body: br#"{"vehicle":{"id":1}}"#.to_vec(),
    }
}

/// Claims `scope(key)` with body digest `digest` under `by` at `at`.
pub fn claim(
    store: &dyn IdempotencyStore,
    key: &str,
    digest: &str,
    by: &str,
    at: Timestamp,
) -> Claim {
    store
        .claim(&scope(key), digest, &token(by), at)
        .expect("claim")
}

/// Completes `scope(key)`'s claim `by` with [`created`].
pub fn complete(store: &dyn IdempotencyStore, key: &str, by: &str) {
    store
        .complete(&scope(key), &token(by), &created())
        .expect("complete");
}

/// A new key is claimed; while it runs, the same body is in progress and another body a mismatch.
pub fn a_new_key_is_claimed_and_then_in_progress_for_the_same_body(store: &dyn IdempotencyStore) {
    assert_eq!(claim(store, "k", "h", "a", T0), Claim::Claimed);
    assert_eq!(claim(store, "k", "h", "b", T0), Claim::InProgress);
    assert_eq!(claim(store, "k", "other", "b", T0), Claim::BodyMismatch);
}

/// A completed key replays its response to the same body and rejects another body until
/// retention ends; from then on the key is new again, whatever the body.
pub fn a_completed_key_replays_until_retention_ends_and_is_then_new_again(
    store: &dyn IdempotencyStore,
) {
    for key in ["same", "other"] {
        claim(store, key, "h", "a", T0);
        complete(store, key, "a");
    }
    let just_before = T0.add_millis(RETENTION_MILLIS - 1);
    assert_eq!(
        claim(store, "same", "h", "b", just_before),
        Claim::Completed(created())
    );
    assert_eq!(
        claim(store, "other", "x", "b", just_before),
        Claim::BodyMismatch
    );
    let at_expiry = T0.add_millis(RETENTION_MILLIS);
    assert_eq!(claim(store, "same", "h", "c", at_expiry), Claim::Claimed);
    assert_eq!(claim(store, "other", "x", "c", at_expiry), Claim::Claimed);
}

/// One client key under another access key or endpoint is another key.
pub fn keys_are_scoped_per_access_key_and_endpoint(store: &dyn IdempotencyStore) {
    claim(store, "k", "h", "a", T0);
    let other_key = IdempotencyScope {
        access_key_id: 2,
        ..scope("k")
    };
    let other_endpoint = IdempotencyScope {
        endpoint: "POST /orders".into(),
        ..scope("k")
    };
    for s in [other_key, other_endpoint] {
        assert_eq!(
            store.claim(&s, "h", &token("b"), T0).unwrap(),
            Claim::Claimed
        );
    }
}

/// Releasing frees the key, but only when the caller holds the claim.
pub fn release_frees_the_key_only_for_the_claim_holder(store: &dyn IdempotencyStore) {
    claim(store, "k", "h", "a", T0);
    store.release(&scope("k"), &token("intruder")).unwrap();
    assert_eq!(claim(store, "k", "h", "b", T0), Claim::InProgress);
    store.release(&scope("k"), &token("a")).unwrap();
    assert_eq!(claim(store, "k", "h", "b", T0), Claim::Claimed);
}

/// An unfinished claim is taken over once abandoned; its late completion does not land.
pub fn an_abandoned_claim_is_taken_over_and_its_late_completion_is_ignored(
    store: &dyn IdempotencyStore,
) {
    claim(store, "k", "h", "a", T0);
    let later = T0.add_millis(ABANDONED_AFTER_MILLIS);
    assert_eq!(claim(store, "k", "h", "b", later), Claim::Claimed);
    complete(store, "k", "a");
    assert_eq!(
        claim(store, "k", "h", "c", later),
        Claim::InProgress,
        "the superseded claim's completion must not land"
    );
}

/// Expands to one `#[test]` per conformance case, each on a fresh store `$store`. The optional
/// `let` binds what the store needs to outlive it within the test (e.g. its temp dir).
#[macro_export]
macro_rules! idempotency_store_conformance {
    ($(let $bind:ident = $init:expr;)? $store:expr) => {
        $crate::idempotency_store_conformance!(@cases [$(let $bind = $init;)?] [$store]
            a_new_key_is_claimed_and_then_in_progress_for_the_same_body
            a_completed_key_replays_until_retention_ends_and_is_then_new_again
            keys_are_scoped_per_access_key_and_endpoint
            release_frees_the_key_only_for_the_claim_holder
            an_abandoned_claim_is_taken_over_and_its_late_completion_is_ignored
        );
    };
    (@cases [$($setup:tt)*] [$store:expr]) => {};
    (@cases [$($setup:tt)*] [$store:expr] $case:ident $($rest:ident)*) => {
        #[test]
        fn $case() {
            $($setup)*
            $crate::ports::idempotency::conformance::$case(&$store);
        }
        $crate::idempotency_store_conformance!(@cases [$($setup)*] [$store] $($rest)*);
    };
}

/// A response recorded inside a store transaction (on `store`, over the same records as `keys`)
/// lands only if the transaction commits; a rolled-back one leaves the claim unfinished, and a
/// claim that was taken over refuses the recording, which rolls the transaction back.
pub fn a_response_recorded_in_a_transaction_commits_with_it(
    store: &dyn crate::ports::store::Store,
    keys: &dyn IdempotencyStore,
) {
    use crate::ports::store::StoreError;

    let record = |by: &str, outcome: Result<(), StoreError>| {
        store.transaction(|tx| {
            tx.record_idempotent_response(&scope("k"), &token(by), &created())?;
            outcome
        })
    };
    claim(keys, "k", "h", "a", T0);
    assert_eq!(
        record("a", Err(StoreError::RolledBack)),
        Err(StoreError::RolledBack)
    );
    assert_eq!(claim(keys, "k", "h", "b", T0), Claim::InProgress);
    assert_eq!(
        record("intruder", Ok(())),
        Err(StoreError::Conflict(CLAIM_LOST.into()))
    );
    assert_eq!(record("a", Ok(())), Ok(()));
    assert_eq!(claim(keys, "k", "h", "b", T0), Claim::Completed(created()));
    keys.release(&scope("k"), &token("a")).unwrap();
    assert_eq!(
        claim(keys, "k", "h", "b", T0),
        Claim::Completed(created()),
        "a recorded response is never released"
    );
}
