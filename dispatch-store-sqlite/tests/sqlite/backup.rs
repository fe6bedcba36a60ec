//! `dispatch backup`'s copy: consistent while another connection keeps committing, a
//! self-contained file the store opens as it is, and never written over an existing file.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use dispatch_core::ports::store::conformance::at;
use dispatch_core::ports::store::conformance::reference::setup;
use dispatch_core::ports::store::Store;
use dispatch_store_sqlite::backup::backup;
use dispatch_store_sqlite::{SqliteStore, SCHEMA_VERSION};

#[test]
fn a_backup_taken_while_another_process_writes_is_a_consistent_database_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.db");
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let (scope, _, _) = setup(&*store);
    // A writer keeps committing organisations (one row each) while the copy is taken.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (store, stop) = (store.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n: i64 = 0;
            while !stop.load(Ordering::SeqCst) {
                let s: &dyn Store = &*store;
                s.transaction(|tx| tx.insert_organisation(&format!("Org {n}"), at(n)))
                    .unwrap();
                n += 1;
            }
            n
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(100));
    let out = dir.path().join("copy.db");
    let report = backup(&path, &out).unwrap();
    stop.store(true, Ordering::SeqCst);
    let written = writer.join().unwrap();
    assert!(written > 0);
    assert_eq!(report.schema_version, SCHEMA_VERSION);
    assert!(report.pages > 0 && report.bytes > 0, "{report:?}");
    assert!(
        !dir.path().join("copy.db-wal").exists(),
        "one self-contained file"
    );
    assert!(!dir.path().join("copy.db.partial").exists());
    // The copy opens as a store and holds the data as of one commit.
    let copy = SqliteStore::open(&out).unwrap();
    let c: &dyn Store = &copy;
    assert_eq!(c.read(|tx| tx.get_depot(scope)).unwrap().unwrap().name, "A");
    let orgs = c.read(|tx| tx.list_organisations()).unwrap();
    let copied = orgs.iter().filter(|o| o.name.starts_with("Org ")).count();
    assert!(copied <= written as usize);
    let names: Vec<&str> = orgs.iter().map(|o| o.name.as_str()).collect();
    for i in 0..copied {
        assert!(
            names.contains(&format!("Org {i}").as_str()),
            "a prefix of the commits"
        );
    }
}

#[test]
fn a_backup_never_overwrites_and_needs_a_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("live.db");
    drop(SqliteStore::open(&path).unwrap());
    let out = dir.path().join("copy.db");
    std::fs::write(&out, b"keep me").unwrap();
    let err = backup(&path, &out).unwrap_err();
    assert!(err.to_string().contains("exists"), "{err}");
    assert_eq!(std::fs::read(&out).unwrap(), b"keep me");
    let err = backup(&dir.path().join("none.db"), &dir.path().join("x.db")).unwrap_err();
    assert!(err.to_string().contains("not a database file"), "{err}");
}
