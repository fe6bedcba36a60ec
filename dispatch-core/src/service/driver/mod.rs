//! The driver side's use cases: credentials per vehicle (managed by the depot), and what a
//! driver does with its vehicle's dispatched routes: read the day, start, report positions
//! (the track, `actual_distance`, ETAs and the on-delivery moment), arrive at, complete or fail
//! stops, write notes and record calls, complete the route; and the feed of route changes
//! pushed to the driver.
//!
//! A driver reaches only routes that are dispatched and assigned to its vehicle. Every other
//! route or stop — another vehicle's, an undispatched one, another depot's or one that does not
//! exist — is answered alike ([`ServiceError::NotFound`](crate::service::ServiceError)), so a
//! credential learns nothing about routes it may not touch.

pub mod access;
pub mod credentials;
pub mod day;
pub mod eta;
pub mod feed;
pub mod progress;
pub mod rules;
pub mod track;
pub mod visits;

pub use access::{owned_route, owned_stop};
