//! Use cases written against the ports. Each opens its own transaction(s) and returns typed
//! outcomes; adapters map [`ServiceError`] to their wire format once.

pub mod booking;
pub mod customers;
pub mod depots;
pub mod dispatch;
pub mod driver;
pub mod leases;
pub mod notifications;
pub mod optimisation;
pub mod order_events;
mod order_geocoding;
pub mod order_reads;
mod order_references;
pub mod order_statuses;
pub mod orders;
pub mod plan_reads;
pub mod plans;
pub mod pod;
pub mod promise;
pub mod route_day;
pub mod route_orders;
pub mod routes;
pub mod seed;
pub mod stop_records;
pub mod tracking;
pub mod vehicles;
pub mod zones;

use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::ports::store::StoreError;

/// Why a use case did not complete.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServiceError {
    /// The input broke field or business rules (400 INVALID_INPUT).
    #[error(transparent)]
    Invalid(#[from] ValidationErrors),
    /// The addressed resource is not in the caller's depot (404 RESOURCE_NOT_FOUND).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// The caller may not do this (403 PERMISSION).
    #[error("{0}")]
    Permission(String),
    /// An address could not be geocoded where the spec makes that an error.
    #[error("geocoding failed: {0}")]
    GeocodingFailed(String),
    /// The service cannot take the request now (a full queue); retry after some seconds
    /// (503 SERVICE_UNAVAILABLE with Retry-After).
    #[error("{message}")]
    Unavailable {
        /// A sentence for people.
        message: String,
        /// Seconds to wait before retrying.
        retry_after_s: u64,
    },
    /// A repeat dispatch of a plan or route (409 ALREADY_DISPATCHED).
    #[error("already dispatched")]
    AlreadyDispatched,
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A store read of one resource, turned into the use case's answer: the resource, or
/// [`ServiceError::NotFound`] naming `what` when the caller's depot has none.
pub(crate) trait Found<T> {
    fn found(self, what: &'static str) -> Result<T, ServiceError>;
}

impl<T> Found<T> for Result<Option<T>, StoreError> {
    fn found(self, what: &'static str) -> Result<T, ServiceError> {
        self?.ok_or(ServiceError::NotFound(what))
    }
}

impl ServiceError {
    /// A single business-rule violation at `path`.
    pub fn invalid(
        path: Vec<PathSegment>,
        expected: &str,
        received: &str,
        message: &str,
    ) -> ServiceError {
        let mut errors = ValidationErrors::default();
        errors.push(ValidationIssue::new(
            IssueCode::Custom,
            path,
            expected,
            received,
            message,
        ));
        ServiceError::Invalid(errors)
    }
}
