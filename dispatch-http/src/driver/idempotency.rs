//! `idempotency-key` on the driver's actions, so an app replaying its offline queue never
//! completes a stop twice, nor stores a photo twice, when an earlier attempt did reach the
//! service but its answer was lost.
//!
//! Like the `/v2` layer (`middleware/idempotency.rs`) and over the same records, with these
//! differences, documented in `docs/driver-api.md`:
//! - keys are scoped by credential and by the endpoint's **template**
//!   (`POST /driver/stops/{id}/complete`), not its concrete path: a key names one action of the
//!   driver, and the app that retries it at the stop's new id after a route edit rebuilt the
//!   stops gets the first answer instead of a second effect;
//! - multipart uploads take part: their body is compared with its boundary blanked out (a
//!   browser chooses a new boundary for each send of the same form);
//! - a success is recorded right after its effect commits, not in its transaction: a crash of
//!   the service between the two lets a retry run again, which the rules of the stop refuse for
//!   an outcome (already finished) and which can store a photo twice, but never loses one.

use std::sync::Arc;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use dispatch_core::model::pod::{MAX_IMAGE_BYTES, MAX_PHOTOS_PER_UPLOAD};
use dispatch_core::ports::idempotency::{Claim, ClaimToken, IdempotencyScope};
use sha2::{Digest, Sha256};

use crate::auth::driver::DriverAuth;
use crate::middleware::idempotency::{
    blocking, body_mismatch, execute, fingerprint, in_progress, parse_key, replay, Idempotency,
    Successes, IDEMPOTENCY_KEY_HEADER,
};
use crate::middleware::RouteKey;

/// The driver's POSTs that honour `idempotency-key`: every one that changes something.
pub const DRIVER_IDEMPOTENT_ENDPOINTS: &[&str] = &[
    "/driver/routes/{id}/start",
    "/driver/routes/{id}/positions",
    "/driver/routes/{id}/complete",
    "/driver/stops/{id}/arrive",
    "/driver/stops/{id}/complete",
    "/driver/stops/{id}/fail",
    "/driver/stops/{id}/phone-calls",
    "/driver/stops/{id}/signature",
    "/driver/stops/{id}/photos",
    "/driver/questionnaire-submissions",
];

/// The largest multipart body a driver endpoint takes (five photos and their framing).
const MAX_MULTIPART_BYTES: usize = MAX_IMAGE_BYTES * MAX_PHOTOS_PER_UPLOAD + 64 * 1024;

/// The layer (inside the driver auth layer, outside the rate limit).
pub async fn enforce(State(state): State<Arc<Idempotency>>, req: Request, next: Next) -> Response {
    let (Some(route), Some(auth), Some(raw_key)) = (
        RouteKey::of_request(&req),
        req.extensions().get::<DriverAuth>().copied(),
        req.headers().get(IDEMPOTENCY_KEY_HEADER).cloned(),
    ) else {
        return next.run(req).await;
    };
    let template = match DRIVER_IDEMPOTENT_ENDPOINTS
        .iter()
        .find(|t| RouteKey::new(Method::POST, t) == route)
    {
        Some(template) => *template,
        None => return next.run(req).await,
    };
    let key = match parse_key(&raw_key) {
        Ok(key) => key,
        Err(refused) => return refused.into_response(),
    };
    let scope = IdempotencyScope {
        access_key_id: auth.credential_id,
        endpoint: format!("POST {template}"),
        key,
    };
    let (parts, body) = req.into_parts();
    let boundary = multipart_boundary(&parts.headers);
    let limit = match boundary {
        Some(_) => MAX_MULTIPART_BYTES,
        None => crate::MAX_BODY_BYTES,
    };
    let Ok(bytes) = to_bytes(body, limit).await else {
        return crate::rejection::body_too_large(&format!("{limit} bytes")).into_response();
    };
    // The handler reads the body as sent (its own bounds apply); the digest reads a copy.
    let digest = match boundary {
        Some(boundary) => multipart_digest(&bytes, &boundary),
        None => fingerprint(bytes.as_ref().into()).0,
    };
    let body = Body::from(bytes);
    let token = ClaimToken(uuid::Uuid::new_v4().to_string());
    let now = state.now();
    let claim = {
        let (store, scope, token) = (state.store().clone(), scope.clone(), token.clone());
        blocking(move || store.claim(&scope, &digest, &token, now)).await
    };
    match claim {
        Err(e) => crate::error::ApiError::internal(e).into_response(),
        Ok(Claim::Claimed) => {
            let req = Request::from_parts(parts, body);
            execute(state, scope, token, req, next, Successes::RecordedAfter).await
        }
        Ok(Claim::InProgress) => in_progress(),
        Ok(Claim::BodyMismatch) => body_mismatch(),
        Ok(Claim::Completed(stored)) => replay(stored, false),
    }
}

/// The boundary of a `multipart/...` body.
fn multipart_boundary(headers: &axum::http::HeaderMap) -> Option<String> {
    let value = headers.get(CONTENT_TYPE)?.to_str().ok()?;
    if !value
        .trim_start()
        .to_ascii_lowercase()
        .starts_with("multipart/")
    {
        return None;
    }
    let boundary = value.split(';').find_map(|p| {
        let (name, value) = p.split_once('=')?;
        name.trim()
            .eq_ignore_ascii_case("boundary")
            .then(|| value.trim().trim_matches('"').to_owned())
    })?;
    // An empty boundary would blank nothing; such a body is refused by the handler anyway.
    Some(if boundary.is_empty() {
        "\u{0}".into()
    } else {
        boundary
    })
}

/// SHA-256 (hex) of a multipart body with every occurrence of its boundary left out.
fn multipart_digest(body: &[u8], boundary: &str) -> String {
    let mut hash = Sha256::new();
    hash.update(b"multipart:");
    let needle = boundary.as_bytes();
    let mut rest = body;
    while let Some(at) = rest.windows(needle.len()).position(|w| w == needle) {
        hash.update(&rest[..at]);
        rest = &rest[at + needle.len()..];
    }
    hash.update(rest);
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_form_sent_with_another_boundary_has_the_same_digest() {
        let form = |b: &str| {
            format!(
                "--{b}\r\nContent-Disposition: form-data; name=\"photo\"\r\n\r\nPNG\r\n--{b}--\r\n"
            )
        };
        assert_eq!(
            multipart_digest(form("aaa111").as_bytes(), "aaa111"),
            multipart_digest(form("zz-9").as_bytes(), "zz-9")
        );
        let other = "--aaa111\r\nContent-Disposition: form-data; name=\"photo\"\r\n\r\nJPG\r\n--aaa111--\r\n";
        assert_ne!(
            multipart_digest(form("aaa111").as_bytes(), "aaa111"),
            multipart_digest(other.as_bytes(), "aaa111")
        );
    }

    #[test]
    fn the_boundary_is_read_from_the_content_type() {
        let mut headers = axum::http::HeaderMap::new();
        headers.insert(
            CONTENT_TYPE,
            "multipart/form-data; boundary=\"----WebKitFormBoundaryX\""
                .parse()
                .unwrap(),
        );
        assert_eq!(
            multipart_boundary(&headers).as_deref(),
            Some("----WebKitFormBoundaryX")
        );
        headers.insert(CONTENT_TYPE, "application/json".parse().unwrap());
        assert_eq!(multipart_boundary(&headers), None);
    }
}
