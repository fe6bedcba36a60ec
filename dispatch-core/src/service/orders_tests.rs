use super::*;
use std::sync::Arc;

use crate::events::DomainEvent;
use crate::model::line_item::LineItemInput;
use crate::model::test_fixtures::delivery as order;
use crate::paging::PageRequest;
use crate::ports::geocoder::InMemoryGazetteer;
use crate::ports::matrix::GreatCircle;
use crate::ports::store::InMemoryStore;
use crate::service::customers::tests::setup;
use crate::service::order_events::apply_status_event;
use crate::service::order_reads::{self, OrderQuery};

/// A time of the tests' clock, `ms` after the epoch.
pub(super) fn at(ms: i64) -> Timestamp {
    Timestamp::from_millis(ms)
}

fn speed() -> GreatCircle {
    GreatCircle::new(GreatCircle::DEFAULT_SPEED_KMH).unwrap()
}

pub(super) fn first_page() -> PageRequest {
    PageRequest {
        after: None,
        limit: 100,
        updated_at_min: None,
    }
}

/// POSTs `orders` to the depot at time 1, as one batch.
pub(super) fn post(
    store: &InMemoryStore,
    geo: &InMemoryGazetteer,
    scope: DepotScope,
    orders: &[OrderInput],
) -> Vec<WrittenOrder> {
    upsert_batch(store, geo, scope, orders.to_vec(), at(1), Arc::new(())).unwrap()
}

#[test]
fn post_geocodes_addresses_and_reports_failures_per_item() {
    let (store, geo, a, _) = setup();
    let mut lost = order("B");
    lost.delivery.fields.address = Some(Some("Nowhere".into()));
    let w = post(&store, &geo, a, &[order("A"), lost]);
    assert_eq!(
        (w[0].geocoding_failed, w[1].geocoding_failed),
        (false, true)
    );
    let stored = order_reads::get(&store, a, w[0].id).unwrap().order;
    assert_eq!(stored.delivery.lat, Some(51.5));
}

#[test]
fn a_deleted_order_is_restored_under_its_original_id() {
    let (store, geo, a, _) = setup();
    let w = post(&store, &geo, a, &[order("A")]);
    let deleted = order_reads::delete_by_number(&store, &speed(), a, "A", at(2)).unwrap();
    assert_eq!(deleted.orders_count, 1);
    assert!(order_reads::get(&store, a, w[0].id).is_err());
    let again = post(&store, &geo, a, &[order("A")]);
    assert_eq!((again[0].id, again[0].is_created), (w[0].id, false));
    assert!(order_reads::get(&store, a, w[0].id).is_ok());
}

#[test]
fn delete_by_number_deletes_the_exchange_partner_and_counts_line_items() {
    let (store, geo, a, _) = setup();
    let ex = |n: &str| OrderInput {
        order_exchange: Some(Some("X".into())),
        line_items: Some(vec![LineItemInput {
            product_code: Some("P".into()),
            product_name: Some("Thing".into()),
            product_quantity: Some(1.0),
            ..LineItemInput::default()
        }]),
        ..order(n)
    };
    post(&store, &geo, a, &[ex("A"), ex("B")]);
    let d = order_reads::delete_by_number(&store, &speed(), a, "A", at(2)).unwrap();
    assert_eq!((d.orders_count, d.line_items_count), (2, 2));
    assert_eq!(
        order_reads::delete_by_number(&store, &speed(), a, "nope", at(2))
            .unwrap()
            .orders_count,
        0
    );
}

