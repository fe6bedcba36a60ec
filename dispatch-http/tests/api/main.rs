//! HTTP tests of the v2 API: the real router over a real SQLite file, spoken to in JSON.

#[allow(dead_code)] // shared with the other test crates, which use different parts
mod common;
#[allow(dead_code)]
#[path = "../contract/mod.rs"]
mod contract;

mod auth;
mod console;
mod envelope;
mod hardening;
mod isolation;
mod openapi;
mod reference;
mod seed;
mod vehicles;
mod zones;
