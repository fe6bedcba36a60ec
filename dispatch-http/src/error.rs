//! The one place where errors become the spec's envelope
//! `{ name, statusCode, description, details }`; `details` is always an object.

use axum::http::{header::HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

/// The error names of the v2 interface, each with its HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorName {
    /// 400: the request breaks a rule; `details.validationErrors` lists every issue.
    InvalidInput,
    /// 404: no such path, or no such record in the caller's depot.
    ResourceNotFound,
    /// 401: no access key, or one that is not valid.
    Unauthorized,
    /// 403: refused; a rate limit exhausted, for callers without the `rate-limit-429` token.
    Forbidden,
    /// 403: the key may not do this (a `read` key writing).
    Permission,
    /// 429: a rate limit is exhausted (callers with the `rate-limit-429` token).
    RateLimitExceeded,
    /// 410: what was asked for is no longer there.
    Gone,
    /// 409: the plan or route is dispatched already; dispatch is one-way.
    AlreadyDispatched,
    /// 503: the service cannot do this now; `Retry-After` says when to try again.
    ServiceUnavailable,
    /// 500: a fault of the service; the cause is logged, never sent.
    InternalServerError,
    /// 400: an address the geocoder could not place.
    GeocodingFailed,
    /// 422: an `idempotency-key` sent again with another body.
    IdempotencyKeyReusedWithDifferentBody,
    /// 409: the first request with this `idempotency-key` is still running.
    IdempotencyRequestInProgress,
    /// 400: an `idempotency-key` that is empty or longer than 255 characters.
    IdempotencyInvalidKey,
}

impl ErrorName {
    /// The name as the envelope spells it (`INVALID_INPUT`).
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorName::InvalidInput => "INVALID_INPUT",
            ErrorName::ResourceNotFound => "RESOURCE_NOT_FOUND",
            ErrorName::Unauthorized => "UNAUTHORIZED",
            ErrorName::Forbidden => "FORBIDDEN",
            ErrorName::Permission => "PERMISSION",
            ErrorName::RateLimitExceeded => "RATE_LIMIT_EXCEEDED",
            ErrorName::Gone => "GONE",
            ErrorName::AlreadyDispatched => "ALREADY_DISPATCHED",
            ErrorName::ServiceUnavailable => "SERVICE_UNAVAILABLE",
            ErrorName::InternalServerError => "INTERNAL_SERVER_ERROR",
            ErrorName::GeocodingFailed => "GEOCODING_FAILED",
            ErrorName::IdempotencyKeyReusedWithDifferentBody => {
                "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY"
            }
            ErrorName::IdempotencyRequestInProgress => "IDEMPOTENCY_REQUEST_IN_PROGRESS",
            ErrorName::IdempotencyInvalidKey => "IDEMPOTENCY_INVALID_KEY",
        }
    }

    /// The HTTP status the name answers with.
    pub fn status(self) -> StatusCode {
        match self {
            ErrorName::InvalidInput
            | ErrorName::IdempotencyInvalidKey
            | ErrorName::GeocodingFailed => StatusCode::BAD_REQUEST,
            ErrorName::ResourceNotFound => StatusCode::NOT_FOUND,
            ErrorName::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorName::Forbidden | ErrorName::Permission => StatusCode::FORBIDDEN,
            ErrorName::RateLimitExceeded => StatusCode::TOO_MANY_REQUESTS,
            ErrorName::Gone => StatusCode::GONE,
            ErrorName::AlreadyDispatched | ErrorName::IdempotencyRequestInProgress => {
                StatusCode::CONFLICT
            }
            ErrorName::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
            ErrorName::InternalServerError => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorName::IdempotencyKeyReusedWithDifferentBody => StatusCode::UNPROCESSABLE_ENTITY,
        }
    }
}

/// An error on its way to the client.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The envelope's `name`.
    pub name: ErrorName,
    /// The response status (the name's, unless a caller chose another).
    pub status: StatusCode,
    /// The envelope's `description`, for people.
    pub description: String,
    /// The envelope's `details` (always an object).
    pub details: Map<String, Value>,
    /// Headers the response carries besides the envelope (`Retry-After`, `Allow`).
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl ApiError {
    /// An error of `name` with its status, `description` and empty details.
    pub fn new(name: ErrorName, description: impl Into<String>) -> Self {
        ApiError {
            name,
            status: name.status(),
            description: description.into(),
            details: Map::new(),
            headers: Vec::new(),
        }
    }

    /// Adds `key: value` to the envelope's `details`.
    pub fn with_detail(mut self, key: &str, value: Value) -> Self {
        self.details.insert(key.to_owned(), value);
        self
    }

    /// Adds a header to the response.
    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    /// 404 RESOURCE_NOT_FOUND: "`what` not found".
    pub fn not_found(what: &str) -> Self {
        ApiError::new(ErrorName::ResourceNotFound, format!("{what} not found"))
    }

    /// A 500 whose cause is logged here and never sent.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(%cause, "internal error");
        ApiError::new(ErrorName::InternalServerError, "internal server error")
    }

    /// The envelope as JSON.
    pub fn body(&self) -> Value {
        let envelope = Envelope {
            name: self.name,
            status_code: self.status.as_u16(),
            description: self.description.clone(),
            details: self.details.clone(),
        };
        serde_json::to_value(envelope).expect("an envelope serialises")
    }
}

/// The spec's error envelope, the body of every error response.
#[derive(Debug, Serialize, ToSchema)]
pub struct Envelope {
    /// The error's name.
    pub name: ErrorName,
    /// The HTTP status, repeated.
    #[serde(rename = "statusCode")]
    pub status_code: u16,
    /// What went wrong, for people.
    pub description: String,
    /// Always an object, possibly empty.
    #[schema(value_type = ErrorDetails)]
    pub details: Map<String, Value>,
}

/// What `details` may carry; other keys name the entity concerned (`id`, `order_number`, ...).
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct ErrorDetails {
    /// INVALID_INPUT: every schema or rule violation found.
    #[serde(rename = "validationErrors")]
    validation_errors: Option<Vec<ValidationIssueWire>>,
    /// Rate-limit errors: the same value as `Retry-After`.
    retry_after_seconds: Option<u64>,
}

/// One entry of `details.validationErrors`.
#[derive(Serialize, ToSchema)]
#[allow(dead_code)]
pub struct ValidationIssueWire {
    /// For example `invalid_type`, `too_big`, `custom`.
    code: String,
    /// What was expected.
    expected: String,
    /// What was received.
    received: String,
    /// Where, from the body's (or query's) root: property names and array indices.
    path: Vec<PathSegmentWire>,
    /// For people.
    message: String,
}

/// A property name or an array index.
#[derive(Serialize, ToSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum PathSegmentWire {
    /// A property.
    Key(String),
    /// An index.
    Index(u64),
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (self.status, Json(self.body())).into_response();
        for (name, value) in self.headers {
            response.headers_mut().insert(name, value);
        }
        response
    }
}
