//! Writes of orders by number (POST /orders of plain orders) run side by side in one depot, on
//! every node, and exclude the depot's other writers; many of them on overlapping numbers keep
//! every order once, with its line items once.

use std::sync::{mpsc, Arc};
use std::time::Duration;

use dispatch_core::model::line_item::LineItemInput;
use dispatch_core::model::order_input::{EndpointFields, EndpointInput, OrderInput};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::geocoder::InMemoryGazetteer;
use dispatch_core::ports::store::conformance::{at, reference};
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::service::order_reads;
use dispatch_core::service::orders::{upsert_batch, WrittenOrder};
use dispatch_store_postgres::PostgresStore;

pub(crate) fn depot(store: &dyn Store) -> DepotScope {
    store
        .transaction(|tx| {
            let org = tx.insert_organisation("Orders", at(0))?;
            tx.insert_depot(org.id, &reference::depot("D"), at(0))
                .map(|d| d.scope())
        })
        .unwrap()
}

/// A delivery order with coordinates (nothing to geocode) and one line item, `product` (a
/// post replaces the stored line items with the ones it lists, matched by product code).
pub(crate) fn order(number: &str, product: &str) -> OrderInput {
    OrderInput {
        order_number: Some(Some(number.into())),
        kind: Some(Some("delivery".into())),
        delivery: EndpointInput {
            fields: EndpointFields {
                address: Some(Some("1 High St".into())),
                lat: Some(Some(51.5)),
                lng: Some(Some(-0.1)),
                ..EndpointFields::default()
            },
            ..EndpointInput::default()
        },
        line_items: Some(vec![LineItemInput {
            product_code: Some(product.into()),
            product_name: Some("Parcel".into()),
            product_quantity: Some(1.0),
            ..LineItemInput::default()
        }]),
        ..OrderInput::default()
    }
}

/// A write of orders by number that stays open until told to finish, on its own thread. It
/// runs a statement first: the write's locks go to the server with its first statement.
fn hold_order_write_open(store: &'static PostgresStore, scope: DepotScope) -> mpsc::Sender<()> {
    let (entered_tx, entered) = mpsc::channel();
    let (finish, finish_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        store
            .run_order_write(scope, &mut |tx| {
                tx.list_tags(scope)?;
                entered_tx.send(()).unwrap();
                finish_rx.recv().ok();
                Ok(())
            })
            .unwrap();
    });
    entered.recv().unwrap();
    finish
}

/// Whether `write` finished on its own thread within `limit`.
fn finishes_within(limit: Duration, write: impl FnOnce() + Send + 'static) -> bool {
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        write();
        done.send(()).ok();
    });
    finished.recv_timeout(limit).is_ok()
}

#[test]
fn a_write_of_orders_by_number_waits_for_no_other_one_but_the_depots_other_writes_wait() {
    let url = crate::store::cluster().create_database().unwrap();
    let node_a: &'static PostgresStore = Box::leak(Box::new(PostgresStore::open(&url).unwrap()));
    let node_b: &'static PostgresStore = Box::leak(Box::new(PostgresStore::open(&url).unwrap()));
    let scope = depot(node_a);
    let finish = hold_order_write_open(node_a, scope);
    let geo = InMemoryGazetteer::new();
    let beside = finishes_within(Duration::from_secs(10), move || {
        let geo = InMemoryGazetteer::new();
        upsert_batch(
            node_b,
            &geo,
            scope,
            vec![order("B-1", "P1")],
            at(1),
            Arc::new(()),
        )
        .unwrap();
    });
    assert!(
        beside,
        "a second write of orders by number waited for the first"
    );
    let other = finishes_within(Duration::from_millis(500), move || {
        let s: &dyn Store = node_b;
        s.transaction_in(scope, |tx| tx.upsert_tag(scope, "later", at(2)))
            .unwrap();
    });
    assert!(
        !other,
        "another write of the depot ran beside a write of orders"
    );
    finish.send(()).unwrap();
    // With the first one finished, everything went through.
    upsert_batch(
        node_a,
        &geo,
        scope,
        vec![order("B-1", "P2")],
        at(3),
        Arc::new(()),
    )
    .unwrap();
}

/// The numbers writer `w` posts in its batch `i`: 20 distinct ones of [`NUMBERS`] (steps
/// prime to 40), in an order of the writer's own.
fn numbers(w: usize, i: usize) -> Vec<String> {
    let step = [1, 3, 7][w % 3];
    (0..20)
        .map(|k| format!("O-{:02}", (w * 7 + i * 13 + k * step) % NUMBERS))
        .collect()
}

const NUMBERS: usize = 40;

/// Eight writers on three nodes post batches of overlapping order numbers to one depot (new
/// ones inserted by several at once, stored ones updated by several at once, each writer's
/// line item a product of its own that replaces the stored one): every request succeeds,
/// every number is one order with one line item.
#[test]
fn concurrent_writes_of_overlapping_orders_to_one_depot_keep_each_order_once() {
    let url = crate::store::cluster().create_database().unwrap();
    let nodes: Vec<PostgresStore> = (0..3).map(|_| PostgresStore::open(&url).unwrap()).collect();
    let scope = depot(&nodes[0]);
    std::thread::scope(|s| {
        for w in 0..8usize {
            let node: &dyn Store = &nodes[w % nodes.len()];
            s.spawn(move || {
                let geo = InMemoryGazetteer::new();
                for i in 0..6usize {
                    let batch: Vec<OrderInput> = numbers(w, i)
                        .iter()
                        .map(|n| order(n, &format!("P{w}")))
                        .collect();
                    upsert_batch(node, &geo, scope, batch, at(10 + i as i64), Arc::new(()))
                        .unwrap_or_else(|e| panic!("writer {w}, batch {i}: {e}"));
                }
            });
        }
    });
    let s: &dyn Store = &nodes[1];
    let mut stored = Vec::new();
    for n in 0..NUMBERS {
        let number = format!("O-{n:02}");
        let found = s
            .read(|tx| tx.find_order_by_number(scope, &number))
            .unwrap();
        let Some(found) = found else { continue };
        let detail = order_reads::get(s, scope, found.order.id).unwrap();
        assert_eq!(
            detail.order.line_items.len(),
            1,
            "{number} holds more than one line item"
        );
        stored.push(number);
    }
    let listed: usize = s
        .read(|tx| {
            Ok::<_, StoreError>(
                tx.list_orders(scope, &Default::default(), &page())?
                    .items
                    .len(),
            )
        })
        .unwrap();
    assert_eq!(listed, stored.len(), "an order number is stored twice");
    assert!(
        stored.len() > 30,
        "the writers wrote {} numbers",
        stored.len()
    );
}

