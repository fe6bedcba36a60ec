//! What a POST /orders batch of plain orders costs and keeps on PostgreSQL: its round trips
//! and prepared statements (the same for any batch size), its stored orders read with their
//! line items exactly as stored, their sizes, new line items numbered in order, and the first
//! statement's catalog with the stored numbers.

use std::sync::Arc;

use dispatch_core::model::line_item::LineItemInput;
use dispatch_core::model::order_input::OrderInput;
use dispatch_core::ports::geocoder::InMemoryGazetteer;
use dispatch_core::ports::store::conformance::at;
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::service::orders::upsert_batch;
use dispatch_store_postgres::PostgresStore;

use crate::order_writes::{depot, order};

/// Orders `from..from + 100`, each with one line item.
fn hundred(from: usize) -> Vec<OrderInput> {
    (from..from + 100)
        .map(|i| order(&format!("R-{i:04}"), "P1"))
        .collect()
}

/// A POST of 100 new orders is four round trips (BEGIN with its locks sent with the depot with
/// its statuses, the catalog and whether the first number is stored; the orders, inserted
/// where their numbers are free; their line items; COMMIT) and one of 100 stored orders five:
/// the first statement tells which are stored, they are read with their line items in one
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
    assert_eq!(post(hundred(100), 2), 4, "a hundred new orders");
    post(hundred(0), 3);
    assert_eq!(post(hundred(100), 4), 5, "a hundred stored orders");
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
    crate::store::reference_data(s, scope);
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
