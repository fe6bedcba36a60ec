//! How an idempotent handler commits its response with its effect.
//!
//! The layer hands the claim to the handler as an [`IdempotencyClaim`] (a request extension).
//! The handler turns it into an [`InTransaction`] reply and passes that to the use case as its
//! [`BeforeCommit`]: the use case's write transaction renders the response from its result and
//! records it under the claim as its last step, so the response is stored if and only if the
//! effect is. After the use case returns, [`InTransaction::response`] sends exactly the
//! recorded bytes, marked [`RecordedInTransaction`] so the layer does not record them again.
//!
//! ```ignore
//! async fn create(State(state): State<AppState>, Caller(p): Caller, claim: IdempotencyClaim,
//!                 JsonBody(body): JsonBody) -> Result<Response, ApiError> {
//!     let patch = patch(&body)?;
//!     state.blocking(move |s| {
//!         let reply = claim.reply(StatusCode::OK, |v: &Vehicle| json!({"vehicle": render(v)}));
//!         vehicles::create(&*s.store, p.scope(), &patch, s.clock.now(), &reply)?;
//!         Ok(reply.response())
//!     }).await
//! }
//! ```

use std::convert::Infallible;
use std::marker::PhantomData;
use std::sync::Mutex;

use axum::body::Body;
use axum::extract::FromRequestParts;
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use dispatch_core::ports::idempotency::{
    BeforeCommit, ClaimToken, IdempotencyScope, StoredResponse,
};
use dispatch_core::ports::store::{StoreError, StoreTx};
use serde::Serialize;

use crate::error::ApiError;

/// The content type of every reply (as `axum::Json` sends it).
const JSON: &str = "application/json";

/// The claim the idempotency layer took for this request; empty when the request carried no
/// key (or the endpoint is not idempotent). Every handler of an endpoint in
/// [`IDEMPOTENT_ENDPOINTS`](super::IDEMPOTENT_ENDPOINTS) extracts it and replies through
/// [`IdempotencyClaim::reply`].
#[derive(Debug, Clone, Default)]
pub struct IdempotencyClaim(Option<(IdempotencyScope, ClaimToken)>);

impl IdempotencyClaim {
    pub(super) fn new(scope: IdempotencyScope, token: ClaimToken) -> Self {
        IdempotencyClaim(Some((scope, token)))
    }

    /// A JSON reply with `status`, rendered by `render` from the use case's result inside its
    /// write transaction and recorded there under this claim. `render` returns any serialisable
    /// shape: a typed one is encoded straight to bytes, without a JSON value tree in between.
    pub fn reply<R, T: Serialize, F: Fn(&R) -> T>(
        self,
        status: StatusCode,
        render: F,
    ) -> InTransaction<R, F> {
        InTransaction {
            claim: self,
            status,
            render,
            rendered: Mutex::new(None),
            result: PhantomData,
        }
    }
}

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyClaim {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Infallible> {
        Ok(parts
            .extensions
            .get::<IdempotencyClaim>()
            .cloned()
            .unwrap_or_default())
    }
}

/// Marks a response that was recorded in the transaction of its effect.
#[derive(Debug, Clone, Copy)]
pub struct RecordedInTransaction;

/// A response rendered and recorded in a use case's write transaction (see the module).
pub struct InTransaction<R, F> {
    claim: IdempotencyClaim,
    status: StatusCode,
    render: F,
    rendered: Mutex<Option<StoredResponse>>,
    result: PhantomData<fn(&R)>,
}

impl<R, T: Serialize, F: Fn(&R) -> T> BeforeCommit<R> for InTransaction<R, F> {
    fn before_commit(&self, tx: &mut dyn StoreTx, result: &R) -> Result<(), StoreError> {
        let body = serde_json::to_vec(&(self.render)(result))
            .map_err(|e| StoreError::Backend(format!("rendering the response: {e}")))?;
        let response = StoredResponse {
            status: self.status.as_u16(),
            content_type: Some(JSON.to_owned()),
            body,
        };
        if let Some((scope, token)) = &self.claim.0 {
            tx.record_idempotent_response(scope, token, &response)?;
        }
        *self.rendered.lock().unwrap_or_else(|e| e.into_inner()) = Some(response);
        Ok(())
    }
}

impl<R, F> InTransaction<R, F> {
    /// The response the transaction rendered; call it once the use case succeeded. It takes
    /// the reply by reference: a use case may have shared it with the thread that ran its
    /// transaction (see `orders::upsert_batch`), whose copy may not be dropped yet.
    pub fn response(&self) -> Response {
        let rendered = self
            .rendered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        let Some(stored) = rendered else {
            return ApiError::internal("the use case committed without rendering its response")
                .into_response();
        };
        let mut response = Response::new(Body::from(stored.body));
        *response.status_mut() = self.status;
        response
            .headers_mut()
            .insert(CONTENT_TYPE, HeaderValue::from_static(JSON));
        response.extensions_mut().insert(RecordedInTransaction);
        response
    }
}
