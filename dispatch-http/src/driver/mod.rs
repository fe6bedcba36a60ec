//! The driver API: what a driver's app calls, beside `/v2` under `/driver`. Every endpoint
//! takes a driver credential ([`DriverAuth`]) and reaches only the dispatched routes of
//! the credential's vehicle. `docs/driver-api.md` documents it for users.
//!
//! Layers, outermost first: the request id, log and feature layers of the whole service; the
//! driver auth layer ([`require_driver`]); `idempotency-key` ([`idempotency`]); the rate limit per credential, with the tier
//! of each endpoint from the one table (`middleware/rate_limit/tiers.rs`, `/driver/...`
//! entries).

pub mod bodies;
mod feed;
pub mod idempotency;
mod pod;
mod routes;
pub mod shapes;
mod stops;
mod submission_wire;
mod wire;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::rate_limit::RateCaller;
use utoipa_axum::routes;

use crate::auth::driver::{require_driver, DriverAuth};
use crate::error::ApiError;
use crate::middleware::features::{rate_limit_429_applies, Features};
use crate::middleware::idempotency::Idempotency;
use crate::middleware::rate_limit::{rejection_response, tier_of, RateLimiter, FALLBACK_TIER};
use crate::middleware::{MiddlewareConfig, RouteKey};
use crate::v2::registry::{ApiRoutes, Parts};
use crate::AppState;
pub use feed::{wake_subscribers, EVENT_SCHEMAS};
use shapes::{DriverIdentity, DriverMe, DriverVehicle};

/// Every driver endpoint (at its full path, `/driver/...`), registered through [`ApiRoutes`]
/// like the `/v2` ones: the router and the document's driver paths are the same registrations.
pub fn api() -> Parts {
    ApiRoutes::new()
        .routes(routes!(me))
        .merge(routes::routes())
        .merge(stops::routes())
        .merge(feed::routes())
        .merge(pod::routes())
        .into_parts()
}

/// Every driver endpoint with the auth and rate-limit layers.
pub fn router(state: AppState, config: &MiddlewareConfig) -> Router<AppState> {
    let routes = api().router;
    let routes = if config.rate_limits_enabled {
        routes.route_layer(axum::middleware::from_fn_with_state(
            Arc::new(DriverLimits {
                limiter: RateLimiter::with_shared(
                    config.clock.clone(),
                    config.shared_rate_limits.clone(),
                ),
                clock: config.clock.clone(),
            }),
            limit,
        ))
    } else {
        routes
    };
    let routes = routes.route_layer(axum::middleware::from_fn_with_state(
        Arc::new(Idempotency::new(
            config.idempotency_store.clone(),
            config.clock.clone(),
        )),
        idempotency::enforce,
    ));
    routes.route_layer(axum::middleware::from_fn_with_state(state, require_driver))
}

/// The limiter of driver credentials: separate from the access keys' one, so credential and
/// key ids never share a window.
struct DriverLimits {
    limiter: RateLimiter,
    clock: Arc<dyn Clock>,
}

async fn limit(State(limits): State<Arc<DriverLimits>>, req: Request, next: Next) -> Response {
    let (Some(auth), Some(route)) = (
        req.extensions().get::<DriverAuth>().copied(),
        RouteKey::of_request(&req),
    ) else {
        return next.run(req).await;
    };
    let tier = tier_of(&route).unwrap_or_else(|| {
        tracing::warn!(method = %route.method(), path = route.path(), "driver route missing from the rate tier table");
        FALLBACK_TIER
    });
    match limits
        .limiter
        .admit(RateCaller::DriverCredential(auth.credential_id), tier)
        .await
    {
        Ok(()) => next.run(req).await,
        Err(rejection) => {
            let use_429 =
                rate_limit_429_applies(req.extensions().get::<Features>(), limits.clock.now());
            rejection_response(tier, rejection, use_429).into_response()
        }
    }
}

/// `GET /driver/me`: who the credential is (depot and vehicle).
#[utoipa::path(get, path = "/driver/me", tag = "driver", summary = "Who the driver credential is: its depot and vehicle.", responses((status = 200, description = "`{ driver }`", body = DriverMe)))]
async fn me(State(state): State<AppState>, auth: DriverAuth) -> Result<Json<DriverMe>, ApiError> {
    let vehicle = state
        .blocking(move |s| {
            Ok(s.store
                .read(|tx| tx.get_vehicle(auth.scope(), auth.vehicle_id))?)
        })
        .await?;
    Ok(Json(DriverMe {
        driver: DriverIdentity {
            credential_id: auth.credential_id,
            depot_id: auth.depot_id,
            vehicle: vehicle.map(|v| DriverVehicle {
                id: v.id,
                name: v.fields.name,
            }),
        },
    }))
}
