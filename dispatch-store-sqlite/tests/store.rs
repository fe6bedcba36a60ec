//! The same store behaviour checked on the SQLite store and the in-memory store, plus what only
//! SQLite has (migrations, pragmas, cascades, durability across reopen).

use dispatch_core::model::location::Coordinates;
use dispatch_core::model::notification::Channel;
use dispatch_core::model::organisation::{key_lookup, DepotScope, DepotSettings, KeyPermission};
use dispatch_core::model::reference::CapacityAmount;
use dispatch_core::model::vehicle::{apply_patch, VehicleFields, VehiclePatch};
use dispatch_core::model::zone::Polygon;
use dispatch_core::patch::Patch;
use dispatch_core::ports::geocoder::{GazetteerEntry, GeocodeQuery, Geocoder};
use dispatch_core::ports::store::{InMemoryStore, NewDepot, Store, StoreError};
use dispatch_core::time::Timestamp;
use dispatch_store_sqlite::{SqliteGazetteer, SqliteStore, SCHEMA_VERSION};

fn at(ms: i64) -> Timestamp {
    Timestamp::from_millis(ms)
}

fn depot(name: &str) -> NewDepot {
    NewDepot {
        name: name.into(),
        address: None,
        location: None,
        settings: DepotSettings::default(),
    }
}

/// Two depots of one organisation and one of another.
fn setup(store: &dyn Store) -> (DepotScope, DepotScope, DepotScope) {
    store
        .transaction(|tx| {
            let acme = tx.insert_organisation("Acme", at(0))?;
            let other = tx.insert_organisation("Other", at(0))?;
            let a = tx.insert_depot(acme.id, &depot("A"), at(0))?.scope();
            let b = tx.insert_depot(acme.id, &depot("B"), at(0))?.scope();
            let c = tx.insert_depot(other.id, &depot("C"), at(0))?.scope();
            Ok::<_, StoreError>((a, b, c))
        })
        .unwrap()
}

fn fields(name: &str, skills: &[&str], capacities: Vec<CapacityAmount>) -> VehicleFields {
    let mut f = apply_patch(
        &VehiclePatch {
            name: Patch::Value(name.into()),
            availability: Patch::Value("always".into()),
            start_location: Patch::Value("depot".into()),
            end_location: Patch::Value("depot".into()),
            ..Default::default()
        },
        None,
    )
    .unwrap();
    f.skills = skills.iter().map(|s| s.to_string()).collect();
    f.capacities = capacities;
    f
}

