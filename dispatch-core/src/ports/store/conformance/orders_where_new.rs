//! New orders inserted where their numbers are free ([`OrderRepo::insert_orders_where_new`]).
//!
//! [`OrderRepo::insert_orders_where_new`]: crate::ports::store::OrderRepo::insert_orders_where_new

use super::orders::order;
use super::two_depots;
use crate::ports::store::{Store, StoreError};

/// Orders whose numbers the depot does not hold are inserted, ids in order, with their line
/// items; those whose numbers it holds (live or deleted) are left as stored and answered
/// `None`; a number held in another depot is free.
pub fn orders_inserted_where_new(store: &dyn Store) {
    let (a, b) = two_depots(store);
    let (held, deleted) = store
        .transaction(|tx| {
            tx.insert_order(b, &order("W1", 1))?;
            let held = tx.insert_order(a, &order("W2", 1))?;
            let deleted = tx.insert_order(a, &order("W4", 1))?;
            tx.delete_order(a, deleted)?;
            Ok::<_, StoreError>((held, deleted))
        })
        .unwrap();
    let batch = ["W1", "W2", "W3", "W4"].map(|n| order(n, 2));
    let ids = store
        .transaction(|tx| tx.insert_orders_where_new(a, &batch))
        .unwrap();
    assert!(ids[0].is_some() && ids[2].is_some(), "{ids:?}");
    assert_eq!((ids[1], ids[3]), (None, None));
    for (at, number) in [(0, "W1"), (2, "W3")] {
        let got = store
            .read(|tx| tx.get_order(a, ids[at].unwrap()))
            .unwrap()
            .unwrap();
        assert_eq!(got.order_number, number);
        assert_eq!(got.updated, batch[at].updated);
        assert_eq!(got.line_items.len(), batch[at].line_items.len());
    }
    let left = store.read(|tx| tx.get_order(a, held)).unwrap().unwrap();
    assert_eq!(
        left.updated,
        order("W2", 1).updated,
        "a held number is left as stored"
    );
    let still = store.read(|tx| tx.find_order_by_id(a, deleted)).unwrap();
    assert!(
        still.is_some_and(|o| o.deleted),
        "a deleted order keeps its number"
    );
}
