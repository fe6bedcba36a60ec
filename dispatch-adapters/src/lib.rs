//! dispatch-adapters: the outbound adapters behind dispatch-core's ports, on one HTTP client
//! (reqwest) where they speak HTTP.
//!
//! - [`travel`]: travel matrices: an OSRM server's road network, with great-circle travel as
//!   the fall-back (the `TravelMatrix` port).
//! - [`geocoding`]: addresses to positions: the depot's gazetteer, then the answers kept in
//!   the store, then a geocoder speaking Nominatim's search API (the `Geocoder` port).
//! - [`notifications`]: e-mail over SMTP and SMS through an HTTP gateway (the
//!   `NotificationSender` port).
//! - [`webhook`]: the HTTP POST of one webhook delivery attempt.
//! - [`images`]: the proof-of-delivery image codec (the `ImageCodec` port).
//! - [`redact`]: operators' URLs as they may be logged (no credentials).

pub mod geocoding;
mod http;
pub mod images;
pub mod notifications;
pub mod redact;
pub mod travel;
pub mod webhook;