fn conformance(store: &dyn Store) {
    let (a, b, c) = setup(store);

    // Upserts are idempotent by name and scoped to their depot.
    let (w1, w2, wb) = store
        .transaction(|tx| {
            let w1 = tx.upsert_capacity_type(a, "Weight", "0", at(1))?;
            let w2 = tx.upsert_capacity_type(a, "Weight", "0", at(2))?;
            let wb = tx.upsert_capacity_type(b, "Weight", "0", at(2))?;
            Ok::<_, StoreError>((w1, w2, wb))
        })
        .unwrap();
    assert_eq!(w1.id, w2.id);
    assert_eq!(w2.updated, at(1), "unchanged rows keep their update time");
    assert_ne!(w1.id, wb.id);
    assert_eq!(store.read(|tx| tx.list_capacity_types(c)).unwrap(), vec![]);

    // Skills are case-sensitive.
    let skills = store
        .transaction(|tx| {
            tx.upsert_skill(a, "Fridge", at(1))?;
            tx.upsert_skill(a, "fridge", at(1))?;
            tx.upsert_skill(a, "Fridge", at(1))?;
            tx.list_skills(a)
        })
        .unwrap();
    assert_eq!(
        skills.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["Fridge", "fridge"]
    );

    // Vehicles: sets round-trip with names; scoped reads, updates and deletes.
    let id = store
        .transaction(|tx| {
            let f = fields(
                "V",
                &["fridge", "Fridge"],
                vec![CapacityAmount {
                    id: w1.id,
                    type_name: String::new(),
                    capacity: 7.5,
                }],
            );
            tx.insert_vehicle(a, &f, at(3))
        })
        .unwrap();
    let v = store.read(|tx| tx.get_vehicle(a, id)).unwrap().unwrap();
    assert_eq!(v.fields.skills, ["fridge", "Fridge"]);
    assert_eq!(
        v.fields.capacities,
        vec![CapacityAmount {
            id: w1.id,
            type_name: "Weight".into(),
            capacity: 7.5
        }]
    );
    assert_eq!((v.created, v.updated), (at(3), at(3)));
    assert!(store.read(|tx| tx.get_vehicle(b, id)).unwrap().is_none());
    assert!(!store
        .transaction(|tx| tx.update_vehicle(b, id, &fields("X", &[], vec![]), at(4)))
        .unwrap());
    assert!(!store.transaction(|tx| tx.delete_vehicle(c, id)).unwrap());
    assert!(store
        .transaction(|tx| tx.update_vehicle(a, id, &fields("V2", &["Fridge"], vec![]), at(5)))
        .unwrap());
    let v = store.read(|tx| tx.get_vehicle(a, id)).unwrap().unwrap();
    assert_eq!(
        (
            v.fields.name.as_str(),
            v.fields.skills.len(),
            v.fields.capacities.len(),
            v.updated
        ),
        ("V2", 1, 0, at(5))
    );
    assert_eq!(
        store
            .read(|tx| tx.count_vehicles_in_organisation(a.organisation_id))
            .unwrap(),
        1
    );
    assert_eq!(
        store
            .read(|tx| tx.count_vehicles_in_organisation(c.organisation_id))
            .unwrap(),
        0
    );
    assert!(store.transaction(|tx| tx.delete_vehicle(a, id)).unwrap());
    assert!(store.read(|tx| tx.list_vehicles(a)).unwrap().is_empty());

    // A failing transaction leaves nothing behind.
    let failed: Result<(), StoreError> = store.transaction(|tx| {
        tx.upsert_tag(a, "Lost", at(1))?;
        Err(StoreError::Conflict("on purpose".into()))
    });
    assert!(failed.is_err());
    assert!(store.read(|tx| tx.list_tags(a)).unwrap().is_empty());

    // Access keys: found by lookup prefix, only in their own depot by name.
    let hash = [7u8; 32];
    store
        .transaction(|tx| tx.insert_access_key(a, "k", KeyPermission::Read, hash, at(1)))
        .unwrap();
    let found = store
        .read(|tx| tx.access_keys_by_lookup(key_lookup(&hash)))
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(
        (
            found[0].depot_id,
            found[0].organisation_id,
            found[0].permission
        ),
        (a.depot_id, a.organisation_id, KeyPermission::Read)
    );
    assert!(store
        .read(|tx| tx.find_access_key_by_name(b, "k"))
        .unwrap()
        .is_none());
    let s1 = store
        .transaction(|tx| tx.installation_secret("s", [1; 32]))
        .unwrap();
    let s2 = store
        .transaction(|tx| tx.installation_secret("s", [2; 32]))
        .unwrap();
    assert_eq!((s1, s2), ([1; 32], [1; 32]));

    // Zones, templates, third parties, statuses, gazetteer.
    let square = Polygon(vec![
        Coordinates { lat: 0.0, lng: 0.0 },
        Coordinates { lat: 0.0, lng: 1.0 },
        Coordinates { lat: 1.0, lng: 1.0 },
    ]);
    let (group, zone) = store
        .transaction(|tx| {
            let g = tx.upsert_zone_group(a, "G", at(1))?;
            let z = tx.upsert_zone(a, g.id, "Z", &square, at(1))?;
            Ok::<_, StoreError>((g, z))
        })
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.list_zones(a, group.id)).unwrap(),
        vec![zone]
    );
    assert!(store
        .read(|tx| tx.get_zone_group(b, group.id))
        .unwrap()
        .is_none());
    assert!(store
        .read(|tx| tx.list_zones(b, group.id))
        .unwrap()
        .is_empty());
    let t = store
        .transaction(|tx| tx.upsert_notification_template(a, Channel::Email, "T", "body", at(1)))
        .unwrap();
    assert_eq!(
        store.read(|tx| tx.list_notification_templates(a)).unwrap(),
        vec![t]
    );
    store
        .transaction(|tx| tx.upsert_third_party(a.organisation_id, "X", at(1)))
        .unwrap();
    assert_eq!(
        store
            .read(|tx| tx.list_third_parties(b.organisation_id))
            .unwrap()
            .len(),
        1
    );
    assert!(store
        .read(|tx| tx.list_third_parties(c.organisation_id))
        .unwrap()
        .is_empty());
    assert!(store
        .transaction(|tx| tx.insert_custom_order_status(a.organisation_id, "RETURNED", at(1)))
        .unwrap());
    assert!(!store
        .transaction(|tx| tx.insert_custom_order_status(a.organisation_id, "RETURNED", at(1)))
        .unwrap());
    let entry = GazetteerEntry {
        address: Some("1 High St".into()),
        postcode: None,
        location: Coordinates { lat: 1.0, lng: 2.0 },
    };
    store
        .transaction(|tx| tx.upsert_gazetteer_entry(a, &entry))
        .unwrap();
    store
        .transaction(|tx| tx.upsert_gazetteer_entry(a, &entry))
        .unwrap();
    assert_eq!(store.read(|tx| tx.list_gazetteer(a)).unwrap(), vec![entry]);
}

#[test]
fn in_memory_store_conforms() {
    conformance(&InMemoryStore::new());
}

#[test]
fn sqlite_store_conforms() {
    let dir = tempfile::tempdir().unwrap();
    conformance(&SqliteStore::open(dir.path().join("c.db")).unwrap());
}

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

#[test]
fn concurrent_writers_from_many_threads_all_commit() {
    let dir = tempfile::tempdir().unwrap();
    let store = std::sync::Arc::new(SqliteStore::open(dir.path().join("w.db")).unwrap());
    let (a, _, _) = setup(&*store);
    let handles: Vec<_> = (0..8)
        .map(|t| {
            let store = store.clone();
            std::thread::spawn(move || {
                let s: &dyn Store = &*store;
                for i in 0..10 {
                    s.transaction(|tx| {
                        tx.insert_vehicle(a, &fields(&format!("{t}-{i}"), &[], vec![]), at(0))
                    })
                    .unwrap();
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let s: &dyn Store = &*store;
    assert_eq!(s.read(|tx| tx.list_vehicles(a)).unwrap().len(), 80);
}
