//! What only the SQLite store has (migrations, pragmas, cascades, durability across reopen);
//! the behaviour every store shares is `conformance.rs`.

use dispatch_core::model::location::Coordinates;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::organisation::KeyPermission;
use dispatch_core::model::reference::CapacityAmount;
use dispatch_core::ports::geocoder::{GazetteerEntry, GeocodeQuery, Geocoder};
use dispatch_core::ports::store::conformance::at;
use dispatch_core::ports::store::conformance::orders::order;
use dispatch_core::ports::store::conformance::reference::{fields, setup};
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_store_sqlite::{SqliteGazetteer, SqliteStore, SCHEMA_VERSION};

#[test]
fn migrations_run_once_and_data_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.db");
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let (a, _, _) = setup(&store);
    drop(store);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let s: &dyn Store = &store;
    assert_eq!(s.read(|tx| tx.get_depot(a)).unwrap().unwrap().name, "A");
}

/// Takes the database at `path` back to schema `version`: every row stays, the id allocators
/// later migrations added (their tables and `sqlite_sequence` rows) and the columns they added
/// go.
fn back_to_version(path: &std::path::Path, version: u32) {
    // The tables each later migration added.
    let added_by = [
        (14, "vehicle_ids"),
        (15, "line_item_ids"),
        (15, "access_key_ids"),
        (16, "active_route_orders"),
        (18, "geocode_cache"),
    ];
    let columns = [
        (17, "stops", "wait"),
        (17, "optimisations", "travel"),
        (17, "driver_visits", "start_eta_ts"),
        (19, "routes", "breaks"),
    ];
    let conn = rusqlite::Connection::open(path).unwrap();
    for (_, table, column) in columns.iter().filter(|(added, _, _)| *added > version) {
        conn.execute_batch(&format!("ALTER TABLE {table} DROP COLUMN {column};"))
            .unwrap();
    }
    for (_, table) in added_by.iter().filter(|(added, _)| *added > version) {
        conn.execute_batch(&format!(
            "DROP TABLE {table}; DELETE FROM sqlite_sequence WHERE name = '{table}';"
        ))
        .unwrap();
    }
    conn.pragma_update(None, "user_version", version).unwrap();
}

#[test]
fn a_database_from_before_the_line_item_and_key_allocators_continues_past_their_largest_ids() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("l.db");
    let store = SqliteStore::open(&path).unwrap();
    let (a, _, _) = setup(&store);
    let s: &dyn Store = &store;
    let (order_id, key) = s
        .transaction(|tx| {
            let mut two = order("O1", 1);
            let mut second = two.line_items[0].clone();
            second.product_code = "P2".into();
            two.line_items.push(second);
            let id = tx.insert_order(a, &two)?;
            let key = tx.insert_access_key(a, "k", KeyPermission::All, [3; 32], at(1))?;
            Ok::<_, StoreError>((id, key))
        })
        .unwrap();
    drop(store);
    back_to_version(&path, 14);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let s: &dyn Store = &store;
    let stored = s.read(|tx| tx.get_order(a, order_id)).unwrap().unwrap();
    let newest = stored.line_items[1].id;
    let mut shorter = stored.clone();
    shorter.line_items.truncate(1);
    s.transaction(|tx| tx.update_order(a, &shorter)).unwrap();
    let mut readded = shorter.clone();
    let mut fresh = stored.line_items[1].clone();
    fresh.id = 0;
    readded.line_items.push(fresh);
    s.transaction(|tx| tx.update_order(a, &readded)).unwrap();
    let next = s.read(|tx| tx.get_order(a, order_id)).unwrap().unwrap();
    assert!(
        next.line_items[1].id > newest,
        "line item id {} after the removed {newest}",
        next.line_items[1].id
    );
    assert!(s
        .transaction(|tx| tx.revoke_access_key(a, "k", at(2)))
        .unwrap());
    let again = s
        .transaction(|tx| tx.insert_access_key(a, "k2", KeyPermission::All, [4; 32], at(3)))
        .unwrap();
    assert!(
        again.id > key.id,
        "key id {} after the revoked {}",
        again.id,
        key.id
    );
}

