//! Customers and orders: numbering, soft deletion, line items, attachments, paging.

use std::collections::HashSet;

use super::{at, two_depots};
use crate::events::DomainEvent;
use crate::model::customer::{Customer, CustomerTimeWindow};
use crate::model::line_item::LineItem;
use crate::model::order::{Endpoint, Order, OrderTimeWindow, OrderType, Priority, Side};
use crate::model::order_fields::{CapacityAmount, CustomFieldValue};
use crate::model::order_value::{Money, UnitPrice};
use crate::paging::PageRequest;
use crate::ports::store::{NewAttachment, OrderFilter, Store, StoreError};
use crate::status::Status;
use crate::time::{Date, TimeOfDay, Weekday};

/// A customer with account `account`, last updated at `updated` ms.
pub fn customer(account: &str, updated: i64) -> Customer {
    Customer {
        id: 0,
        account: account.into(),
        name: Some("Ann".into()),
        address: Some("1 High St".into()),
        postcode: None,
        phone: Some("1".into()),
        email: None,
        lat: Some(51.5),
        lng: Some(-0.1),
        duration: Some(10.0),
        notes: None,
        capacities: vec![CapacityAmount {
            capacity_type_id: 1,
            amount: 2.5,
        }],
        skills: vec!["Forklift".into()],
        tags: vec!["Fragile".into()],
        time_windows: vec![CustomerTimeWindow {
            from: TimeOfDay::parse("08:00").unwrap(),
            to: None,
        }],
        custom_fields: vec![CustomFieldValue {
            field_id: 1,
            value: "42".into(),
        }],
        created: at(updated),
        updated: at(updated),
    }
}

/// An order numbered `number`.
pub fn order(number: &str, updated: i64) -> Order {
    Order {
        id: 0,
        order_number: number.into(),
        kind: OrderType::Shipment,
        status: Status::open(),
        priority: Some(Priority::P2),
        customer_id: None,
        delivery: Endpoint {
            address: Some("1 High St".into()),
            lat: Some(51.5),
            lng: Some(-0.1),
            available_days: vec![Weekday::Monday],
            ..Endpoint::default()
        },
        pickup: Endpoint {
            postcode: Some("AB1".into()),
            duration: Some(5.0),
            ..Endpoint::default()
        },
        delivery_date: Date::parse("2026-12-01"),
        time_windows: vec![OrderTimeWindow {
            side: Side::Pickup,
            from: TimeOfDay::parse("06:00").unwrap(),
            to: TimeOfDay::parse("07:00").unwrap(),
        }],
        exchange_reference: None,
        parts: Some(2.0),
        vehicle_id: None,
        emails: vec!["a@example.com".into()],
        third_party_id: None,
        tags: vec!["Fragile".into()],
        skills: vec!["Crane".into()],
        capacities: vec![CapacityAmount {
            capacity_type_id: 1,
            amount: 3.0,
        }],
        custom_fields: vec![CustomFieldValue {
            field_id: 1,
            value: "x".into(),
        }],
        manual_value: Some(Money::from_cents(1050)),
        line_items: vec![LineItem {
            id: 0,
            product_code: "P1".into(),
            product_name: "Thing".into(),
            quantity: 2,
            unit_price: Some(UnitPrice::from_micros(1_500_000)),
            manual_value: None,
            quantity_outstanding: Some(1.0),
            status: Status::open(),
            date: Date::parse("2026-12-02"),
            capacities: Vec::new(),
            custom_fields: Vec::new(),
        }],
        created: at(updated),
        updated: at(updated),
    }
}

/// The first page of `limit` items.
pub fn page(limit: usize) -> PageRequest {
    PageRequest {
        after: None,
        limit,
        updated_at_min: None,
    }
}

