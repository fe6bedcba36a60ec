//! Driver credentials on the wire: making them, and the [`DriverAuth`] extractor that every
//! driver endpoint takes.
//!
//! A driver credential is `drv_` followed by 64 hex digits (32 bytes from the OS random
//! source). It is shown once, when created; the store keeps only its SHA-256 digest, found by
//! an 8-byte prefix and compared in full in constant time, exactly like depot access keys
//! ([`crate::keys`]). Clients send it in the same header as access keys, `x-access-key`.
//!
//! The two kinds never stand in for each other: a depot access key on a driver endpoint is
//! 403 PERMISSION, a driver credential on a depot (`/v2`) endpoint is 403 PERMISSION
//! ([`super::require_access_key`] asks [`is_driver_credential`]); anything unknown, and
//! a revoked credential, is 401 UNAUTHORIZED.

use axum::extract::{FromRequestParts, Request, State};
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use dispatch_core::model::driver::{Driver, DriverCredential};
use dispatch_core::model::organisation::{key_lookup, DepotScope};
use dispatch_core::ports::store::{Store, StoreError};
use subtle::ConstantTimeEq;

use super::{LoggedDepot, ACCESS_KEY_HEADER};
use crate::error::{ApiError, ErrorName};
use crate::keys::digest;
use crate::AppState;

/// What every driver credential starts with.
pub const CREDENTIAL_PREFIX: &str = "drv_";

/// The authenticated caller of a driver endpoint: one vehicle of one depot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriverAuth {
    /// The depot of the vehicle.
    pub depot_id: i64,
    /// That depot's organisation.
    pub organisation_id: i64,
    /// The vehicle this credential drives.
    pub vehicle_id: i64,
    /// The credential used (rate limits are per credential).
    pub credential_id: i64,
}

impl DriverAuth {
    /// The depot's data scope.
    pub fn scope(&self) -> DepotScope {
        DepotScope {
            organisation_id: self.organisation_id,
            depot_id: self.depot_id,
        }
    }

    /// The caller as the core's driver use cases take it.
    pub fn driver(&self) -> Driver {
        Driver {
            scope: self.scope(),
            vehicle_id: self.vehicle_id,
            credential_id: self.credential_id,
        }
    }

    fn of(credential: &DriverCredential) -> DriverAuth {
        DriverAuth {
            depot_id: credential.depot_id,
            organisation_id: credential.organisation_id,
            vehicle_id: credential.vehicle_id,
            credential_id: credential.id,
        }
    }
}

/// A fresh credential in clear text and its digest.
pub fn new_credential() -> Result<(String, [u8; 32]), ApiError> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|e| ApiError::internal(format!("no OS randomness: {e}")))?;
    let clear = format!("{CREDENTIAL_PREFIX}{}", hex::encode(bytes));
    let hash = digest(&clear);
    Ok((clear, hash))
}

/// Every stored credential (revoked ones too) whose digest equals that of `presented`.
fn matching(store: &dyn Store, presented: &str) -> Result<Vec<DriverCredential>, StoreError> {
    let hash = digest(presented);
    let candidates = store.read(|tx| tx.driver_credentials_by_lookup(key_lookup(&hash)))?;
    Ok(candidates
        .into_iter()
        .filter(|c| bool::from(c.key_hash.ct_eq(&hash)))
        .collect())
}

/// Whether `presented` is a driver credential (live or revoked): the depot auth layer refuses
/// it with PERMISSION instead of calling it unknown.
pub fn is_driver_credential(store: &dyn Store, presented: &str) -> Result<bool, StoreError> {
    if !presented.starts_with(CREDENTIAL_PREFIX) {
        return Ok(false);
    }
    Ok(!matching(store, presented)?.is_empty())
}

fn presented(parts: &Parts) -> Option<String> {
    parts
        .headers
        .get(ACCESS_KEY_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
}

/// Resolves the credential of a request: 401 when missing, unknown or revoked, 403 PERMISSION
/// for a depot access key.
async fn authenticate(state: &AppState, parts: &Parts) -> Result<DriverAuth, ApiError> {
    let Some(presented) = presented(parts) else {
        return Err(ApiError::new(
            ErrorName::Unauthorized,
            "a driver credential is required in the x-access-key header",
        ));
    };
    state
        .blocking(move |s| {
            let candidates = matching(&*s.store, &presented)?;
            if let Some(live) = candidates.iter().find(|c| c.revoked.is_none()) {
                return Ok(DriverAuth::of(live));
            }
            if !candidates.is_empty() {
                return Err(ApiError::new(
                    ErrorName::Unauthorized,
                    "this driver credential was revoked",
                ));
            }
            if crate::keys::authenticate(&*s.store, &presented)?.is_some() {
                return Err(ApiError::new(
                    ErrorName::Permission,
                    "depot access keys cannot call driver endpoints; use a driver credential \
                     (POST /v2/vehicles/{id}/driver-credentials)",
                ));
            }
            Err(ApiError::new(
                ErrorName::Unauthorized,
                "invalid driver credential",
            ))
        })
        .await
}

/// The driver router's auth layer: authenticates the credential and puts the [`DriverAuth`]
/// into the request extensions (for the rate limit and the handlers), and the depot into the
/// response's for the log line.
pub async fn require_driver(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let (mut parts, body) = req.into_parts();
    match authenticate(&state, &parts).await {
        Ok(auth) => {
            parts.extensions.insert(auth);
            let mut response = next.run(Request::from_parts(parts, body)).await;
            response.extensions_mut().insert(LoggedDepot(auth.depot_id));
            response
        }
        Err(e) => e.into_response(),
    }
}

impl FromRequestParts<AppState> for DriverAuth {
    type Rejection = ApiError;

    /// The caller put in by [`require_driver`]; a handler mounted outside the driver router
    /// authenticates here, with the same rules.
    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<Self, Self::Rejection> {
        if let Some(auth) = parts.extensions.get::<DriverAuth>() {
            return Ok(*auth);
        }
        let auth = authenticate(state, parts).await?;
        parts.extensions.insert(auth);
        Ok(auth)
    }
}
