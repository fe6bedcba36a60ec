//! The SQLite store's outbox commit observer; the shared behaviour is `conformance.rs`.

use dispatch_core::events::DomainEvent;
use dispatch_core::ports::store::conformance::{at, two_depots};
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_store_sqlite::SqliteStore;

#[test]
fn a_commit_that_appended_events_tells_the_observer_and_others_do_not() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let dir = tempfile::tempdir().unwrap();
    let sqlite = SqliteStore::open(dir.path().join("outbox.db")).unwrap();
    let told = Arc::new(AtomicUsize::new(0));
    let counter = told.clone();
    sqlite.on_outbox_commit(move || {
        counter.fetch_add(1, Ordering::SeqCst);
    });
    let store: &dyn Store = &sqlite;
    let (a, _) = two_depots(store);
    assert_eq!(told.load(Ordering::SeqCst), 0, "no event appended");
    let rolled_back: Result<(), StoreError> = store.transaction(|tx| {
        tx.append_event(a, &DomainEvent::PlanCreated { id: 1 }, at(10))?;
        Err(StoreError::Conflict("the change failed".into()))
    });
    assert!(rolled_back.is_err());
    assert_eq!(told.load(Ordering::SeqCst), 0, "rolled back");
    store
        .transaction(|tx| tx.append_event(a, &DomainEvent::PlanCreated { id: 2 }, at(10)))
        .unwrap();
    assert_eq!(told.load(Ordering::SeqCst), 1, "committed");
    store.read(|tx| tx.pending_events(0, 10)).unwrap();
    store
        .transaction(|tx| tx.pending_events(0, 10).map(|_| ()))
        .unwrap();
    assert_eq!(
        told.load(Ordering::SeqCst),
        1,
        "reads and writes without events"
    );
}
