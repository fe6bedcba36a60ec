//! Every failure the server can produce, in the spec's envelope: domain errors mapped once,
//! unknown paths, wrong methods, panics, and a last net that wraps any bare-text error response
//! produced by a layer or extractor we did not write.

use std::any::Any;

use axum::body::Body;
use axum::http::{header, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::ports::idempotency::CLAIM_LOST;
use dispatch_core::ports::store::StoreError;
use dispatch_core::service::ServiceError;
use serde_json::{json, Value};

use crate::error::{ApiError, ErrorName};

/// One validation issue on the wire: `{code, expected, received, path, message}`.
pub fn issue_json(issue: &ValidationIssue) -> Value {
    let path: Vec<Value> = issue
        .path
        .iter()
        .map(|p| match p {
            PathSegment::Key(k) => json!(k),
            PathSegment::Index(i) => json!(i),
        })
        .collect();
    json!({
        "code": issue.code.as_str(),
        "expected": issue.expected,
        "received": shortened(&issue.received),
        "path": path,
        "message": issue.message,
    })
}

/// Most characters of a value a validation issue echoes in `received`.
pub const MAX_RECEIVED_CHARS: usize = 200;

/// `received` as sent back: a long value is cut after [`MAX_RECEIVED_CHARS`] characters with
/// its length said, so a refused 1 MB string does not come back as a 1 MB error.
fn shortened(received: &str) -> String {
    match received.char_indices().nth(MAX_RECEIVED_CHARS) {
        None => received.to_owned(),
        Some((end, _)) => format!(
            "{}... ({} characters)",
            &received[..end],
            received.chars().count()
        ),
    }
}

/// 400 INVALID_INPUT with `details.validationErrors`.
pub fn invalid(errors: &ValidationErrors) -> ApiError {
    let description = match errors.0.as_slice() {
        [one] => one.message.clone(),
        many => format!(
            "{} validation errors: {}",
            many.len(),
            errors
                .0
                .iter()
                .map(|i| i.message.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        ),
    };
    ApiError::new(ErrorName::InvalidInput, description).with_detail(
        "validationErrors",
        Value::Array(errors.0.iter().map(issue_json).collect()),
    )
}

/// A body over a size limit: 400 INVALID_INPUT, the spec's status for invalid input, with a
/// `too_big` issue at the root of the body naming the limit.
pub fn body_too_large(limit: &str) -> ApiError {
    invalid(&ValidationErrors(vec![ValidationIssue::new(
        IssueCode::TooBig,
        vec![],
        format!("a body of at most {limit}"),
        "a larger body",
        format!("the body is larger than {limit}"),
    )]))
}

impl From<ValidationErrors> for ApiError {
    fn from(errors: ValidationErrors) -> Self {
        invalid(&errors)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        ApiError::internal(e)
    }
}

impl From<ServiceError> for ApiError {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::Invalid(errors) => invalid(&errors),
            ServiceError::NotFound(what) => ApiError::not_found(what),
            ServiceError::Permission(message) => ApiError::new(ErrorName::Permission, message),
            ServiceError::GeocodingFailed(message) => {
                ApiError::new(ErrorName::GeocodingFailed, message)
            }
            ServiceError::Store(StoreError::Conflict(message)) if message == CLAIM_LOST => {
                ApiError::new(
                    ErrorName::IdempotencyRequestInProgress,
                    "this request's idempotency-key was taken over by a retry; nothing was changed",
                )
            }
            ServiceError::Unavailable {
                message,
                retry_after_s,
            } => ApiError::new(ErrorName::ServiceUnavailable, message)
                .with_detail("retry_after_seconds", json!(retry_after_s))
                .with_header(
                    axum::http::header::RETRY_AFTER,
                    axum::http::HeaderValue::from(retry_after_s),
                ),
            ServiceError::AlreadyDispatched => ApiError::new(
                ErrorName::AlreadyDispatched,
                "already dispatched; dispatch is one-way",
            ),
            ServiceError::Store(e) => ApiError::internal(e),
        }
    }
}

/// 404 for a path the service does not have.
pub async fn unknown_path(method: Method, uri: Uri) -> ApiError {
    unknown_path_error(&method, uri.path())
}

/// The 404 of a path nothing serves, for routers that answer unknown paths themselves (the
/// console's files).
pub fn unknown_path_error(method: &Method, path: &str) -> ApiError {
    ApiError::new(
        ErrorName::ResourceNotFound,
        format!("no endpoint {method} {path}"),
    )
}

/// 405 for a known path called with a method it does not support.
pub async fn wrong_method(method: Method, uri: Uri) -> ApiError {
    let mut e = ApiError::new(
        ErrorName::InvalidInput,
        format!("method {method} is not supported on {}", uri.path()),
    );
    e.status = StatusCode::METHOD_NOT_ALLOWED;
    e
}

/// 500 for a handler that panicked; the panic message is logged, never sent.
pub fn panic_response(panic: Box<dyn Any + Send + 'static>) -> Response {
    let message = panic
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| panic.downcast_ref::<&str>().copied())
        .unwrap_or("unknown panic");
    ApiError::internal(format!("handler panicked: {message}")).into_response()
}

/// Wraps any error response that is not already JSON (axum's own rejections, tower-http's
/// limits) into the envelope, keeping its status and headers such as `Allow`; a 413 becomes
/// [`body_too_large`] (400).
pub async fn envelope_bare_errors(response: Response) -> Response {
    let status = response.status();
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response;
    }
    if status == StatusCode::PAYLOAD_TOO_LARGE {
        let (parts, _) = response.into_parts();
        let mut response = body_too_large("the size limit").into_response();
        for (name, value) in parts.headers.iter() {
            if name != header::CONTENT_LENGTH && name != header::CONTENT_TYPE {
                response.headers_mut().insert(name.clone(), value.clone());
            }
        }
        return response;
    }
    let (mut parts, _) = response.into_parts();
    let name = match status {
        StatusCode::NOT_FOUND => ErrorName::ResourceNotFound,
        StatusCode::UNAUTHORIZED => ErrorName::Unauthorized,
        StatusCode::FORBIDDEN => ErrorName::Forbidden,
        StatusCode::SERVICE_UNAVAILABLE => ErrorName::ServiceUnavailable,
        s if s.is_server_error() => ErrorName::InternalServerError,
        _ => ErrorName::InvalidInput,
    };
    let description = status
        .canonical_reason()
        .unwrap_or("request failed")
        .to_lowercase();
    let mut error = ApiError::new(name, description);
    error.status = status;
    let body = serde_json::to_vec(&error.body()).unwrap_or_default();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(body))
}