#[test]
fn orders_without_customer_are_refused_where_the_depot_requires_one() {
    let (store, geo, a, _) = setup();
    let dyn_store: &dyn Store = &store;
    dyn_store
        .transaction(|tx| {
            let mut depot = tx.get_depot(a)?.unwrap();
            depot.settings.allow_orders_without_customer = false;
            let new = crate::ports::store::NewDepot {
                name: depot.name.clone(),
                address: None,
                location: None,
                settings: depot.settings,
            };
            tx.update_depot(a, &new, at(0))
        })
        .unwrap();
    assert!(matches!(
        upsert_batch(&store, &geo, a, vec![order("A")], at(1), Arc::new(())),
        Err(ServiceError::Permission(_))
    ));
    let with = OrderInput {
        customer: Some(crate::model::order_input::OrderCustomerInput {
            account: Some("C1".into()),
            ..Default::default()
        }),
        ..order("A")
    };
    let w = upsert_batch(&store, &geo, a, vec![with], at(1), Arc::new(())).unwrap();
    let stored = order_reads::get(&store, a, w[0].id).unwrap().order;
    let customer = crate::service::customers::get(&store, a, stored.customer_id.unwrap()).unwrap();
    assert_eq!(
        (customer.account.as_str(), customer.address.as_deref()),
        ("C1", Some("1 High St"))
    );
}

#[test]
fn a_line_item_status_change_writes_an_orders_status_event_to_the_outbox() {
    let (store, geo, a, _) = setup();
    let item = |status: Option<&str>| LineItemInput {
        product_code: Some("P".into()),
        product_name: Some("Thing".into()),
        product_quantity: Some(1.0),
        status: status.map(Into::into),
        ..LineItemInput::default()
    };
    let w = post(
        &store,
        &geo,
        a,
        &[OrderInput {
            line_items: Some(vec![item(None)]),
            ..order("A")
        }],
    );
    let change = OrderInput {
        line_items: Some(vec![item(Some("DELIVERED"))]),
        ..OrderInput::default()
    };
    let updated = update(&store, &geo, a, w[0].id, change, at(2)).unwrap();
    assert_eq!(updated.order.status.as_str(), "DELIVERED");
    let dyn_store: &dyn Store = &store;
    let events = dyn_store.read(|tx| tx.list_events(a)).unwrap();
    assert_eq!(
        events,
        vec![DomainEvent::OrderStatus {
            order_id: w[0].id,
            order_number: "A".into(),
            status: "DELIVERED".into()
        }]
    );
}

#[test]
fn list_filters_combine_and_unknown_status_or_bad_date_are_invalid() {
    let (store, geo, a, b) = setup();
    let mut dated = order("B");
    dated.delivery_date = Some(Some("2026-11-23".into()));
    post(&store, &geo, a, &[order("A"), dated]);
    let q = |status: Option<&str>, date: Option<&str>| OrderQuery {
        status: status.map(Into::into),
        date: date.map(Into::into),
        ..OrderQuery::default()
    };
    let numbers = |query: OrderQuery| -> Vec<String> {
        order_reads::list(&store, a, &query, &first_page())
            .unwrap()
            .page
            .items
            .into_iter()
            .map(|o| o.order_number)
            .collect()
    };
    assert_eq!(numbers(q(Some("open"), None)), ["B", "A"]);
    assert_eq!(numbers(q(Some("open"), Some("2026-11-23"))), ["B"]);
    assert!(numbers(q(Some("delivered"), None)).is_empty());
    assert!(order_reads::list(&store, a, &q(Some("SHIPPED"), None), &first_page()).is_err());
    assert!(order_reads::list(&store, a, &q(None, Some("23/11/2026")), &first_page()).is_err());
    assert!(
        order_reads::list(&store, b, &OrderQuery::default(), &first_page())
            .unwrap()
            .page
            .items
            .is_empty()
    );
}

#[test]
fn an_order_has_at_most_two_attachments_of_the_allowed_types() {
    let (store, geo, a, _) = setup();
    let w = post(&store, &geo, a, &[order("A")]);
    let pdf = b"%PDF-1.4 hello";
    assert!(order_reads::add_attachment(&store, a, w[0].id, "x.pdf", b"hello", at(2)).is_err());
    order_reads::add_attachment(&store, a, w[0].id, "x.pdf", pdf, at(2)).unwrap();
    order_reads::add_attachment(&store, a, w[0].id, "y.pdf", pdf, at(2)).unwrap();
    assert!(order_reads::add_attachment(&store, a, w[0].id, "z.pdf", pdf, at(2)).is_err());
    assert_eq!(
        order_reads::get(&store, a, w[0].id)
            .unwrap()
            .attachments
            .len(),
        2
    );
}

