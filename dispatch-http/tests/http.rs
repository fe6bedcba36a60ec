//! The HTTP tests of the adapter in one test binary (one link instead of five): the real router
//! over a real database (a SQLite file in a temp dir, or PostgreSQL with
//! `DISPATCH_TEST_DB=postgres`), one module per surface. `fuzz.rs` (a counting global
//! allocator) and `request_log.rs` (the process's log output) stay binaries of their own.
//!
//! `cargo test -p dispatch-http --test http route_api::` runs one surface.

#[path = "browser/mod.rs"]
mod browser;
#[allow(dead_code)] // each surface uses its own part
#[path = "api/common/mod.rs"]
mod common;
#[allow(dead_code)]
#[path = "contract/mod.rs"]
mod contract;
use common::{exchange, test_db};

mod api;
mod middleware;
mod order_api;
mod plan_api;
mod route_api;
