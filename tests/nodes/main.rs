//! Several `dispatch` processes on one throwaway PostgreSQL database (always PostgreSQL,
//! whatever `DISPATCH_TEST_DB` says): API nodes and workers sharing the work, `seed` and the
//! operator's commands against a running cluster, webhooks of depots whose writers commit in
//! parallel.

#[path = "../e2e/webhooks/receiver.rs"]
mod receiver;
#[path = "../support/mod.rs"]
mod support;

mod nodes;
mod postgres_binary;
mod webhooks;
