//! Umbrella package: owns the workspace's `examples/`, `benches/` and end-to-end `tests/`.
//! The real code lives in `dispatch-core`, `dispatch-store-sqlite`, `dispatch-http` and
//! `dispatch-server`.

pub use dispatch_core as core;
pub use dispatch_http as http;
pub use dispatch_store_sqlite as store_sqlite;

pub mod depot_day;
