//! One request through the router in-process, as the test harnesses send it: the whole
//! response read and its body held to the OpenAPI document (the contract check), so every
//! harness checks every response it receives.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, Request, StatusCode};
use axum::Router;
use http_body_util::BodyExt;
use tower::ServiceExt;

/// Sends `request` to `router` and reads the whole response, checked against the document.
pub async fn exchange(router: &Router, request: Request<Body>) -> (StatusCode, HeaderMap, Bytes) {
    let (method, uri) = (request.method().to_string(), request.uri().to_string());
    let response = router.clone().oneshot(request).await.expect("infallible");
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    let content_type = headers.get("content-type").and_then(|v| v.to_str().ok());
    crate::contract::check_bytes(&method, &uri, status.as_u16(), content_type, &bytes);
    (status, headers, bytes)
}
