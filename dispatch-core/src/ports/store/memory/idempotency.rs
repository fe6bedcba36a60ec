//! Idempotency records of the in-memory store: kept in its state, so a response recorded in a
//! transaction commits or rolls back with the transaction's other changes, as on SQLite.

use std::collections::HashMap;

use super::{InMemoryStore, State};
use crate::ports::idempotency::{
    decide, Claim, ClaimToken, IdempotencyRepo, IdempotencyScope, IdempotencyStore,
    IdempotencyStoreError, KeyRecord, StoredResponse, CLAIM_LOST,
};
use crate::ports::store::StoreError;
use crate::time::Timestamp;

/// The records by scope.
pub(super) type Records = HashMap<IdempotencyScope, KeyRecord>;

impl IdempotencyRepo for State {
    fn record_idempotent_response(
        &mut self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
        response: &StoredResponse,
    ) -> Result<(), StoreError> {
        match self.idempotency.get_mut(scope) {
            Some(record) if &record.token == token && record.response.is_none() => {
                record.response = Some(response.clone());
                Ok(())
            }
            _ => Err(StoreError::Conflict(CLAIM_LOST.into())),
        }
    }
}

impl IdempotencyStore for InMemoryStore {
    fn claim(
        &self,
        scope: &IdempotencyScope,
        body_digest: &str,
        token: &ClaimToken,
        now: Timestamp,
    ) -> Result<Claim, IdempotencyStoreError> {
        let mut state = self.lock();
        state.idempotency.retain(|_, r| !r.is_expired_at(now));
        let claim = decide(state.idempotency.get(scope), body_digest, now);
        if claim == Claim::Claimed {
            state.idempotency.insert(
                scope.clone(),
                KeyRecord {
                    body_digest: body_digest.to_owned(),
                    received_at: now,
                    token: token.clone(),
                    response: None,
                },
            );
        }
        Ok(claim)
    }

    fn complete(
        &self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
        response: &StoredResponse,
    ) -> Result<(), IdempotencyStoreError> {
        // A claim that lost its key has nothing to record; that is not a failure here.
        let _ = self
            .lock()
            .record_idempotent_response(scope, token, response);
        Ok(())
    }

    fn release(
        &self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
    ) -> Result<(), IdempotencyStoreError> {
        let mut state = self.lock();
        if state
            .idempotency
            .get(scope)
            .is_some_and(|r| &r.token == token && r.response.is_none())
        {
            state.idempotency.remove(scope);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::InMemoryStore;

    crate::idempotency_store_conformance!(InMemoryStore::new());

    #[test]
    fn a_response_recorded_in_a_transaction_commits_with_it() {
        let store = InMemoryStore::new();
        crate::ports::idempotency::conformance::a_response_recorded_in_a_transaction_commits_with_it(
            &store, &store,
        );
    }
}
