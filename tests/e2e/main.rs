//! End-to-end tests of the `dispatch` binary, one harness (one binary to link): the binary
//! as a subprocess over a test database (SQLite, or PostgreSQL with
//! `DISPATCH_TEST_DB=postgres`), spoken to over raw HTTP/1.1 as an outside client would.
//! One module per concern; the modules below `support` are the helpers they share.

#[path = "../support/day_checker.rs"]
mod day_checker;
#[path = "../support/day_observer.rs"]
mod day_observer;
#[path = "../support/driver_day.rs"]
mod driver_day;
#[path = "../support/driver_day_pod.rs"]
mod driver_day_pod;
#[path = "webhooks/receiver.rs"]
mod receiver;
#[path = "../support/simulated_day.rs"]
mod simulated_day;
#[path = "../support/simulated_day_setup.rs"]
mod simulated_day_setup;
#[path = "../support/simulated_drivers.rs"]
mod simulated_drivers;
#[path = "../support/mod.rs"]
mod support;

mod checker_rules;
mod conformance_cli;
mod conformance_envelope;
mod conformance_idempotency;
mod conformance_isolation;
mod conformance_paging;
mod conformance_rate_limits;
mod conformance_resources;
mod connection_limits;
mod crash_idempotency;
mod documents;
mod driver_walkthrough;
mod first_start;
mod full_day;
mod geocoding;
mod graceful_shutdown;
mod layering;
mod memory_limits;
mod metrics;
mod notifications;
mod operator_config;
mod operator_keys;
mod operator_logs;
mod operator_secrets;
mod plans_binary;
mod pod_binary;
mod protocol_errors;
mod public_url;
mod readme_walkthrough;
mod sample_depots;
mod serve_and_seed;
mod simulated_clock;
mod simulated_short_day;
mod walkthroughs;
mod webhooks;
