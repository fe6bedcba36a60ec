//! The HTTP metrics layer: one count and one latency per request, by route template.

use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;

use super::idempotency::IDEMPOTENCY_REPLAY_HEADER;
use super::rate_limit::RateLimited;

/// Route label of a request no route matched: raw paths would make a series per typo.
const UNMATCHED: &str = "unmatched";

/// The method as a label: the standard ones by name, any other token as `other` (a client may
/// send any token as its method).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// Counts the request by method, route template and status, observes its latency, and counts
/// rate-limit rejections and idempotent replays (read from the markers the inner layers leave
/// on the response). Sits outside routing: the template comes from
/// [`super::request_log::expose_route`].
pub async fn record_request(req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = method_label(req.method()).to_owned();
    let response = next.run(req).await;
    let route = response
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| UNMATCHED.to_owned(), |m| m.as_str().to_owned());
    let status = response.status().as_u16().to_string();
    metrics::histogram!(
        "dispatch_http_request_duration_seconds",
        "method" => method.clone(),
        "route" => route.clone(),
    )
    .record(started.elapsed().as_secs_f64());
    if response.extensions().get::<RateLimited>().is_some() {
        metrics::counter!(
            "dispatch_rate_limit_rejections_total",
            "method" => method.clone(),
            "route" => route.clone(),
        )
        .increment(1);
    }
    if response.headers().contains_key(IDEMPOTENCY_REPLAY_HEADER) {
        metrics::counter!(
            "dispatch_idempotent_replays_total",
            "method" => method.clone(),
            "route" => route.clone(),
        )
        .increment(1);
    }
    metrics::counter!(
        "dispatch_http_requests_total",
        "method" => method,
        "route" => route,
        "status" => status,
    )
    .increment(1);
    response
}