#[test]
fn a_status_event_is_stored_with_its_orders_status_row_in_the_same_transaction() {
    let (store, geo, a, _) = setup();
    let item = LineItemInput {
        product_code: Some("P".into()),
        product_name: Some("Thing".into()),
        product_quantity: Some(1.0),
        ..LineItemInput::default()
    };
    let w = post(
        &store,
        &geo,
        a,
        &[OrderInput {
            line_items: Some(vec![item]),
            ..order("A")
        }],
    );
    let dyn_store: &dyn Store = &store;
    let events = dyn_store
        .transaction(|tx| {
            apply_status_event(tx, a, w[0].id, crate::status::OrderEvent::Dispatched, at(5))
        })
        .unwrap();
    assert_eq!(events.len(), 1);
    let stored = order_reads::get(&store, a, w[0].id).unwrap().order;
    assert_eq!(
        (stored.status.as_str(), stored.line_items[0].status.as_str()),
        ("ROUTED", "ROUTED")
    );
    assert_eq!(stored.updated, at(5));
    assert_eq!(
        dyn_store.read(|tx| tx.list_events(a)).unwrap(),
        vec![DomainEvent::OrderStatus {
            order_id: w[0].id,
            order_number: "A".into(),
            status: "ROUTED".into()
        }]
    );
    let again = dyn_store.transaction(|tx| {
        apply_status_event(tx, a, w[0].id, crate::status::OrderEvent::Dispatched, at(6))
    });
    assert!(
        matches!(again, Err(ServiceError::Invalid(_))),
        "a routed order cannot be dispatched again"
    );
    let quiet = dyn_store
        .transaction(|tx| {
            apply_status_event(
                tx,
                a,
                w[0].id,
                crate::status::OrderEvent::Resubmitted,
                at(7),
            )
        })
        .unwrap();
    assert!(quiet.is_empty());
    assert_eq!(
        order_reads::get(&store, a, w[0].id).unwrap().order.updated,
        at(5),
        "no change, no write"
    );
}

#[test]
fn a_read_carries_the_reference_data_exactly_when_its_order_names_some() {
    use crate::model::order_fields::{CapacityInput, Catalog, CustomFieldInput};
    let (store, geo, a, _) = setup();
    let weighed = OrderInput {
        capacities: Some(vec![CapacityInput {
            kind: Some("Weight".into()),
            capacity: Some(2.0),
            ..CapacityInput::default()
        }]),
        ..order("B")
    };
    let item_field = OrderInput {
        line_items: Some(vec![LineItemInput {
            product_code: Some("P".into()),
            product_name: Some("Thing".into()),
            product_quantity: Some(1.0),
            custom_fields: Some(vec![CustomFieldInput {
                name: Some("Gate code".into()),
                value: Some("1234".into()),
                ..CustomFieldInput::default()
            }]),
            ..LineItemInput::default()
        }]),
        ..order("C")
    };
    let w = post(&store, &geo, a, &[order("A"), weighed, item_field]);
    let catalog = |i: usize| order_reads::get(&store, a, w[i].id).unwrap().catalog;
    assert_eq!(catalog(0), Catalog::default());
    let names = |c: Catalog| {
        let types = c.capacity_types.into_iter().map(|t| t.name);
        types
            .chain(c.custom_fields.into_iter().map(|f| f.name))
            .collect::<Vec<_>>()
    };
    assert_eq!(names(catalog(1)), ["Weight", "Gate code"]);
    assert_eq!(names(catalog(2)), ["Weight", "Gate code"]);
}
