//! dispatch-core: the domain, the rules, the ports and the VRP solver of dispatch.
//!
//! Invariants: this crate does no I/O, reads no clock (time comes through [`ports::clock::Clock`]),
//! spawns no thread outside the solver's rayon pool, and depends on no async runtime, database
//! or HTTP crate.
//!
//! # Where to begin
//!
//! - **Running a depot's day in your own program**: open a store (the in-memory
//!   [`ports::store::InMemoryStore`] here; `dispatch_store_sqlite::SqliteStore::open(path)` or
//!   `dispatch_store_postgres::PostgresStore` for data that lasts), then call the use cases of
//!   [`service`], one module per resource or flow: [`service::vehicles`], [`service::orders`],
//!   [`service::plans`] (queue an optimisation) and [`service::optimisation::run_job`] (run it),
//!   [`service::dispatch`], [`service::route_orders`]. Each takes the store, the caller's
//!   [`model::organisation::DepotScope`] and the time as arguments and returns typed results or
//!   a [`service::ServiceError`]. Writes are built from the core's own types:
//!   [`model::vehicle::VehiclePatch::named`] and [`model::order_input::OrderInput::delivery`]
//!   (or [`model::order_input::OrderInput::new`]) and their typed setters give the same
//!   values the HTTP adapter reads from JSON, checked by the same rules. The repository's
//!   `examples/embed_day.rs` plans and dispatches a whole day this way over SQLite.
//! - **The types**: [`model`] (one module per domain concept, with its rules), [`status`]
//!   (order statuses and their transitions), [`events`] (what a change tells the outside).
//! - **What the core needs from the world**: the traits of [`ports`] (storage, clock, travel
//!   times, geocoding, notification senders, image codec), each with an implementation for
//!   tests.
//! - **Only the solver**: [`solver::solve`] on a [`solver::problem::Problem`] (read one with
//!   [`solver::formats`]); it knows nothing of orders or depots.
//!
//! Use cases take the ports as arguments, so the core runs as well on the in-memory store as on
//! SQLite:
//!
//! ```
//! use dispatch_core::model::organisation::DepotSettings;
//! use dispatch_core::model::vehicle::VehiclePatch;
//! use dispatch_core::ports::store::{InMemoryStore, NewDepot, Store, StoreError};
//! use dispatch_core::service::vehicles;
//! use dispatch_core::time::{TimeOfDay, Timestamp};
//!
//! let store = InMemoryStore::new();
//! let now = Timestamp::from_millis(0);
//! let scope = (&store as &dyn Store)
//!     .transaction(|tx| {
//!         let org = tx.insert_organisation("Acme", now)?;
//!         let depot = NewDepot {
//!             name: "North".into(),
//!             address: None,
//!             location: None,
//!             settings: DepotSettings::default(),
//!         };
//!         Ok::<_, StoreError>(tx.insert_depot(org.id, &depot, now)?.scope())
//!     })
//!     .unwrap();
//! let at = |text| TimeOfDay::parse(text).unwrap();
//! let van = VehiclePatch::named("Van 1").shift(at("17:00"), at("08:00"));
//! // The shift ends before it starts: refused, with the path of the offending field.
//! let refused = vehicles::create(&store, scope, &van, now, &()).unwrap_err();
//! assert!(refused.to_string().contains("shift_start must be before shift_end"));
//! ```

pub mod error;
pub mod events;
pub mod model;
pub mod optimise;
pub mod paging;
pub mod patch;
pub mod ports;
pub mod service;
pub mod solver;
pub mod status;
pub mod time;
pub mod webhook;
