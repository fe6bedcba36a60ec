//! HTTP tests of the v2 API: the real router over a real database (SQLite, or PostgreSQL with
//! `DISPATCH_TEST_DB=postgres`), spoken to in JSON.

#[path = "../browser/mod.rs"]
mod browser;
#[allow(dead_code)] // shared with the other test crates, which use different parts
mod common;
#[allow(dead_code)]
#[path = "../contract/mod.rs"]
mod contract;

mod auth;
mod console;
mod docs_page;
mod envelope;
mod hardening;
mod isolation;
mod nested_bodies;
mod nul_text;
mod openapi;
mod openapi_browser;
mod openapi_paths;
mod reference;
mod request_bodies;
mod seed;
mod vehicle_properties;
mod vehicles;
mod zones;
