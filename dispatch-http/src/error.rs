//! The one place where errors become the spec's envelope
//! `{ name, statusCode, description, details }`; `details` is always an object.

use axum::http::{header::HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Map, Value};

/// The error names of the v2 interface, each with its HTTP status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorName {
    InvalidInput,
    ResourceNotFound,
    Unauthorized,
    Forbidden,
    Permission,
    RateLimitExceeded,
    Gone,
    AlreadyDispatched,
    ServiceUnavailable,
    InternalServerError,
    GeocodingFailed,
    IdempotencyKeyReusedWithDifferentBody,
    IdempotencyRequestInProgress,
    IdempotencyInvalidKey,
}

impl ErrorName {
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
    pub name: ErrorName,
    pub status: StatusCode,
    pub description: String,
    pub details: Map<String, Value>,
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl ApiError {
    pub fn new(name: ErrorName, description: impl Into<String>) -> Self {
        ApiError {
            name,
            status: name.status(),
            description: description.into(),
            details: Map::new(),
            headers: Vec::new(),
        }
    }

    pub fn with_detail(mut self, key: &str, value: Value) -> Self {
        self.details.insert(key.to_owned(), value);
        self
    }

    pub fn with_header(mut self, name: HeaderName, value: HeaderValue) -> Self {
        self.headers.push((name, value));
        self
    }

    pub fn not_found(what: &str) -> Self {
        ApiError::new(ErrorName::ResourceNotFound, format!("{what} not found"))
    }

    /// A 500 whose cause is logged here and never sent.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(%cause, "internal error");
        ApiError::new(ErrorName::InternalServerError, "internal server error")
    }

    pub fn body(&self) -> Value {
        json!({
            "name": self.name.as_str(),
            "statusCode": self.status.as_u16(),
            "description": self.description,
            "details": Value::Object(self.details.clone()),
        })
    }
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
