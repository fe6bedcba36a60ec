//! The PostgreSQL store's tests, each on a throwaway cluster: the core's conformance suite,
//! what only this store has (nodes sharing one database), the shared rate limits, and the
//! schema check against the SQLite store's.

mod conformance;
mod depot_writes;
mod order_statements;
mod order_writes;
mod rate_limits;
mod schema;
mod store;
