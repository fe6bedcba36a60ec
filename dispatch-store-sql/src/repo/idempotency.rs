//! Recording an idempotent response inside the store transaction of its effect.

use crate::sql::{params, Connection};
use dispatch_core::ports::idempotency::{
    ClaimToken, IdempotencyRepo, IdempotencyScope, StoredResponse, CLAIM_LOST,
};
use dispatch_core::ports::store::StoreError;

use super::{Db, Sql};

impl<C: Connection> IdempotencyRepo for Db<C> {
    fn record_idempotent_response(
        &mut self,
        scope: &IdempotencyScope,
        token: &ClaimToken,
        response: &StoredResponse,
    ) -> Result<(), StoreError> {
        let updated = self
            .0
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
            .st()?;
        if updated == 1 {
            Ok(())
        } else {
            Err(StoreError::Conflict(CLAIM_LOST.into()))
        }
    }
}