#[test]
fn a_database_from_before_the_vehicle_id_allocator_continues_past_its_largest_vehicle_id() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v.db");
    let store = SqliteStore::open(&path).unwrap();
    let (a, _, _) = setup(&store);
    let s: &dyn Store = &store;
    let newest = s
        .transaction(|tx| {
            tx.insert_vehicle(a, &fields("V1", &[], vec![]), at(1))?;
            tx.insert_vehicle(a, &fields("V2", &[], vec![]), at(1))
        })
        .unwrap();
    drop(store);
    // Back to the schema before migration 0014: vehicles exist, their allocator does not.
    back_to_version(&path, 13);
    let store = SqliteStore::open(&path).unwrap();
    assert_eq!(store.schema_version().unwrap(), SCHEMA_VERSION);
    let s: &dyn Store = &store;
    assert!(s.transaction(|tx| tx.delete_vehicle(a, newest)).unwrap());
    let next = s
        .transaction(|tx| tx.insert_vehicle(a, &fields("V3", &[], vec![]), at(2)))
        .unwrap();
    assert!(
        next > newest,
        "vehicle id {next} after the deleted {newest}"
    );
}

#[test]
fn a_database_from_a_newer_program_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.db");
    drop(SqliteStore::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("PRAGMA user_version = 99").unwrap();
    drop(conn);
    let err = SqliteStore::open(&path).unwrap_err();
    assert!(err.to_string().contains("newer"), "{err}");
}

#[test]
fn the_database_runs_in_wal_mode_with_foreign_keys() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("p.db");
    let store = SqliteStore::open(&path).unwrap();
    setup(&store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |r| r.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let s: &dyn Store = &store;
    // A row pointing at a missing depot is refused by the foreign key.
    let orphan = s.transaction(|tx| {
        tx.upsert_tag(
            DepotScope {
                organisation_id: 1,
                depot_id: 999,
            },
            "x",
            at(0),
        )
    });
    assert!(matches!(orphan, Err(StoreError::Conflict(_))), "{orphan:?}");
}

#[test]
fn deleting_a_vehicle_removes_its_skill_and_capacity_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.db");
    let store = SqliteStore::open(&path).unwrap();
    let (a, _, _) = setup(&store);
    let s: &dyn Store = &store;
    let id = s
        .transaction(|tx| {
            let w = tx.upsert_capacity_type(a, "W", "0", at(0))?;
            tx.upsert_skill(a, "S", at(0))?;
            tx.insert_vehicle(
                a,
                &fields(
                    "V",
                    &["S"],
                    vec![CapacityAmount {
                        id: w.id,
                        type_name: String::new(),
                        capacity: 1.0,
                    }],
                ),
                at(0),
            )
        })
        .unwrap();
    let conn = rusqlite::Connection::open(&path).unwrap();
    let count = |table: &str| -> i64 {
        conn.query_row(
            &format!("SELECT count(*) FROM {table} WHERE vehicle_id = ?1"),
            [id],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(
        (count("vehicle_skills"), count("vehicle_capacities")),
        (1, 1)
    );
    assert!(s.transaction(|tx| tx.delete_vehicle(a, id)).unwrap());
    assert_eq!(
        (count("vehicle_skills"), count("vehicle_capacities")),
        (0, 0)
    );
}

#[test]
fn the_gazetteer_geocoder_reads_rows_added_after_it_was_made() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(SqliteStore::open(dir.path().join("g.db")).unwrap());
    let (a, b, _) = setup(&*store);
    let geocoder = SqliteGazetteer::new(store.clone());
    let query = |scope| GeocodeQuery {
        scope,
        address: Some(" 1 high st"),
        postcode: None,
        country: None,
    };
    assert!(geocoder.geocode(&query(a)).is_err());
    let entry = GazetteerEntry {
        address: Some("1 High St".into()),
        postcode: Some("AB1".into()),
        location: Coordinates { lat: 1.0, lng: 2.0 },
    };
    let s: &dyn Store = &*store;
    s.transaction(|tx| tx.upsert_gazetteer_entry(a, &entry))
        .unwrap();
    assert_eq!(
        geocoder.geocode(&query(a)).unwrap(),
        Coordinates { lat: 1.0, lng: 2.0 }
    );
    assert!(
        geocoder.geocode(&query(b)).is_err(),
        "gazetteers are per depot"
    );
}