fn page() -> dispatch_core::paging::PageRequest {
    dispatch_core::paging::PageRequest {
        after: None,
        limit: 1000,
        updated_at_min: None,
    }
}

/// A batch whose first number is new is inserted where its numbers are free, without a
/// question per number; the stored ones among them are then read and updated as stored
/// orders: the same answer and the same stored orders as a batch that found them first.
#[test]
fn a_batch_whose_first_number_is_new_inserts_the_new_orders_and_updates_the_stored_ones() {
    let url = crate::store::cluster().create_database().unwrap();
    let store = PostgresStore::open(&url).unwrap();
    let scope = depot(&store);
    let geo = InMemoryGazetteer::new();
    let before = upsert_batch(
        &store,
        &geo,
        scope,
        vec![order("M-2", "P1"), order("M-3", "P1")],
        at(1),
        Arc::new(()),
    )
    .unwrap();
    let s: &dyn Store = &store;
    let deleted = s
        .transaction_in(scope, |tx| tx.delete_order(scope, before[1].id))
        .unwrap();
    assert_eq!(deleted, Some(1));
    let batch = ["M-4", "M-3", "M-1", "M-2"]
        .map(|n| order(n, "P2"))
        .to_vec();
    let written = upsert_batch(&store, &geo, scope, batch, at(2), Arc::new(())).unwrap();
    let answer: Vec<(&str, bool)> = written
        .iter()
        .map(|w| (w.order_number.as_str(), w.is_created))
        .collect();
    assert_eq!(
        answer,
        [("M-4", true), ("M-3", false), ("M-1", true), ("M-2", false)]
    );
    assert_eq!((written[3].id, written[1].id), (before[0].id, before[1].id));
    for w in &written {
        let stored = order_reads::get(s, scope, w.id).unwrap().order;
        assert_eq!(stored.order_number, w.order_number);
        assert_eq!(stored.updated, at(2), "{}", w.order_number);
        let codes: Vec<&str> = stored
            .line_items
            .iter()
            .map(|i| i.product_code.as_str())
            .collect();
        assert_eq!(codes, ["P2"], "{}", w.order_number);
    }
    let listed = s
        .read(|tx| tx.list_orders(scope, &Default::default(), &page()))
        .unwrap();
    assert_eq!(listed.items.len(), 4, "M-3 restored, each number once");
}

/// Writers on three nodes post the same batches of new numbers to one depot at once, each
/// with a line item of its own: every request succeeds; each number is one order with one
/// line item; each number is answered created to exactly one writer, and every writer's
/// answer names the order stored under the number.
#[test]
fn concurrent_writers_of_the_same_new_numbers_store_each_once_and_answer_what_is_stored() {
    let url = crate::store::cluster().create_database().unwrap();
    let nodes: Vec<PostgresStore> = (0..3).map(|_| PostgresStore::open(&url).unwrap()).collect();
    let scope = depot(&nodes[0]);
    const WRITERS: usize = 6;
    const ROUNDS: usize = 4;
    let start = std::sync::Barrier::new(WRITERS);
    let answers: Vec<Vec<Vec<WrittenOrder>>> = std::thread::scope(|s| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (node, start): (&dyn Store, _) = (&nodes[w % nodes.len()], &start);
                s.spawn(move || {
                    let geo = InMemoryGazetteer::new();
                    (0..ROUNDS)
                        .map(|r| {
                            let batch = (0..50)
                                .map(|k| order(&format!("N-{r}-{k:02}"), &format!("P{w}")))
                                .collect();
                            start.wait();
                            upsert_batch(node, &geo, scope, batch, at(10 + r as i64), Arc::new(()))
                                .unwrap_or_else(|e| panic!("writer {w}, round {r}: {e}"))
                        })
                        .collect()
                })
            })
            .collect();
        writers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let s: &dyn Store = &nodes[1];
    for r in 0..ROUNDS {
        for k in 0..50 {
            let number = format!("N-{r}-{k:02}");
            let stored = s
                .read(|tx| tx.find_order_by_number(scope, &number))
                .unwrap()
                .unwrap_or_else(|| panic!("{number} was lost"));
            let mut created = 0;
            for written in answers.iter().map(|a| &a[r][k]) {
                assert_eq!(written.order_number, number);
                assert_eq!(
                    written.id, stored.order.id,
                    "{number}: another order answered"
                );
                created += usize::from(written.is_created);
            }
            assert_eq!(created, 1, "{number} answered created to {created} writers");
            let detail = order_reads::get(s, scope, stored.order.id).unwrap();
            assert_eq!(detail.order.line_items.len(), 1, "{number}");
        }
    }
    let listed = s
        .read(|tx| tx.list_orders(scope, &Default::default(), &page()))
        .unwrap();
    assert_eq!(listed.items.len(), ROUNDS * 50, "a number is stored twice");
}
