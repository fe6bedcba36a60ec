//! Rate limits per access key and tier (spec, Limits: Rate limits).
//!
//! Each (access key, tier) has two windows, the per-minute one and the burst one
//! ([`Tier::windows`]); a request is rejected as soon as either is full, and a rejected request
//! consumes nothing.
//!
//! Algorithm: an exact sliding-window log on the [`Clock`] port — each window remembers the
//! times of the requests it let through within its period (at most `limit` of them, so at most
//! 65 timestamps per key and tier). We chose it over GCRA (and over `governor`, which implements
//! GCRA) because GCRA configured as "N per T" lets up to 2N-1 requests through in some window of
//! length T (a full bucket, then the refill), while the spec's "5 / min" reads as "at most 5 in
//! any minute"; the log enforces exactly that, computes an exact `Retry-After`, and lets one
//! mutex check both windows before either is charged. Time comes from the `Clock`, so tests
//! drive it with `ManualClock`.
//!
//! Several nodes on one PostgreSQL database count in the database instead
//! ([`SharedRateLimits`], the same sliding-window log, one statement per request, see
//! ARCHITECTURE.md), so a key's quota holds whichever node a request reaches. A failure of the
//! shared counters lets the request through (and logs it): the request itself then meets the
//! database and fails or succeeds on its own.
//!
//! Rejection: 403 FORBIDDEN, or 429 RATE_LIMIT_EXCEEDED when the caller sent the
//! `rate-limit-429` token or the date of the new default has come; both carry `Retry-After`
//! (whole seconds, rounded up, at least 1) equal to `details.retry_after_seconds`, and the same
//! description. The rejection is marked with [`RateLimited`] in the response extensions so the
//! idempotency layer releases the key instead of caching the rejection.

mod tiers;

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};

use axum::extract::{Request, State};
use axum::http::header::RETRY_AFTER;
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::rate_limit::{RateCaller, RateWindow, SharedRateLimits};
use dispatch_core::time::Timestamp;
use serde_json::json;

pub use tiers::{tier_of, Tier, Window, ENDPOINT_TIERS, FALLBACK_TIER};

use crate::auth::Principal;
use crate::error::{ApiError, ErrorName};
use crate::middleware::features::{rate_limit_429_applies, Features};
use crate::middleware::RouteKey;

/// Marks a response as a rate-limit rejection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimited;

/// Times of the requests let through in one window, oldest first.
#[derive(Debug, Default)]
struct WindowLog(VecDeque<i64>);

impl WindowLog {
    /// Forgets requests that left the window; returns how long (ms) until one more fits.
    fn wait_ms(&mut self, window: Window, now: i64) -> i64 {
        while self.0.front().is_some_and(|&t| t <= now - window.period_ms) {
            self.0.pop_front();
        }
        if self.0.len() < window.limit {
            return 0;
        }
        // The request that must leave the window before one more fits.
        let blocking = self.0[self.0.len() - window.limit];
        (blocking + window.period_ms - now).max(1)
    }
}

/// The limiter state of every (access key, tier).
pub struct RateLimiter {
    clock: Arc<dyn Clock>,
    state: Mutex<LimiterState>,
    /// Counters shared with the other nodes on the database; the in-process state is unused
    /// when they are set.
    shared: Option<Arc<dyn SharedRateLimits>>,
}

#[derive(Default)]
struct LimiterState {
    logs: HashMap<(i64, Tier), [WindowLog; 2]>,
    /// The latest time seen: a wall clock stepped back (NTP) must not make the windows look
    /// younger than they are, or a key would wait for the step on top of the window.
    latest: i64,
}

/// A rejected request: how long to wait.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rejection {
    /// Milliseconds until the request would be let through.
    pub wait_ms: i64,
}

impl Rejection {
    /// The wait in whole seconds, rounded up (the `Retry-After` value).
    pub fn retry_after_seconds(self) -> i64 {
        ((self.wait_ms + 999) / 1000).max(1)
    }
}

