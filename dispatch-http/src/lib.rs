//! dispatch-http: the v2 REST adapter over `dispatch-core`, a library. The process around it
//! (the `dispatch` binary, its background workers, the choice of store) is `dispatch-server`.
//!
//! [`app`] builds the whole HTTP surface: `/healthz`, the `/v2` API behind the access-key layer,
//! and the envelope for every error (unknown path, wrong method, bad body, panics).

// `ApiError` (a fixed contract) carries its details map and extra headers by value; it is built
// only on the error path, so its size does not matter where clippy counts it.
#![allow(clippy::result_large_err)]

pub mod auth;
pub mod bounded_json;
pub mod clock;
pub mod console;
pub mod driver;
pub mod driver_app;
pub mod error;
pub mod extract;
pub mod health;
pub mod keys;
pub mod links;
pub mod middleware;
pub mod observability;
pub mod openapi;
pub mod paging;
pub mod priority;
pub mod public_url;
pub mod rejection;
pub mod routing;
pub mod server;
pub mod signal;
pub mod tracking;
pub mod v2;
pub mod vroom_api;

use std::future::Future;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::Router;
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::geocoder::Geocoder;
use dispatch_core::ports::idempotency::IdempotencyStore;
use dispatch_core::ports::images::ImageCodec;
use dispatch_core::ports::store::Store;
use tower_http::catch_panic::CatchPanicLayer;

use crate::error::ApiError;

/// Largest accepted request body (JSON), counted in bytes as sent; larger bodies get 400
/// INVALID_INPUT (`too_big`). The largest valid request is a POST /customers of 100 customers
/// with 40000-character notes: about 16 MB of UTF-8 with 4-byte characters and every other
/// field at its longest, so the limit leaves a quarter above that — when the text is sent as
/// UTF-8: as `\u` escapes the same batch is 24 to 48 MB and is refused. It bounds memory too: a request holds its body and its parsed form at
/// most (see `bounded_json`), about twice the limit (was 32 MiB: 70 MB for one request).
pub const MAX_BODY_BYTES: usize = 20 * 1024 * 1024;

/// What every handler and layer can reach.
#[derive(Clone)]
pub struct AppState {
    /// The store.
    pub store: Arc<dyn Store>,
    /// The clock (tests use a manual one).
    pub clock: Arc<dyn Clock>,
    /// The geocoder (by default the gazetteer of the seed file).
    pub geocoder: Arc<dyn Geocoder>,
    /// `--rate-limits on|off`.
    pub rate_limits_enabled: bool,
    /// Idempotency-key records (SQLite on the service's database file when serving).
    pub idempotency: Arc<dyn IdempotencyStore>,
    /// Wakes the optimisation workers when a job is queued.
    pub jobs: signal::JobSignal,
    /// Decodes proof-of-delivery uploads and re-encodes them as WebP.
    pub images: Arc<dyn ImageCodec>,
    /// Wakes the image compression worker when uploads are stored.
    pub uploads: signal::JobSignal,
    /// The route endpoints' matrix, dispatch deadline and booking queues.
    pub routing: Arc<routing::Routing>,
    /// `--public-url`: the base of every absolute URL the service emits (never a request header).
    pub public_url: public_url::PublicUrl,
    /// `--docs-url`: where the documentation lives (the feature tokens' deprecation links point
    /// under it); `None`: the pages this service serves under `{public_url}/docs`.
    pub docs_url: Option<public_url::PublicUrl>,
}

impl AppState {
    /// A state over these ports with rate limits off and the defaults for the rest (fresh job
    /// and upload signals, the default routing, the loopback public URL): what tests and
    /// examples run on; a caller that needs other settings overrides those fields.
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        geocoder: Arc<dyn Geocoder>,
        idempotency: Arc<dyn IdempotencyStore>,
        images: Arc<dyn ImageCodec>,
    ) -> AppState {
        AppState {
            store,
            clock,
            geocoder,
            rate_limits_enabled: false,
            idempotency,
            jobs: Default::default(),
            images,
            uploads: Default::default(),
            routing: Default::default(),
            public_url: Default::default(),
            docs_url: None,
        }
    }

    /// The documentation URL: `--docs-url`, or `{public_url}/docs`, where this service serves
    /// the feature tokens' pages.
    pub fn docs_url(&self) -> public_url::PublicUrl {
        self.docs_url
            .clone()
            .unwrap_or_else(|| self.public_url.join("/docs"))
    }

    /// Runs blocking work (store, geocoder) on the blocking thread pool; below the store's
    /// writer thread where it has one ([`Store::writes_on_own_thread`], [`priority`]).
    ///
    /// [`Store::writes_on_own_thread`]: dispatch_core::ports::store::Store::writes_on_own_thread
    pub async fn blocking<R, F>(&self, work: F) -> Result<R, ApiError>
    where
        R: Send + 'static,
        F: FnOnce(&AppState) -> Result<R, ApiError> + Send + 'static,
    {
        let state = self.clone();
        tokio::task::spawn_blocking(move || {
            if state.store.writes_on_own_thread() {
                priority::below_writer();
            }
            work(&state)
        })
        .await
        .map_err(ApiError::internal)?
    }

    /// Runs a short store read (a few indexed statements: an access key, one order, one page):
    /// on the request's own thread where the store reads in place
    /// ([`Store::reads_in_place`]: SQLite), otherwise on the blocking pool as
    /// [`AppState::blocking`]. In place, the request does not wait for a blocking thread to
    /// wake and then for the runtime to wake again, twice per read request with the access
    /// key's read: on a loaded machine those wake-ups cost more than the reads.
    pub async fn quick<R, F>(&self, work: F) -> Result<R, ApiError>
    where
        R: Send + 'static,
        F: FnOnce(&AppState) -> Result<R, ApiError> + Send + 'static,
    {
        if self.store.reads_in_place() {
            return work(self);
        }
        self.blocking(work).await
    }
}

