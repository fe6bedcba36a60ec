//! Migrations both SQL stores apply from the same file: written in types both dialects read
//! the same way (`BIGINT` has INTEGER affinity on SQLite), each listed in either store's own
//! migration list at its own number there. A shared file, like every applied migration, never
//! changes once released; a change is a new migration in both lists.

/// Revoked access-key names (SQLite's migration 11, PostgreSQL's 2).
pub const ACCESS_KEY_REVOCATIONS: &str = include_str!("../migrations/access_key_revocations.sql");

/// Optimisation and work leases for several nodes (SQLite's migration 12, PostgreSQL's 4).
pub const NODE_LEASES: &str = include_str!("../migrations/node_leases.sql");

/// Notification sends under leases (SQLite's migration 13, PostgreSQL's 5).
pub const NOTIFICATION_LEASES: &str = include_str!("../migrations/notification_leases.sql");

/// Routes' planned breaks (SQLite's migration 19, PostgreSQL's 9).
pub const ROUTE_BREAKS: &str = include_str!("../migrations/route_breaks.sql");
