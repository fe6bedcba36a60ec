//! Orders on SQLite across reopening; the shared behaviour is `conformance.rs`.

use dispatch_core::model::order::{Order, Priority};
use dispatch_core::ports::store::conformance::orders::{customer, order};
use dispatch_core::ports::store::conformance::reference::fields;
use dispatch_core::ports::store::conformance::{at, two_depots};
use dispatch_core::ports::store::{Store, StoreError};
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

/// SQLite overwrites an order that keeps its number, references and exchange pair with a
/// statement of its own, and any other with the one that sets every column: both end with the
/// order exactly as written, one order at a time and many together.
#[test]
fn an_overwritten_order_is_stored_as_written_whether_it_keeps_its_number_and_references_or_not() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(dir.path().join("updates.db")).unwrap();
    let s: &dyn Store = &store;
    let (a, _) = two_depots(s);
    let (o1, o2, customer_id, vehicle_id, third_party_id) = s
        .transaction(|tx| {
            let o1 = tx.insert_order(a, &order("K1", 1))?;
            let o2 = tx.insert_order(a, &order("K2", 2))?;
            tx.link_exchange(a, [o1, o2], "X")?;
            let c = tx.insert_customer(a, &customer("C1", 1))?;
            let v = tx.insert_vehicle(a, &fields("V1", &[], vec![]), at(1))?;
            let t = tx.upsert_third_party(a.organisation_id, "T", at(1))?;
            Ok::<_, StoreError>((o1, o2, c, v, t.id))
        })
        .unwrap();
    let stored = |id| s.read(|tx| tx.get_order(a, id)).unwrap().unwrap();
    let partner = |id| s.read(|tx| tx.exchange_partner(a, id)).unwrap();
    let kept = |o: &Order, updated| Order {
        line_items: o.line_items.clone(),
        updated: at(updated),
        ..o.clone()
    };

    // Keeping number, references and pair: the other columns change, the pair stays.
    let mut k1 = kept(&stored(o1), 10);
    k1.priority = Some(Priority::P1);
    k1.delivery.address = Some("2 Low St".into());
    k1.line_items[0].quantity = 9;
    s.transaction(|tx| tx.update_order(a, &k1)).unwrap();
    assert_eq!(stored(o1), k1);
    assert_eq!(partner(o1), Some(o2));

    // New number and references, one order alone.
    let mut k1 = kept(&k1, 11);
    k1.order_number = "K1-NEW".into();
    k1.customer_id = Some(customer_id);
    k1.vehicle_id = Some(vehicle_id);
    k1.third_party_id = Some(third_party_id);
    s.transaction(|tx| tx.update_order(a, &k1)).unwrap();
    assert_eq!(stored(o1), k1);
    assert!(s
        .read(|tx| tx.find_order_by_number(a, "K1"))
        .unwrap()
        .is_none());

    // References cleared and the pair left, together with an order that keeps its own.
    let mut n1 = kept(&k1, 12);
    (n1.customer_id, n1.vehicle_id, n1.third_party_id) = (None, None, None);
    n1.exchange_reference = None;
    let mut n2 = kept(&stored(o2), 12);
    n2.parts = Some(7.0);
    s.transaction(|tx| tx.update_orders(a, &[n1.clone(), n2.clone()]))
        .unwrap();
    assert_eq!((stored(o1), stored(o2)), (n1, n2));
    assert_eq!((partner(o1), partner(o2)), (None, None));

    // A reference to nothing is refused, and the transaction writes nothing.
    let mut bad = kept(&stored(o1), 13);
    bad.customer_id = Some(customer_id + 1000);
    assert!(s.transaction(|tx| tx.update_order(a, &bad)).is_err());
    assert_eq!(stored(o1).updated, at(12));
}
