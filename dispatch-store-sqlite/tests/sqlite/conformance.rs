//! The store conformance suite of dispatch-core (`ports::store::conformance`, the same
//! scenarios the in-memory and PostgreSQL stores pass), run on SQLite files.

use dispatch_store_sqlite::SqliteStore;

dispatch_core::store_conformance!(
    let dir = tempfile::tempdir().unwrap();
    SqliteStore::open(dir.path().join("conformance.db")).unwrap()
);