impl RateLimiter {
    /// A limiter reading time from `clock`.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self::with_shared(clock, None)
    }

    /// A limiter counting in `shared` when given (several nodes), else in this process.
    pub fn with_shared(clock: Arc<dyn Clock>, shared: Option<Arc<dyn SharedRateLimits>>) -> Self {
        RateLimiter {
            clock,
            state: Mutex::new(LimiterState::default()),
            shared,
        }
    }

    /// Lets one request of `caller` on `tier` through, or says how long to wait: in the shared
    /// counters when there are some (on a blocking thread), else as [`RateLimiter::check`].
    pub async fn admit(&self, caller: RateCaller, tier: Tier) -> Result<(), Rejection> {
        let Some(shared) = self.shared.clone() else {
            let id = match caller {
                RateCaller::AccessKey(id) | RateCaller::DriverCredential(id) => id,
            };
            return self.check(id, tier);
        };
        let now = self.clock.now();
        let windows = tier.windows().map(|w| RateWindow {
            limit: u32::try_from(w.limit).unwrap_or(u32::MAX),
            period_ms: w.period_ms,
        });
        let counted = tokio::task::spawn_blocking(move || {
            shared.admit(caller, &tier.to_string(), &windows, now)
        })
        .await;
        match counted {
            Ok(Ok(0)) => Ok(()),
            Ok(Ok(wait_ms)) => Err(Rejection { wait_ms }),
            Ok(Err(e)) => {
                tracing::error!(error = %e, "shared rate limits failed; the request goes through");
                Ok(())
            }
            Err(e) => {
                tracing::error!(error = %e, "shared rate limits failed; the request goes through");
                Ok(())
            }
        }
    }

    /// Lets one request of `access_key_id` on `tier` through, or says how long to wait.
    pub fn check(&self, access_key_id: i64, tier: Tier) -> Result<(), Rejection> {
        // Each check leaves the state consistent, so a poisoned lock holds usable state.
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let now = self.clock.now().millis().max(state.latest);
        state.latest = now;
        let log = state.logs.entry((access_key_id, tier)).or_default();
        let windows = tier.windows();
        let wait_ms = log
            .iter_mut()
            .zip(windows)
            .map(|(log, window)| log.wait_ms(window, now))
            .max()
            .unwrap_or(0);
        if wait_ms > 0 {
            return Err(Rejection { wait_ms });
        }
        for entry in log.iter_mut() {
            entry.0.push_back(now);
        }
        Ok(())
    }

    fn now(&self) -> Timestamp {
        self.clock.now()
    }
}

/// The rejection response; `use_429` picks 429 RATE_LIMIT_EXCEEDED over 403 FORBIDDEN.
pub fn rejection_response(tier: Tier, rejection: Rejection, use_429: bool) -> Response {
    let seconds = rejection.retry_after_seconds();
    let name = if use_429 {
        ErrorName::RateLimitExceeded
    } else {
        ErrorName::Forbidden
    };
    let unit = if seconds == 1 { "second" } else { "seconds" };
    let mut response = ApiError::new(
        name,
        format!("Rate limit exceeded for the {tier} tier; retry after {seconds} {unit}"),
    )
    .with_detail("retry_after_seconds", json!(seconds))
    .with_header(RETRY_AFTER, HeaderValue::from(seconds))
    .into_response();
    response.extensions_mut().insert(RateLimited);
    response
}

/// The layer: charges the caller's tier or answers with the rejection.
pub async fn enforce(
    State(limiter): State<Arc<RateLimiter>>,
    req: Request,
    next: Next,
) -> Response {
    let Some(principal) = req.extensions().get::<Principal>().copied() else {
        return next.run(req).await;
    };
    let Some(route) = RouteKey::of_request(&req) else {
        return next.run(req).await;
    };
    let tier = tier_of(&route).unwrap_or_else(|| {
        tracing::warn!(method = %route.method(), path = route.path(), "route missing from the rate tier table");
        FALLBACK_TIER
    });
    match limiter
        .admit(RateCaller::AccessKey(principal.access_key_id), tier)
        .await
    {
        Ok(()) => next.run(req).await,
        Err(rejection) => {
            let use_429 = rate_limit_429_applies(req.extensions().get::<Features>(), limiter.now());
            rejection_response(tier, rejection, use_429)
        }
    }
}

#[cfg(test)]
mod tests;
