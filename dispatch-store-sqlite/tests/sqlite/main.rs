//! The SQLite store's tests: the core's conformance suite on SQLite, and what only this store
//! has (migrations, pragmas, durability across reopening, backups, the outbox observer, the
//! writer thread).

mod backup;
mod conformance;
mod order_store;
mod outbox_store;
mod plan_store;
mod store;
mod writer;
