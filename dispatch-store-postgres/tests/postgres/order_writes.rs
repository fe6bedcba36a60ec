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

fn depot(store: &dyn Store) -> DepotScope {
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
fn order(number: &str, product: &str) -> OrderInput {
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

/// A write of orders by number that stays open until told to finish, on its own thread.
fn hold_order_write_open(store: &'static PostgresStore, scope: DepotScope) -> mpsc::Sender<()> {
    let (entered_tx, entered) = mpsc::channel();
    let (finish, finish_rx) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        store
            .run_order_write(scope, &mut |_| {
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

/// Orders `from..from + 100`, each with one line item.
fn hundred(from: usize) -> Vec<OrderInput> {
    (from..from + 100)
        .map(|i| order(&format!("R-{i:04}"), "P1"))
        .collect()
}

/// A POST of 100 new orders is five round trips (BEGIN with its locks; the depot with its
/// statuses, the catalog and whether the first number is stored; the orders, inserted where
/// their numbers are free; their line items; COMMIT) and one of 100 stored orders six: the
/// first statement tells which are stored, they are read with their line items in one
/// statement, then overwritten with one statement per table.
#[test]
fn a_post_of_a_hundred_stored_orders_reads_them_with_their_line_items_in_one_statement() {
    let url = crate::store::cluster().create_database().unwrap();
    // One connection, so the statements prepared by the first posts are those the next reuse.
    let store = PostgresStore::open_with_pool_size(&url, 1).unwrap();
    let scope = depot(&store);
    let geo = InMemoryGazetteer::new();
    let post = |batch: Vec<OrderInput>, t: i64| {
        let before = store.round_trips();
        upsert_batch(&store, &geo, scope, batch, at(t), Arc::new(())).unwrap();
        store.round_trips() - before
    };
    post(hundred(0), 1);
    assert_eq!(post(hundred(100), 2), 5, "a hundred new orders");
    post(hundred(0), 3);
    assert_eq!(post(hundred(100), 4), 6, "a hundred stored orders");
    let s: &dyn Store = &store;
    let found = s
        .read(|tx| tx.find_order_by_number(scope, "R-0150"))
        .unwrap()
        .unwrap();
    assert_eq!(found.order.updated, at(4));
    assert_eq!(found.order.line_items.len(), 1);
}

/// The multi-row writes bind one array a column (`unnest`): a statement's text does not
/// depend on how many rows it writes, so a batch of any size reuses the statements an earlier
/// batch of another size prepared (each preparation would be a round trip more): new orders,
/// stored ones, and stored ones whose line items are replaced (removed, inserted) or kept.
#[test]
fn batches_of_any_size_reuse_the_statements_prepared_for_another_size() {
    let url = crate::store::cluster().create_database().unwrap();
    // One connection, so the statements prepared by the first posts are those the next reuse.
    let store = PostgresStore::open_with_pool_size(&url, 1).unwrap();
    let scope = depot(&store);
    let geo = InMemoryGazetteer::new();
    let post = |from: usize, n: usize, product: &str, t: i64| {
        let batch = (from..from + n)
            .map(|i| order(&format!("S-{i:04}"), product))
            .collect();
        let before = store.round_trips();
        upsert_batch(&store, &geo, scope, batch, at(t), Arc::new(())).unwrap();
        store.round_trips() - before
    };
    post(0, 100, "P1", 1);
    let new = post(100, 100, "P1", 2);
    assert_eq!(post(200, 37, "P1", 3), new, "37 new orders after 100");
    post(0, 100, "P1", 4);
    let kept = post(0, 100, "P1", 5);
    assert_eq!(post(0, 63, "P1", 6), kept, "63 stored orders after 100");
    post(0, 100, "P2", 7);
    let replaced = post(0, 100, "P3", 8);
    assert_eq!(
        post(0, 11, "P4", 9),
        replaced,
        "11 stored orders with new line items after 100"
    );
    let s: &dyn Store = &store;
    for (number, product, updated) in [
        ("S-0005", "P4", 9),
        ("S-0050", "P3", 8),
        ("S-0236", "P1", 3),
    ] {
        let found = s
            .read(|tx| tx.find_order_by_number(scope, number))
            .unwrap()
            .unwrap();
        assert_eq!(found.order.updated, at(updated), "{number}");
        let codes: Vec<&str> = found
            .order
            .line_items
            .iter()
            .map(|i| i.product_code.as_str())
            .collect();
        assert_eq!(codes, [product], "{number}");
    }
}

/// The line items read with their orders in one statement (aggregated as JSON) are the ones
/// read on their own, texts and numbers exactly as stored.
#[test]
fn stored_orders_read_with_their_line_items_hold_them_exactly_as_stored() {
    let url = crate::store::cluster().create_database().unwrap();
    let store = PostgresStore::open(&url).unwrap();
    let scope = depot(&store);
    let geo = InMemoryGazetteer::new();
    // Within the 20 characters of a product code.
    let awkward = "a\"b\\c é\u{1F600}\n\t'";
    let mut posted = order("J-1", awkward);
    posted.line_items = Some(vec![
        LineItemInput {
            product_code: Some(awkward.into()),
            product_name: Some(format!("{awkward} name")),
            product_quantity: Some(3.0),
            product_unit_price: Some(Some(0.1)),
            quantity_outstanding: Some(Some(0.1 + 0.2)),
            date: Some(Some("2026-12-01".into())),
            ..LineItemInput::default()
        },
        LineItemInput {
            product_code: Some("second".into()),
            product_name: Some("Second".into()),
            product_quantity: Some(1.0),
            product_value: Some(Some(12.34)),
            ..LineItemInput::default()
        },
    ]);
    upsert_batch(
        &store,
        &geo,
        scope,
        vec![posted, order("J-2", "P")],
        at(1),
        Arc::new(()),
    )
    .unwrap();
    let s: &dyn Store = &store;
    let (together, alone) = s
        .transaction_in(scope, |tx| {
            let together = tx.find_orders_by_numbers(scope, &["J-1", "J-2", "J-3"])?;
            let mut alone = Vec::new();
            for n in ["J-1", "J-2"] {
                let o = tx.find_order_by_number(scope, n)?.unwrap();
                alone.push(tx.get_order(scope, o.order.id)?.unwrap());
            }
            Ok::<_, StoreError>((together, alone))
        })
        .unwrap();
    assert_eq!(together.len(), 2, "J-3 is not stored");
    assert_eq!(together["J-1"].order, alone[0]);
    assert_eq!(together["J-2"].order, alone[1]);
    let items = &together["J-1"].order.line_items;
    assert_eq!(items.len(), 2);
    assert_eq!(items[0].product_code, awkward);
    assert_eq!(items[0].quantity_outstanding, Some(0.1 + 0.2));
}

/// Which numbers are stored, with the text each stored order holds: its row's and its line
/// items', so that a batch reads large stored orders a few at a time.
#[test]
fn stored_order_sizes_count_the_text_of_the_row_and_of_the_line_items() {
    let url = crate::store::cluster().create_database().unwrap();
    let store = PostgresStore::open(&url).unwrap();
    let scope = depot(&store);
    let geo = InMemoryGazetteer::new();
    let mut large = order("L-1", "P");
    large.delivery.fields.notes = Some(Some("n".repeat(300_000)));
    let mut items = order("L-2", "P");
    items.line_items = Some(
        (0..200)
            .map(|i| LineItemInput {
                product_code: Some(format!("{i:03}{}", "c".repeat(17))),
                product_name: Some("n".repeat(75)),
                product_quantity: Some(1.0),
                ..LineItemInput::default()
            })
            .collect(),
    );
    let batch = vec![large, items, order("L-3", "P")];
    upsert_batch(&store, &geo, scope, batch, at(1), Arc::new(())).unwrap();
    let s: &dyn Store = &store;
    let sizes = s
        .transaction_in(scope, |tx| {
            tx.stored_order_sizes(scope, &["L-1", "L-2", "L-3", "L-4"])
        })
        .unwrap();
    assert_eq!(sizes.len(), 3, "L-4 is not stored");
    let size = |n: &str| sizes[n].unwrap();
    assert!((300_000..310_000).contains(&size("L-1")), "{}", size("L-1"));
    // 200 items of 103 bytes each (code, name, status, no capacities, no custom fields).
    assert!((20_600..22_000).contains(&size("L-2")), "{}", size("L-2"));
    assert!(size("L-3") < 2_000, "{}", size("L-3"));
}

/// New orders' line items, inserted together after them, are numbered by order in the batch,
/// then by position.
#[test]
fn new_orders_and_their_line_items_go_in_together_numbered_in_order() {
    let url = crate::store::cluster().create_database().unwrap();
    let store = PostgresStore::open(&url).unwrap();
    let scope = depot(&store);
    let geo = InMemoryGazetteer::new();
    let with_items = |number: &str, products: &[&str]| {
        let mut o = order(number, "P");
        o.line_items = Some(
            products
                .iter()
                .map(|p| LineItemInput {
                    product_code: Some((*p).into()),
                    product_name: Some(format!("{p} name")),
                    product_quantity: Some(2.0),
                    ..LineItemInput::default()
                })
                .collect(),
        );
        o
    };
    let batch = vec![
        with_items("N-2", &["B1", "B2"]),
        with_items("N-1", &["A1", "A2", "A3"]),
        with_items("N-3", &[]),
    ];
    let written = upsert_batch(&store, &geo, scope, batch, at(1), Arc::new(())).unwrap();
    let s: &dyn Store = &store;
    let mut ids = Vec::new();
    for w in &written {
        let o = s.read(|tx| tx.get_order(scope, w.id)).unwrap().unwrap();
        assert_eq!(o.order_number, w.order_number);
        let codes: Vec<&str> = o
            .line_items
            .iter()
            .map(|i| i.product_code.as_str())
            .collect();
        let expected: &[&str] = match w.order_number.as_str() {
            "N-1" => &["A1", "A2", "A3"],
            "N-2" => &["B1", "B2"],
            _ => &[],
        };
        assert_eq!(codes, expected, "{}", w.order_number);
        assert!(o.line_items.iter().all(|i| i.quantity == 2));
        ids.push((
            o.order_number.clone(),
            o.line_items.iter().map(|i| i.id).collect::<Vec<_>>(),
        ));
    }
    // Written in number order (writers beside each other lock and insert in that order).
    ids.sort();
    let flat: Vec<i64> = ids.into_iter().flat_map(|(_, ids)| ids).collect();
    assert!(flat.windows(2).all(|w| w[0] < w[1]), "{flat:?}");
}

/// The catalog and which numbers are stored, asked in one statement, are what each question
/// alone answers: the depot's four lists, and the stored orders with their sizes.
#[test]
fn the_catalog_with_the_stored_order_sizes_is_each_question_answered_alone() {
    let url = crate::store::cluster().create_database().unwrap();
    let store = PostgresStore::open(&url).unwrap();
    let scope = depot(&store);
    let geo = InMemoryGazetteer::new();
    let s: &dyn Store = &store;
    s.transaction(|tx| {
        tx.upsert_capacity_type(scope, "weight", "0", at(1))?;
        tx.upsert_skill(scope, "forklift", at(1))?;
        tx.upsert_tag(scope, "fragile", at(1))?;
        tx.upsert_tag(scope, "cold", at(1))?;
        tx.upsert_custom_field(scope, "door code", at(1))?;
        Ok::<_, StoreError>(())
    })
    .unwrap();
    let batch = vec![order("C-1", "P"), order("C-2", "P")];
    upsert_batch(&store, &geo, scope, batch, at(2), Arc::new(())).unwrap();
    let numbers = ["C-2", "C-9", "C-1"];
    let (together, catalog, sizes) = s
        .transaction_in(scope, |tx| {
            let together = tx.catalog_with_stored_order_sizes(scope, &numbers, false)?;
            Ok::<_, StoreError>((
                together,
                tx.reference_catalog(scope)?,
                tx.stored_order_sizes(scope, &numbers)?,
            ))
        })
        .unwrap();
    let (together_catalog, together_sizes) = together.expect("one question on PostgreSQL");
    assert_eq!(together_catalog, catalog);
    assert_eq!(together_catalog.tags.len(), 2);
    assert_eq!(together_sizes, sizes);
    assert_eq!(sizes.len(), 2, "C-9 is not stored");
    // Unless the first number is new: then the stored ones are not looked up.
    let ask = |numbers: [&str; 3]| {
        s.transaction_in(scope, |tx| {
            tx.catalog_with_stored_order_sizes(scope, &numbers, true)
        })
        .unwrap()
        .expect("one question on PostgreSQL")
    };
    assert_eq!(ask(numbers), (catalog.clone(), sizes));
    let (first_new_catalog, first_new_sizes) = ask(["C-9", "C-1", "C-2"]);
    assert_eq!(first_new_catalog, catalog);
    assert!(first_new_sizes.is_empty(), "{first_new_sizes:?}");
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
