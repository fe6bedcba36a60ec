//! The OpenAPI 3.1 document of the `/v2` API, served at `GET /v2/openapi.json`, and the browsable
//! reference at `/docs`.
//!
//! The document is generated (utoipa) from what the router is built of: every `/v2` route is
//! registered through `utoipa_axum::routes!` from its handler's `#[utoipa::path]`, so a path or
//! method cannot exist in the router without being in the document; request and response
//! bodies are the `ToSchema` types the handlers serialise. What every operation shares (the
//! access key, feature and idempotency headers, the rate tier with its `Retry-After` answers,
//! the response headers, the error envelope) is added once by [`decorate`] from the same tables
//! the middleware uses (`ENDPOINT_TIERS`, `IDEMPOTENT_ENDPOINTS`).

mod decorate;
mod docs;

use std::sync::OnceLock;

use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use serde_json::Value;
use utoipa::OpenApi;

use crate::error::Envelope;
use crate::AppState;

/// Where the document is served, relative to `/v2`.
pub const DOCUMENT_PATH: &str = "/openapi.json";

#[derive(OpenApi)]
#[openapi(
    info(
        title = "dispatch v2",
        version = "2.0.0",
        description = "Orders, customers, vehicles and reference data; route optimisation into \
            plans, routes and stops; dispatch; route edits; proof of delivery; notifications; \
            booking availability. Every operation needs `x-access-key` (a depot's key) except \
            this document. Errors are the envelope `{name, statusCode, description, details}`.",
        license(name = "MIT OR Apache-2.0", identifier = "MIT OR Apache-2.0")
    ),
    servers((url = "/v2", description = "this server")),
    components(schemas(Envelope))
)]
struct ApiDoc;

/// The document as JSON: the paths of the `/v2` router (with their schemas) under the
/// [`ApiDoc`] header, decorated with what every operation shares.
pub fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let parts = crate::v2::api();
        let mut doc = ApiDoc::openapi();
        doc.merge(parts.document);
        let mut doc = serde_json::to_value(&doc).expect("the document serialises");
        decorate::decorate(&mut doc, &parts.aliases);
        doc
    })
}

/// The document's bytes, rendered once.
fn document_bytes() -> &'static str {
    static BYTES: OnceLock<String> = OnceLock::new();
    BYTES.get_or_init(|| serde_json::to_string(document()).expect("the document serialises"))
}

/// `GET /v2/openapi.json`: served without an access key (outside the auth and rate-limit layers,
/// which sit on the `/v2` API routes only).
async fn serve_document() -> impl IntoResponse {
    ([(CONTENT_TYPE, "application/json")], document_bytes())
}

/// The document route and the `/docs` reference page with its embedded assets.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route(&format!("/v2{DOCUMENT_PATH}"), get(serve_document))
        .merge(docs::routes())
}
