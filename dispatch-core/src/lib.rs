//! dispatch-core: the domain, the rules, the ports and the VRP solver of dispatch.
//!
//! Invariants: this crate does no I/O, reads no clock (time comes through [`ports::clock::Clock`]),
//! spawns no thread outside the solver's rayon pool, and depends on no async runtime, database
//! or HTTP crate.

#![warn(missing_docs)]

pub mod error;
pub mod events;
pub mod model;
pub mod paging;
pub mod patch;
pub mod ports;
pub mod service;
pub mod solver;
pub mod status;
pub mod time;
