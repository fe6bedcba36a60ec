//! Port: idempotency.
