//! The middleware on the real router over a real SQLite file (temp dir) with a manual clock:
//! rate tiers, idempotency, feature tokens, request ids and the paging wire on real endpoints.

mod harness;

mod features;
mod idempotency;
mod lists;
mod rate_limits;
