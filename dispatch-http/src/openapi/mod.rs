//! The OpenAPI 3.1 document of the service's API, served at `GET /v2/openapi.json`, and the
//! browsable reference at `/docs`.
//!
//! The document is generated (utoipa) from what the router is built of: every route of the
//! `/v2` API, of the driver API (`/driver/...`) and the public tracking page (`/track/{token}`)
//! is registered through `utoipa_axum::routes!` from its handler's `#[utoipa::path]`
//! ([`crate::v2::registry::ApiRoutes`]), so a path or method cannot exist in the router without
//! being in the document; request and response bodies are the `ToSchema` types the handlers
//! serialise. `/v2` paths are written relative to the document's server (`/v2`); the driver and
//! tracking paths carry their own server (`/`), so "Try it out" and client generators reach
//! them where they are served. What every operation shares (the
//! access key, feature and idempotency headers, the rate tier with its `Retry-After` answers,
//! the response headers, the error envelope) is added once by `decorate` from the same tables
//! the middleware uses (`ENDPOINT_TIERS`, `IDEMPOTENT_ENDPOINTS`).

mod decorate;
mod docs;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use axum::http::header::CONTENT_TYPE;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use serde_json::Value;
use utoipa::OpenApi;

use crate::driver::shapes::FeedReady;
use crate::error::Envelope;
use crate::v2::registry::Parts;
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
            booking availability (`/v2`, with a depot's access key in `x-access-key`); the \
            driver API (`/driver`, with a driver credential in the same header); the public \
            tracking page (`/track/{token}`). This document needs no key. Errors are the \
            envelope `{name, statusCode, description, details}` (the tracking page answers \
            HTML).",
        license(name = "MIT OR Apache-2.0", identifier = "MIT OR Apache-2.0")
    ),
    servers((url = "/v2", description = "this server")),
    components(schemas(Envelope, FeedReady)),
    tags(
        (name = "driver", description = "The driver API: a driver credential \
            (`POST /v2/vehicles/{id}/driver-credentials`) reaches the dispatched routes of its \
            vehicle. Served under `/driver`, beside `/v2`."),
        (name = "tracking", description = "The customer's tracking page: public, HTML."),
        (name = "operator", description = "Liveness and Prometheus metrics: public, beside the \
            API."),
        (name = "console", description = "What the web console (`/console`) reads beside the \
            API, with a depot's access key.")
    )
)]
struct ApiDoc;

/// Where a group of documented routes is served, which decides its server and how its
/// operations authenticate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mount {
    /// Under `/v2` (the document's server), with a depot's access key.
    V2,
    /// At its own path (`/driver/...`), with a driver credential.
    Driver,
    /// At its own path, public (`/track/{token}`, `/healthz`, `/metrics`).
    Public,
    /// At its own path, with a depot's access key (`/console/depot`).
    Keyed,
}

impl Mount {
    /// The path prefix of the group's server.
    pub fn base(self) -> &'static str {
        match self {
            Mount::V2 => "/v2",
            Mount::Driver | Mount::Public | Mount::Keyed => "",
        }
    }
}

/// Every documented group of routes: the registrations the router is built from.
pub fn groups() -> Vec<(Mount, Parts)> {
    vec![
        (Mount::V2, crate::v2::api()),
        (Mount::Driver, crate::driver::api()),
        (Mount::Public, crate::tracking::api()),
        (Mount::Public, crate::health::api()),
        (Mount::Keyed, crate::console::depot::api()),
    ]
}

/// The pages the router serves beside the documented routes: `/docs`, the console and the
/// driver's app with
/// their embedded assets (HTML, scripts, styles, images; not API operations, so not in the
/// document). Each module builds its router from the same list.
pub fn pages() -> Vec<String> {
    let mut pages = docs::paths();
    pages.extend(crate::console::page_paths().iter().map(|p| (*p).to_owned()));
    pages.extend(
        crate::driver_app::page_paths()
            .iter()
            .map(|p| (*p).to_owned()),
    );
    pages
}

/// Every path the router serves through the registrations of [`groups`], in full (`/v2/...`,
/// `/driver/...`, `/track/{token}`), and the document's own.
pub fn served_paths() -> Vec<String> {
    let mut paths: Vec<String> = groups()
        .iter()
        .flat_map(|(mount, parts)| {
            parts
                .served_paths()
                .into_iter()
                .map(move |p| format!("{}{p}", mount.base()))
        })
        .collect();
    paths.push(format!("/v2{DOCUMENT_PATH}"));
    paths
}

/// The document as JSON: the paths of every group (with their schemas) under the `ApiDoc`
/// header, decorated with what every operation shares.
pub fn document() -> &'static Value {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    DOCUMENT.get_or_init(|| {
        let mut doc = ApiDoc::openapi();
        let mut aliases = Vec::new();
        let mut mounts = BTreeMap::new();
        for (mount, parts) in groups() {
            for path in parts.document.paths.paths.keys() {
                let earlier = mounts.insert(path.clone(), mount);
                assert!(earlier.is_none(), "{path} is registered by two groups");
            }
            aliases.extend(parts.aliases);
            doc.merge(parts.document);
        }
        let mut doc = serde_json::to_value(&doc).expect("the document serialises");
        decorate::decorate(&mut doc, &aliases, &mounts);
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
