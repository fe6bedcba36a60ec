//! The writer thread: owned writes commit there before their callers hear of them, a failed
//! or panicking one rolls back and leaves the thread serving, and a writer of another thread
//! gets the write lock between owned writes that keep coming.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::conformance::orders::order;
use dispatch_core::ports::store::conformance::reference::setup;
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_store_sqlite::SqliteStore;

fn store() -> (tempfile::TempDir, SqliteStore, DepotScope) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("w.db")).unwrap();
    let (a, _, _) = setup(&store);
    (dir, store, a)
}

fn stored(store: &SqliteStore, scope: DepotScope, number: &str) -> bool {
    let s: &dyn Store = store;
    s.read(|tx| tx.find_order_by_number(scope, number))
        .unwrap()
        .is_some()
}

#[test]
fn an_owned_write_commits_on_the_writer_thread_before_its_caller_hears_of_it() {
    let (_dir, store, a) = store();
    assert!(store.writes_on_own_thread());
    let s: &dyn Store = &store;
    let (id, thread) = s
        .owned_transaction_in(a, move |tx| {
            let id = tx.insert_order(a, &order("O1", 1))?;
            let thread = std::thread::current().name().map(str::to_owned);
            Ok::<_, StoreError>((id, thread))
        })
        .unwrap();
    assert!(id > 0);
    assert_eq!(thread.as_deref(), Some("sqlite-writer"));
    assert!(stored(&store, a, "O1"));
}

#[test]
fn a_failed_or_panicking_owned_write_rolls_back_and_the_writer_keeps_serving() {
    let (_dir, store, a) = store();
    let s: &dyn Store = &store;
    let failed = s.owned_transaction_in(a, move |tx| {
        tx.insert_order(a, &order("F1", 1))?;
        Err::<(), _>(StoreError::Conflict("refused".into()))
    });
    assert_eq!(failed, Err(StoreError::Conflict("refused".into())));
    let panicked = s.owned_transaction_in(a, move |tx| {
        tx.insert_order(a, &order("P1", 1))?;
        if tx.find_order_by_number(a, "P1")?.is_some() {
            panic!("a bug in a write");
        }
        Ok::<_, StoreError>(())
    });
    assert!(matches!(panicked, Err(StoreError::Backend(_))));
    s.owned_transaction_in(a, move |tx| tx.insert_order(a, &order("O2", 1)).map(drop))
        .unwrap();
    assert!(!stored(&store, a, "F1"));
    assert!(!stored(&store, a, "P1"));
    assert!(stored(&store, a, "O2"));
}

#[test]
fn a_writer_of_another_thread_gets_the_lock_between_owned_writes_that_keep_coming() {
    let (_dir, store, a) = store();
    let s: &dyn Store = &store;
    // Four callers queue 25 owned writes each, every one holding the lock for 2 ms: the queue
    // stays full for about 200 ms.
    const CALLERS: usize = 4;
    const EACH: usize = 25;
    let done = Arc::new(AtomicUsize::new(0));
    let done_when_in = std::thread::scope(|scope| {
        for c in 0..CALLERS {
            let done = done.clone();
            scope.spawn(move || {
                for i in 0..EACH {
                    let done = done.clone();
                    s.owned_transaction_in(a, move |tx| {
                        std::thread::sleep(Duration::from_millis(2));
                        tx.insert_order(a, &order(&format!("Q{c}-{i}"), 1))?;
                        done.fetch_add(1, Ordering::SeqCst);
                        Ok::<_, StoreError>(())
                    })
                    .unwrap();
                }
            });
        }
        while done.load(Ordering::SeqCst) < 10 {
            std::thread::sleep(Duration::from_millis(1));
        }
        s.transaction(|tx| tx.insert_order(a, &order("OTHER", 1)).map(drop))
            .unwrap();
        done.load(Ordering::SeqCst)
    });
    assert!(
        done_when_in < CALLERS * EACH - CALLERS,
        "the other writer waited for the queue to drain: {done_when_in} of {} done",
        CALLERS * EACH
    );
    assert!(stored(&store, a, "OTHER"));
    assert_eq!(done.load(Ordering::SeqCst), CALLERS * EACH);
}