/// Runs the scenario on `store` (a fresh, empty store).
pub fn customers_and_orders(store: &dyn Store) {
    let (a, b) = two_depots(store);
    store
        .transaction(|tx| {
            // Customers: every field round-trips; accounts are per depot; pages go newest first.
            let c1 = tx.insert_customer(a, &customer("C1", 1))?;
            tx.insert_customer(a, &customer("C2", 2))?;
            tx.insert_customer(b, &customer("C1", 3))?;
            let stored = tx.get_customer(a, c1)?.unwrap();
            assert_eq!(
                stored,
                Customer {
                    id: c1,
                    ..customer("C1", 1)
                }
            );
            assert_eq!(tx.find_customer_by_account(a, "C1")?.unwrap().id, c1);
            assert!(tx.get_customer(b, c1)?.is_none());
            assert_eq!(tx.count_customers(a)?, 2);
            let first = tx.list_customers(a, &page(1))?;
            assert_eq!(first.items[0].account, "C2");
            assert!(
                first.items[0].tags.is_empty(),
                "list view leaves the sets out"
            );
            let second = tx.list_customers(
                a,
                &PageRequest {
                    after: first.next,
                    ..page(1)
                },
            )?;
            assert_eq!(
                (second.items[0].account.as_str(), second.next),
                ("C1", None)
            );

            // Orders: every field round-trips, line items get ids.
            let o1 = tx.insert_order(
                a,
                &Order {
                    customer_id: Some(c1),
                    ..order("O1", 10)
                },
            )?;
            let o2 = tx.insert_order(a, &order("O2", 11))?;
            let got = tx.get_order(a, o1)?.unwrap();
            assert_ne!(got.line_items[0].id, 0);
            let mut expected = Order {
                id: o1,
                customer_id: Some(c1),
                ..order("O1", 10)
            };
            expected.line_items[0].id = got.line_items[0].id;
            assert_eq!(got, expected);
            assert!(tx.get_order(b, o1)?.is_none());

            // Filters combine and pages walk newest first.
            let filter = OrderFilter {
                customer_id: Some(c1),
                ..OrderFilter::default()
            };
            let only = tx.list_orders(a, &filter, &page(10))?;
            assert_eq!(only.items.iter().map(|o| o.id).collect::<Vec<_>>(), [o1]);
            assert_eq!(only.items[0].customer, Some((c1, "C1".into())));
            let p1 = tx.list_orders(a, &OrderFilter::default(), &page(1))?;
            assert_eq!(p1.items[0].id, o2);
            let p2 = tx.list_orders(
                a,
                &OrderFilter::default(),
                &PageRequest {
                    after: p1.next,
                    ..page(1)
                },
            )?;
            assert_eq!((p2.items[0].id, p2.next), (o1, None));
            let dated = OrderFilter {
                date: Date::parse("2026-12-01"),
                status: Some(Status::open()),
                ..OrderFilter::default()
            };
            assert_eq!(tx.list_orders(a, &dated, &page(10))?.items.len(), 2);

            // Line items: kept ids update, new ones insert, missing ones go.
            let mut changed = got.clone();
            changed.line_items[0].quantity = 5;
            let mut extra = changed.line_items[0].clone();
            extra.id = 0;
            extra.product_code = "P2".into();
            changed.line_items.push(extra);
            changed.updated = at(12);
            tx.update_order(a, &changed)?;
            let after = tx.get_order(a, o1)?.unwrap();
            assert_eq!(after.line_items[0].id, got.line_items[0].id);
            assert_eq!(after.line_items[0].quantity, 5);
            assert_eq!(after.line_items.len(), 2);

            // The removed (and newest) line item's id is never handed out again: a client
            // holding it must not find another product under it.
            let removed = after.line_items[1].id;
            let mut shorter = after.clone();
            shorter.line_items.truncate(1);
            shorter.updated = at(13);
            tx.update_order(a, &shorter)?;
            let mut readded = shorter.clone();
            let mut fresh = after.line_items[1].clone();
            fresh.id = 0;
            fresh.product_code = "P3".into();
            readded.line_items.push(fresh);
            readded.updated = at(14);
            tx.update_order(a, &readded)?;
            let next = tx.get_order(a, o1)?.unwrap().line_items[1].id;
            assert!(
                next > removed,
                "line item id {next} after the removed {removed}"
            );

            // Exchange pairs, soft delete and restore under the same id.
            tx.link_exchange(a, [o1, o2], "X")?;
            assert_eq!(tx.exchange_partner(a, o1)?, Some(o2));
            assert_eq!(
                tx.get_order(a, o2)?.unwrap().exchange_reference.as_deref(),
                Some("X")
            );
            assert_eq!(tx.delete_order(a, o1)?, Some(2));
            assert_eq!(tx.delete_order(a, o1)?, None);
            assert!(tx.get_order(a, o1)?.is_none());
            let found = tx.find_order_by_number(a, "O1")?.unwrap();
            assert!(found.deleted);
            tx.update_order(a, &found.order)?;
            assert!(tx.get_order(a, o1)?.is_some());

            // Attachments, status removal, outbox.
            let file = NewAttachment {
                order_id: o1,
                name: "a.pdf",
                file_name: "a.pdf",
                mime: "application/pdf",
                ext: "pdf",
                content: b"%PDF-",
            };
            let att = tx.insert_attachment(a, &file, at(20))?;
            assert_eq!(tx.list_attachments(a, o1)?, vec![att]);
            assert!(tx.list_attachments(b, o1)?.is_empty());
            tx.insert_custom_order_status(a.organisation_id, "RETURNED", at(0))?;
            assert!(tx.delete_custom_order_status(a.organisation_id, "RETURNED")?);
            assert!(!tx.delete_custom_order_status(a.organisation_id, "RETURNED")?);
            let event = DomainEvent::OrderStatus {
                order_id: o1,
                order_number: "O1".into(),
                status: "ROUTED".into(),
            };
            tx.append_event(a, &event, at(21))?;
            assert_eq!(tx.list_events(a)?, vec![event]);
            assert!(tx.list_events(b)?.is_empty());
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

/// Which of many order ids are live, asked at once: deleted orders, another depot's and
/// unknown ids are left out, a repeated id is answered once, and a list longer than any
/// backend binds in one statement is answered whole.
pub fn live_orders_of_many_ids_at_once(store: &dyn Store) {
    let (a, b) = two_depots(store);
    store
        .transaction(|tx| {
            let o1 = tx.insert_order(a, &order("L1", 1))?;
            let o2 = tx.insert_order(a, &order("L2", 2))?;
            let gone = tx.insert_order(a, &order("L3", 3))?;
            let theirs = tx.insert_order(b, &order("L1", 4))?;
            tx.delete_order(a, gone)?;
            assert_eq!(tx.live_order_ids(a, &[])?, HashSet::new());
            let asked = [o2, gone, theirs, o1, o2, 424_242];
            assert_eq!(tx.live_order_ids(a, &asked)?, HashSet::from([o1, o2]));
            // More ids than SQLite (32 766) or PostgreSQL (65 535) bind in one statement.
            let many: Vec<i64> = (1_000_000..1_070_000).chain([o1]).collect();
            assert_eq!(tx.live_order_ids(a, &many)?, HashSet::from([o1]));
            Ok::<_, StoreError>(())
        })
        .unwrap();
}

/// `expected` with the ids of its new line items (id 0) taken from `got`, position by position.
fn with_new_item_ids(mut expected: Order, got: &Order) -> Order {
    for (item, stored) in expected.line_items.iter_mut().zip(&got.line_items) {
        if item.id == 0 {
            item.id = stored.id;
        }
    }
    expected
}

/// Many orders overwritten in one call end as if each were overwritten alone: kept line items
/// keep their ids and take the new fields, new ones get ids never handed out before, missing
/// ones go, a deleted order is restored, an order without an exchange reference leaves its
/// pair; an order of another depot fails the call (and the transaction writes nothing), and an
/// order named twice ends as its last version.
pub fn orders_updated_together(store: &dyn Store) {
    let (a, b) = two_depots(store);
    let (o1, o2, o3, theirs) = store
        .transaction(|tx| {
            let o1 = tx.insert_order(a, &order("U1", 1))?;
            let o2 = tx.insert_order(a, &order("U2", 2))?;
            let o3 = tx.insert_order(a, &order("U3", 3))?;
            let theirs = tx.insert_order(b, &order("U1", 4))?;
            tx.delete_order(a, o3)?;
            tx.link_exchange(a, [o1, o2], "X")?;
            Ok::<_, StoreError>((o1, o2, o3, theirs))
        })
        .unwrap();
    let stored = |scope, id| {
        store
            .read(|tx| tx.find_order_by_id(scope, id))
            .unwrap()
            .unwrap()
    };
    let (s1, s2, s3) = (
        stored(a, o1).order,
        stored(a, o2).order,
        stored(a, o3).order,
    );
    let highest = [&s1, &s2, &s3]
        .iter()
        .flat_map(|o| o.line_items.iter().map(|i| i.id))
        .max()
        .unwrap();

    let mut n1 = s1.clone();
    n1.line_items[0].quantity = 7;
    n1.line_items.push(LineItem {
        id: 0,
        product_code: "P9".into(),
        ..s1.line_items[0].clone()
    });
    n1.exchange_reference = None;
    n1.updated = at(10);
    let mut n2 = s2.clone();
    n2.line_items = ["N1", "N2"]
        .map(|code| LineItem {
            id: 0,
            product_code: code.into(),
            ..s2.line_items[0].clone()
        })
        .to_vec();
    n2.priority = Some(Priority::P1);
    n2.updated = at(11);
    let mut n3 = s3.clone();
    n3.delivery_date = Date::parse("2026-12-05");
    n3.updated = at(12);
    store
        .transaction(|tx| tx.update_orders(a, &[n1.clone(), n2.clone(), n3.clone()]))
        .unwrap();
    let (g1, g2, g3) = (stored(a, o1), stored(a, o2), stored(a, o3));
    assert_eq!(g1.order.line_items[0].id, s1.line_items[0].id);
    assert_eq!(g1.order, with_new_item_ids(n1, &g1.order));
    assert_eq!(g2.order, with_new_item_ids(n2, &g2.order));
    assert_eq!((g3.order.clone(), g3.deleted), (n3, false));
    let new_ids: HashSet<i64> = [g1.order.line_items[1].id]
        .into_iter()
        .chain(g2.order.line_items.iter().map(|i| i.id))
        .collect();
    assert_eq!(new_ids.len(), 3, "new line items get distinct ids");
    assert!(
        new_ids.iter().all(|id| *id > highest),
        "{new_ids:?} after {highest}"
    );
    store
        .read(|tx| {
            assert_eq!(tx.exchange_partner(a, o2)?, None);
            assert_eq!(tx.exchange_partner(a, o1)?, None);
            Ok::<_, StoreError>(())
        })
        .unwrap();

    let foreign = stored(b, theirs).order;
    let changed = Order {
        priority: None,
        updated: at(20),
        ..g1.order.clone()
    };
    assert!(store
        .transaction(|tx| tx.update_orders(a, &[changed, foreign.clone()]))
        .is_err());
    assert_eq!(stored(a, o1).order, g1.order);
    assert_eq!(stored(b, theirs).order, foreign);

    let first = Order {
        priority: Some(Priority::P3),
        updated: at(30),
        ..g1.order.clone()
    };
    let last = Order {
        updated: at(31),
        ..g1.order.clone()
    };
    store
        .transaction(|tx| tx.update_orders(a, &[first, last.clone()]))
        .unwrap();
    assert_eq!(stored(a, o1).order, last);
}

/// New orders made ready before their transaction ([`Store::prepare_new_orders`]) are stored
/// as [`insert_orders`](crate::ports::store::OrderRepo::insert_orders) stores them, ids in
/// order and line items with new ids; a number the depot already holds (deleted or not) fails
/// the insert with a conflict and the transaction writes none of them, while the same number
/// in another depot is no conflict.
pub fn prepared_orders_inserted_or_refused(store: &dyn Store) {
    let (a, b) = two_depots(store);
    let mut two_items = order("P2", 2);
    two_items.line_items.push(LineItem {
        product_code: "P2".into(),
        ..two_items.line_items[0].clone()
    });
    let (theirs, deleted) = store
        .transaction(|tx| {
            let theirs = tx.insert_order(b, &order("P1", 1))?;
            let deleted = tx.insert_order(a, &order("D1", 1))?;
            tx.delete_order(a, deleted)?;
            Ok::<_, StoreError>((theirs, deleted))
        })
        .unwrap();
    let prepared = store.prepare_new_orders(a, vec![order("P1", 1), two_items.clone()]);
    let ids = store
        .transaction(|tx| tx.insert_prepared_orders(a, prepared))
        .unwrap();
    assert_eq!(ids.len(), 2);
    let got: Vec<Order> = ids
        .iter()
        .map(|&id| store.read(|tx| tx.get_order(a, id)).unwrap().unwrap())
        .collect();
    let expected = [order("P1", 1), two_items];
    for (got, (expected, id)) in got.iter().zip(expected.into_iter().zip(&ids)) {
        assert_eq!(
            *got,
            with_new_item_ids(
                Order {
                    id: *id,
                    ..expected
                },
                got
            )
        );
    }
    let items: HashSet<i64> = got
        .iter()
        .flat_map(|o| o.line_items.iter().map(|i| i.id))
        .collect();
    assert_eq!(items.len(), 3, "every new line item gets an id of its own");
    assert_eq!(
        store
            .read(|tx| tx.get_order(b, theirs))
            .unwrap()
            .unwrap()
            .order_number,
        "P1"
    );

    for taken in ["P2", "D1"] {
        let prepared = store.prepare_new_orders(a, vec![order("P3", 3), order(taken, 3)]);
        let refused = store.transaction(|tx| tx.insert_prepared_orders(a, prepared));
        assert!(
            matches!(refused, Err(StoreError::Conflict(_))),
            "{taken}: {refused:?}"
        );
        assert_eq!(
            store.read(|tx| tx.find_order_by_number(a, "P3")).unwrap(),
            None,
            "a refused insert writes none of its orders"
        );
    }
    let restored = store.read(|tx| tx.find_order_by_id(a, deleted)).unwrap();
    assert!(restored.is_some_and(|o| o.deleted));
}
