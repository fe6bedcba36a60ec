//! Cross-cutting tower layers: request ids and logs, feature tokens, rate limits, idempotency.
//!
//! Order of the layers, outermost first, and why:
//!
//! 1. [`request_log`]: every response gets an `x-request-id` and one log line, whatever
//!    happened further in (including 401s and unknown paths); then the request metrics
//!    ([`metrics::record_request`]), as complete.
//! 2. [`features`]: `x-svc-api-features` is parsed before anything can answer, so every response
//!    (errors included) carries `x-svc-api-features-applied` and the deprecation headers.
//! 3. authentication ([`crate::auth::require_access_key`]): puts the
//!    [`Principal`](crate::auth::Principal) into the request extensions.
//! 4. [`idempotency`]: needs the principal (keys are scoped per access key) and sits outside the
//!    rate limit so that replays, in-progress and mismatch answers consume no rate quota.
//! 5. [`rate_limit`]: per access key and tier, then the handler.
//!
//! Layers 4 and 5 are added with `Router::layer` on the API router ([`apply_inner`], before the
//! auth layer is added around it), so they run after routing and see axum's
//! [`MatchedPath`](axum::extract::MatchedPath): tiers and idempotent endpoints are looked up by
//! (method, route template), never by raw path. Layers 1 and 2 wrap the whole service
//! ([`apply_outer`]). [`crate::app`] shows the wiring.

use std::sync::Arc;

use axum::Router;
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::idempotency::IdempotencyStore;
use dispatch_core::ports::rate_limit::SharedRateLimits;

use crate::public_url::PublicUrl;

pub mod features;
pub mod idempotency;
pub mod metrics;
pub mod rate_limit;
pub mod request_log;
mod route_key;

pub use route_key::RouteKey;

/// What the layers need from the running service.
#[derive(Clone)]
pub struct MiddlewareConfig {
    /// Time for rate limits, idempotency retention and feature notice periods.
    pub clock: Arc<dyn Clock>,
    /// `false` (`dispatch serve --rate-limits off`) disables every rate tier.
    pub rate_limits_enabled: bool,
    /// Where idempotency keys are recorded.
    pub idempotency_store: Arc<dyn IdempotencyStore>,
    /// Rate-limit counters every node on the database shares (PostgreSQL's); `None`: this
    /// process counts in memory.
    pub shared_rate_limits: Option<Arc<dyn SharedRateLimits>>,
    /// The documentation URL: a feature token's deprecation `Link` points at
    /// `{docs_url}/features/{token}`.
    pub docs_url: PublicUrl,
}

/// The layers that need the [`Principal`](crate::auth::Principal): idempotency, then rate limit.
/// Apply to the API router *before* (that is, inside) the authentication layer.
pub fn apply_inner<S>(router: Router<S>, config: &MiddlewareConfig) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    let router = if config.rate_limits_enabled {
        router.layer(axum::middleware::from_fn_with_state(
            Arc::new(rate_limit::RateLimiter::with_shared(
                config.clock.clone(),
                config.shared_rate_limits.clone(),
            )),
            rate_limit::enforce,
        ))
    } else {
        router
    };
    router
        .layer(axum::middleware::from_fn_with_state(
            Arc::new(idempotency::Idempotency::new(
                config.idempotency_store.clone(),
                config.clock.clone(),
            )),
            idempotency::enforce,
        ))
        .layer(axum::middleware::from_fn(request_log::expose_principal))
}

/// The layers every response passes through: feature headers, then request id and log line.
/// Apply *after* (that is, outside) the authentication layer, to the whole service.
pub fn apply_outer<S>(router: Router<S>, config: &MiddlewareConfig) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    router
        .layer(axum::middleware::from_fn(request_log::expose_route))
        .layer(axum::middleware::from_fn_with_state(
            features::Notices {
                clock: config.clock.clone(),
                docs_url: config.docs_url.clone(),
            },
            features::negotiate,
        ))
        .layer(axum::middleware::from_fn(metrics::record_request))
        .layer(axum::middleware::from_fn(request_log::log_request))
}

#[cfg(test)]
mod tests;
