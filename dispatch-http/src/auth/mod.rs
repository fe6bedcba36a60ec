//! Who is calling. A depot endpoint takes an access key: the auth layer resolves it to its
//! depot and organisation and puts a [`Principal`] into the request extensions; everything
//! after it (rate limits, idempotency, handlers) reads it from there. A driver endpoint takes a
//! driver credential ([`driver`]). The request log names the caller's depot from either.

pub mod driver;

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use dispatch_core::model::organisation::{DepotScope, KeyPermission};

use crate::error::{ApiError, ErrorName};
use crate::AppState;

/// What an access key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// Every endpoint.
    All,
    /// GET endpoints only.
    Read,
}

/// The authenticated caller of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Principal {
    /// The access key the request carried (its id, never the key).
    pub access_key_id: i64,
    /// The depot the key belongs to: every read and write of the request is scoped to it.
    pub depot_id: i64,
    /// The organisation of that depot (organisation-wide reference data).
    pub organisation_id: i64,
    /// What the key may do.
    pub permission: Permission,
}

/// The depot a request was served for, when it was not authenticated by an access key (a
/// driver credential, a tracking link): put into the response extensions by whoever knows it,
/// read by the log line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoggedDepot(pub i64);

/// The header carrying the access key.
pub const ACCESS_KEY_HEADER: &str = "x-access-key";

impl Principal {
    /// The data this caller reaches.
    pub fn scope(&self) -> DepotScope {
        DepotScope {
            organisation_id: self.organisation_id,
            depot_id: self.depot_id,
        }
    }
}

/// The auth layer: resolves `x-access-key` to a [`Principal`] (401 UNAUTHORIZED when missing or
/// unknown), refuses non-GET calls of `read` keys (403 PERMISSION), and inserts the principal
/// into the request extensions.
pub async fn require_access_key(
    State(state): State<AppState>,
    mut req: Request,
    next: Next,
) -> Response {
    let presented = match req.headers().get(ACCESS_KEY_HEADER).map(|v| v.to_str()) {
        Some(Ok(v)) if !v.trim().is_empty() => v.trim().to_owned(),
        // Bytes that are not visible ASCII: sent, but no key is spelt so.
        Some(Err(_)) => {
            return ApiError::new(ErrorName::Unauthorized, "invalid access key").into_response()
        }
        _ => {
            return ApiError::new(
                ErrorName::Unauthorized,
                "the x-access-key header is required",
            )
            .into_response()
        }
    };
    let presented_again = presented.clone();
    let found = state
        .quick(move |s| crate::keys::authenticate(&*s.store, &presented).map_err(ApiError::from))
        .await;
    let key = match found {
        Ok(Some(key)) => key,
        Ok(None) => return unknown_key(&state, presented_again).await,
        Err(e) => return e.into_response(),
    };
    let permission = match key.permission {
        KeyPermission::All => Permission::All,
        KeyPermission::Read => Permission::Read,
    };
    if permission == Permission::Read && !matches!(*req.method(), Method::GET | Method::HEAD) {
        return ApiError::new(ErrorName::Permission, "this access key may only read (GET)")
            .into_response();
    }
    req.extensions_mut().insert(Principal {
        access_key_id: key.id,
        depot_id: key.depot_id,
        organisation_id: key.organisation_id,
        permission,
    });
    next.run(req).await
}

/// A key that is no access key: 403 PERMISSION when it is a driver credential (it exists, it
/// just may not call depot endpoints), 401 UNAUTHORIZED otherwise.
async fn unknown_key(state: &AppState, presented: String) -> Response {
    let driver = state
        .quick(move |s| driver::is_driver_credential(&*s.store, &presented).map_err(ApiError::from))
        .await;
    match driver {
        Ok(true) => ApiError::new(
            ErrorName::Permission,
            "driver credentials can only call the driver API (/driver/...)",
        )
        .into_response(),
        Ok(false) => ApiError::new(ErrorName::Unauthorized, "invalid access key").into_response(),
        Err(e) => e.into_response(),
    }
}
