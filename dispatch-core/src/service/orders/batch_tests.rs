//! A POST /orders batch as a whole: its stored orders read in runs of bounded text, a write
//! that gets in between the batch's reads and its transaction, and a refusal that writes
//! nothing.

use std::collections::HashMap;
use std::sync::Arc;

use super::stored_run;
use crate::model::order::Order;
use crate::model::order_input::OrderInput;
use crate::model::organisation::DepotScope;
use crate::model::test_fixtures::delivery as order;
use crate::ports::store::{InMemoryStore, Store, StoreError, StoreTx};
use crate::service::customers::tests::setup;
use crate::service::order_reads::{self, OrderQuery};
use crate::service::orders::tests::{at, first_page, post};
use crate::service::orders::upsert_batch;
use crate::service::ServiceError;

#[test]
fn stored_orders_are_read_in_runs_of_bounded_text_the_first_always_taken() {
    let sizes: HashMap<String, Option<usize>> = [
        ("A", Some(400_000)),
        ("B", Some(400_000)),
        ("C", Some(400_000)),
        ("D", Some(3_000_000)),
        ("E", Some(10)),
    ]
    .into_iter()
    .map(|(n, s)| (n.to_owned(), s))
    .collect();
    let batch = ["A", "new", "B", "C", "D", "E"];
    // New orders are skipped; the run stops before the order that would pass the bound.
    assert_eq!(stored_run(&batch, &sizes), ["A", "B"]);
    assert_eq!(stored_run(&batch[3..], &sizes), ["C"]);
    // An order larger than the bound is a run of its own.
    assert_eq!(stored_run(&batch[4..], &sizes), ["D"]);
    assert_eq!(stored_run(&batch[5..], &sizes), ["E"]);
    // A hundred small orders are one run.
    let small: HashMap<String, Option<usize>> =
        (0..100).map(|i| (format!("S{i}"), Some(500))).collect();
    let numbers: Vec<String> = (0..100).map(|i| format!("S{i}")).collect();
    let numbers: Vec<&str> = numbers.iter().map(String::as_str).collect();
    assert_eq!(stored_run(&numbers, &small).len(), 100);
    // Orders of a store that tells no sizes are read sixteen at a time.
    let untold: HashMap<String, Option<usize>> = small.keys().map(|n| (n.clone(), None)).collect();
    assert_eq!(stored_run(&numbers, &untold).len(), 16);
}

/// A store where another write gets in between a batch's reads and its write transaction:
/// `between` runs on the store when the batch's new orders are made ready for it.
struct Raced<'a> {
    store: &'a InMemoryStore,
    between: Box<dyn Fn(&InMemoryStore) + Send + Sync + 'a>,
}

impl Store for Raced<'_> {
    fn run_write(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.store.run_write(work)
    }

    fn run_read(
        &self,
        work: &mut dyn FnMut(&mut dyn StoreTx) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        self.store.run_read(work)
    }

    fn prepare_new_orders(
        &self,
        depot: DepotScope,
        orders: Vec<Order>,
    ) -> crate::ports::store::PreparedOrders {
        (self.between)(self.store);
        self.store.prepare_new_orders(depot, orders)
    }
}

#[test]
fn a_number_another_write_stores_first_is_updated_not_inserted_twice() {
    let (store, geo, a, _) = setup();
    let racer = std::sync::Mutex::new(None);
    let raced = Raced {
        store: &store,
        between: Box::new(|s| {
            let w = post(s, &geo, a, &[order("B")]);
            *racer.lock().unwrap() = Some(w[0].id);
        }),
    };
    let mut b = order("B");
    b.priority = Some(Some("P1".into()));
    let w = upsert_batch(&raced, &geo, a, vec![order("A"), b], at(2), Arc::new(())).unwrap();
    let racer = racer.lock().unwrap().expect("the other write ran");
    assert_eq!(
        w.iter()
            .map(|w| (w.order_number.as_str(), w.is_created))
            .collect::<Vec<_>>(),
        [("A", true), ("B", false)]
    );
    assert_eq!(w[1].id, racer);
    let stored = order_reads::get(&store, a, racer).unwrap().order;
    assert_eq!(stored.priority.map(|p| p.as_str()), Some("P1"));
    let listed = order_reads::list(&store, a, &OrderQuery::default(), &first_page()).unwrap();
    assert_eq!(listed.page.items.len(), 2, "each number stored once");
}

#[test]
fn a_tag_created_between_the_batchs_read_and_its_write_is_resolved_on_its_orders() {
    let (store, geo, a, _) = setup();
    let raced = Raced {
        store: &store,
        between: Box::new(|s| {
            let s: &dyn Store = s;
            s.transaction(|tx| tx.upsert_tag(a, "Heavy", at(1)).map(drop))
                .unwrap();
        }),
    };
    let mut heavy = order("H");
    heavy.tags = Some(vec!["heavy".into()]);
    let w = upsert_batch(
        &raced,
        &geo,
        a,
        vec![order("A"), heavy],
        at(2),
        Arc::new(()),
    )
    .unwrap();
    let stored = order_reads::get(&store, a, w[1].id).unwrap().order;
    assert_eq!(stored.tags, ["Heavy"]);
}

#[test]
fn new_orders_naming_a_missing_vehicle_are_refused_at_the_first_such_order() {
    let (store, geo, a, _) = setup();
    let mut assigned = order("V");
    assigned.vehicle_id = Some(Some(999));
    let refused = upsert_batch(
        &store,
        &geo,
        a,
        vec![
            order("A"),
            assigned.clone(),
            OrderInput {
                order_number: Some(Some("W".into())),
                ..assigned
            },
        ],
        at(2),
        Arc::new(()),
    );
    let Err(ServiceError::Invalid(issues)) = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(issues.0.len(), 1);
    assert_eq!(issues.0[0].path[0], crate::error::PathSegment::Index(1));
    let listed = order_reads::list(&store, a, &OrderQuery::default(), &first_page()).unwrap();
    assert!(
        listed.page.items.is_empty(),
        "a refused batch writes nothing"
    );
}
