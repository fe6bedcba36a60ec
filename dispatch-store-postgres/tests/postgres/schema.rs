//! One schema on two stores: each store's migrations applied to a fresh database (SQLite in a
//! temporary file, PostgreSQL in the throwaway cluster), the catalogs read back and compared
//! with only the dialect differences dispatch-store-sql's `schema` module lists.

use dispatch_store_postgres::PostgresStore;
use dispatch_store_sql::schema::{differences, Catalog};
use dispatch_store_sqlite::SqliteStore;

fn sqlite_catalog() -> Catalog {
    let dir = tempfile::tempdir().unwrap();
    SqliteStore::open(dir.path().join("schema.db"))
        .unwrap()
        .catalog()
        .unwrap()
}

fn postgres_store() -> (PostgresStore, String) {
    let url = crate::store::cluster().create_empty_database().unwrap();
    (PostgresStore::open(&url).unwrap(), url)
}

#[test]
fn both_stores_migrations_describe_the_same_tables_columns_and_constraints() {
    let sqlite = sqlite_catalog();
    let (postgres, _) = postgres_store();
    let postgres = postgres.catalog().unwrap();
    // The catalogs are read for real: a check over two empty catalogs would pass vacuously.
    let orders = &sqlite.tables["orders"];
    assert!(orders.columns.len() > 20, "{orders:?}");
    assert!(!orders.foreign_keys.is_empty() && !orders.unique.is_empty());
    assert!(sqlite.tables.len() > 40, "{:?}", sqlite.tables.keys());
    let found = differences(&sqlite, &postgres);
    assert!(
        found.is_empty(),
        "the stores' migrations describe different schemas:\n{}",
        found.join("\n")
    );
}

/// The check against a migration written differently on one store: a column left nullable, a
/// column and a unique index only one store adds, a foreign key with another delete rule.
#[test]
fn a_drifted_postgresql_migration_fails_the_schema_check() {
    let sqlite = sqlite_catalog();
    let (store, url) = postgres_store();
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    client
        .batch_execute(
            "ALTER TABLE orders ALTER COLUMN depot_id DROP NOT NULL;
             ALTER TABLE stops ADD COLUMN drifted BIGINT;
             CREATE UNIQUE INDEX tags_drifted ON tags (name);
             ALTER TABLE access_key_revocations DROP CONSTRAINT access_key_revocations_depot_id_fkey,
                 ADD FOREIGN KEY (depot_id) REFERENCES depots(id) ON DELETE CASCADE;",
        )
        .unwrap();
    let found = differences(&sqlite, &store.catalog().unwrap());
    assert_eq!(
        found,
        vec![
            "access_key_revocations: FOREIGN KEY (depot_id) REFERENCES depots (id) ON DELETE NO \
             ACTION only on SQLite",
            "access_key_revocations: FOREIGN KEY (depot_id) REFERENCES depots (id) ON DELETE \
             CASCADE only on PostgreSQL",
            "orders.depot_id: NOT NULL on SQLite, NULL on PostgreSQL",
            "stops.drifted: only on PostgreSQL",
            "tags: UNIQUE (name) only on PostgreSQL",
        ],
        "{found:#?}"
    );
}
