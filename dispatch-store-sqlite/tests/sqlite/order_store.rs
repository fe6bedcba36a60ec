//! Orders on SQLite across reopening; the shared behaviour is `conformance.rs`.

use dispatch_core::ports::store::conformance::orders::order;
use dispatch_core::ports::store::conformance::two_depots;
use dispatch_core::ports::store::Store;
use dispatch_store_sqlite::SqliteStore;

#[test]
fn orders_survive_reopening_the_sqlite_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("orders.db");
    let (a, id) = {
        let store = SqliteStore::open(&path).unwrap();
        let (a, _) = two_depots(&store);
        let s: &dyn Store = &store;
        let id = s
            .transaction(|tx| tx.insert_order(a, &order("O1", 1)))
            .unwrap();
        (a, id)
    };
    let store = SqliteStore::open(&path).unwrap();
    let s: &dyn Store = &store;
    let got = s.read(|tx| tx.get_order(a, id)).unwrap().unwrap();
    assert_eq!(got.order_number, "O1");
    assert_eq!(got.line_items.len(), 1);
}
