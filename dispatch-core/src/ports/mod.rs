//! The ports through which the core meets the outside world. Adapters implement them;
//! each has an in-memory or offline implementation here for tests and examples, except
//! [`access_keys`], whose one implementation lives beside the hash it needs (dispatch-http).

pub mod access_keys;
pub mod clock;
pub mod geocoder;
pub mod idempotency;
pub mod images;
pub mod matrix;
pub mod notifier;
pub mod rate_limit;
pub mod roads;
pub mod store;
pub mod tracking;
