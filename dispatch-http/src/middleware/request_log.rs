//! Request ids and one log line per request.
//!
//! `x-request-id` is taken from the request when the caller (or a proxy) sent a usable one
//! (1-128 visible ASCII characters), generated (UUID v4) otherwise, put into the request
//! extensions as [`RequestId`] and echoed on the response. The log line (`tracing`, target
//! `dispatch::request`, level INFO; WARN for 5xx) has the request id, method, route, status,
//! latency and the depot of the caller when the request was authenticated: by an access key
//! ([`Principal`]), by a driver credential, or by a tracking link that resolved (both
//! [`LoggedDepot`]).
//!
//! `route` is the route template that matched (`/v2/orders/{id}`, `/track/{token}`), never the
//! raw path, so path segments that are credentials (tracking tokens) stay out of the logs; only
//! a request no route matched is logged with its path (after `unmatched `), cut to 200 bytes.
//! Query strings, headers and bodies are never logged.

use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::http::{header::HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use crate::auth::{LoggedDepot, Principal};

/// The request-id header, read and written.
pub const REQUEST_ID_HEADER: HeaderName = HeaderName::from_static("x-request-id");

/// The id of the request being served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestId(pub HeaderValue);

fn usable(value: &HeaderValue) -> bool {
    let bytes = value.as_bytes();
    !bytes.is_empty() && bytes.len() <= 128 && bytes.iter().all(|b| b.is_ascii_graphic())
}

/// The outermost layer: assigns the request id and logs the finished request.
pub async fn log_request(mut req: Request, next: Next) -> Response {
    let started = Instant::now();
    let id = req
        .headers()
        .get(REQUEST_ID_HEADER)
        .filter(|v| usable(v))
        .cloned()
        .unwrap_or_else(|| {
            HeaderValue::from_str(&uuid::Uuid::new_v4().to_string())
                .expect("a UUID is a valid header value")
        });
    req.extensions_mut().insert(RequestId(id.clone()));
    let method = req.method().clone();
    let path = req.uri().path().to_owned();

    let mut response = next.run(req).await;

    let status = response.status().as_u16();
    let latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    let extensions = response.extensions();
    let depot_id = extensions
        .get::<Principal>()
        .map(|p| p.depot_id)
        .or_else(|| extensions.get::<LoggedDepot>().map(|d| d.0));
    let request_id = id.to_str().unwrap_or_default();
    let route = match response.extensions().get::<MatchedPath>() {
        Some(matched) => matched.as_str().to_owned(),
        None => format!("unmatched {}", cut(&path, 200)),
    };
    if response.status().is_server_error() {
        tracing::warn!(target: "dispatch::request", request_id, %method, route, status, latency_ms, depot_id, "request");
    } else {
        tracing::info!(target: "dispatch::request", request_id, %method, route, status, latency_ms, depot_id, "request");
    }
    response.headers_mut().insert(REQUEST_ID_HEADER, id);
    response
}

/// Copies the caller's [`Principal`] from the request to the response extensions, so that the
/// log line written outside the authentication layer can name the depot.
pub async fn expose_principal(req: Request, next: Next) -> Response {
    let principal = req.extensions().get::<Principal>().copied();
    let mut response = next.run(req).await;
    if let Some(principal) = principal {
        response.extensions_mut().insert(principal);
    }
    response
}

/// The innermost layer of the whole service: copies the route template that matched (axum's
/// [`MatchedPath`], set by routing) to the response, for the outer layers that run before
/// routing (the log line, the metrics) to name the route.
pub async fn expose_route(req: Request, next: Next) -> Response {
    let matched = req.extensions().get::<MatchedPath>().cloned();
    let mut response = next.run(req).await;
    if let Some(matched) = matched {
        response.extensions_mut().insert(matched);
    }
    response
}

/// `text` cut to at most `max` bytes, on a character boundary.
fn cut(text: &str, max: usize) -> &str {
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}
