//! The middleware on the real router over a real SQLite file (temp dir) with a manual clock:
//! rate tiers, idempotency, feature tokens, request ids, on the endpoints that exist.

mod harness;

mod features;
mod idempotency;
mod rate_limits;
