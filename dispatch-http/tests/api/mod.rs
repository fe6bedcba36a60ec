//! HTTP tests of the v2 API: the real router over a real database (SQLite, or PostgreSQL with
//! `DISPATCH_TEST_DB=postgres`), spoken to in JSON.

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