/// How the optional parts of the HTTP surface are laid out (`serve` flags); the default is
/// everything on one listener and the console without base-map tiles.
#[derive(Debug, Clone, Default)]
pub struct AppOptions {
    /// `serve --metrics-listen`: `/metrics` is served by [`metrics_app`] on its own listener and
    /// not by [`app_with`].
    pub metrics_elsewhere: bool,
    /// The web console's settings.
    pub console: console::ConsoleConfig,
    /// `serve --vroom-api on`: `POST /vroom` is served, solving this way.
    pub vroom: Option<vroom_api::VroomApi>,
}

/// The whole HTTP application with the default [`AppOptions`].
pub fn app(state: AppState) -> Router {
    app_with(state, &AppOptions::default())
}

fn layers_of(state: &AppState) -> middleware::MiddlewareConfig {
    middleware::MiddlewareConfig {
        clock: state.clock.clone(),
        rate_limits_enabled: state.rate_limits_enabled,
        idempotency_store: state.idempotency.clone(),
        shared_rate_limits: state.store.shared_rate_limits(),
        docs_url: state.docs_url(),
    }
}

/// The whole HTTP application laid out as `options` say.
pub fn app_with(state: AppState, options: &AppOptions) -> Router {
    let layers = layers_of(&state);
    // Idempotency and rate limits sit inside the auth layer (they need the `Principal`);
    // request ids, logs and feature headers wrap everything, errors included.
    let api = middleware::apply_inner(v2::api().router, &layers).route_layer(
        axum::middleware::from_fn_with_state(state.clone(), auth::require_access_key),
    );
    observability::handle();
    // Built now rather than by the first request that needs it: handlers refusing unknown
    // properties read the accepted names from it (`v2::request_shapes`).
    openapi::document();
    let operator = if options.metrics_elsewhere {
        health::health_only()
    } else {
        health::api()
    };
    let routes = Router::new()
        .merge(operator.router)
        .nest("/v2", api)
        .merge(openapi::routes())
        .merge(driver::router(state.clone(), &layers));
    let routes = match options.vroom {
        Some(api) => routes.merge(vroom_api::router(state.clone(), &layers, api)),
        None => routes,
    };
    // The tracking page, the console and the driver's app answer HTML, errors included: they
    // stay outside the envelope net.
    let pages = tracking::routes(state.clone())
        .merge(console::routes(&options.console, state.clone()))
        .merge(driver_app::routes());
    middleware::apply_outer(with_error_handling(routes, state).merge(pages), &layers)
}

/// `/metrics` alone, for its own listener (`serve --metrics-listen`), with the request log and
/// metrics layers; every other path is a 404 envelope.
pub fn metrics_app(state: AppState) -> Router {
    let layers = layers_of(&state);
    observability::handle();
    let routes = health::metrics_only().into_parts().router;
    middleware::apply_outer(with_error_handling(routes, state), &layers)
}

/// Adds what makes every failure an envelope: the unknown-path and wrong-method fallbacks, the
/// body limit, panic catching and the net for bare-text error responses.
pub fn with_error_handling(routes: Router<AppState>, state: AppState) -> Router {
    routes
        .fallback(rejection::unknown_path)
        .method_not_allowed_fallback(rejection::wrong_method)
        .layer(axum::middleware::map_response(
            rejection::envelope_bare_errors,
        ))
        .layer(CatchPanicLayer::custom(rejection::panic_response))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

/// Serves `app(state)` on `listener` with the default [`server::ConnectionLimits`] until
/// `shutdown` completes, then finishes requests in flight.
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    server::serve(listener, app(state), Default::default(), shutdown).await
}
