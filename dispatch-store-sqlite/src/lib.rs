pub mod idempotency;
