//! The driver side's use cases: credentials per vehicle (managed by the depot), and what a
//! driver does with its vehicle's dispatched routes.
//!
//! A driver reaches only routes that are dispatched and assigned to its vehicle. Every other
//! route or stop — another vehicle's, an undispatched one, another depot's or one that does not
//! exist — is answered alike ([`ServiceError::NotFound`]), so a credential learns nothing
//! about routes it may not touch.

pub mod access;
pub mod credentials;
pub mod day;

pub use access::{owned_route, owned_stop};
