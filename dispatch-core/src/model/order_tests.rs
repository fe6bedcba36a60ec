use proptest::prelude::*;

use super::*;
use crate::model::line_item::LineItemInput;
use crate::model::order_fields::TimeWindowInput;
use crate::model::order_validate::{
    validate_order, validate_order_batch, EndpointFields, EndpointInput, OrderInput, OrderWrite,
};
use crate::model::order_value::{Money, ValueSource};
use crate::model::test_fixtures::{catalog, delivery};

fn statuses() -> StatusSet {
    StatusSet::new(vec!["RETURNED".into()])
}

fn ctx<'a>(cat: &'a Catalog, st: &'a StatusSet, start: &'a Status, now: i64) -> OrderContext<'a> {
    OrderContext {
        catalog: cat,
        statuses: st,
        starting_status: start,
        now: Timestamp::from_millis(now),
    }
}

fn item(code: &str, qty: f64, price: Option<f64>) -> LineItemInput {
    LineItemInput {
        product_code: Some(code.into()),
        product_name: Some(format!("Product {code}")),
        product_quantity: Some(qty),
        product_unit_price: price.map(Some),
        ..LineItemInput::default()
    }
}

fn batch_paths(inputs: &[OrderInput]) -> Vec<String> {
    validate_order_batch(inputs.to_vec(), &statuses())
        .unwrap_err()
        .paths()
}

fn create(input: &OrderInput, now: i64) -> Order {
    post(None, input, now).order
}

fn post(existing: Option<&Order>, input: &OrderInput, now: i64) -> OrderMerge {
    let (cat, st, start) = (catalog(), statuses(), Status::open());
    let changes = validate_order_batch(vec![input.clone()], &st)
        .unwrap()
        .remove(0);
    merge_posted_order(existing, &changes, None, ctx(&cat, &st, &start, now)).unwrap()
}

fn put(existing: &Order, input: &OrderInput, taken: bool) -> Result<OrderMerge, Vec<String>> {
    let (cat, st, start) = (catalog(), statuses(), Status::open());
    let changes = validate_order(input.clone(), OrderWrite::Update, &st).map_err(|e| e.paths())?;
    apply_order_update(existing, &changes, taken, ctx(&cat, &st, &start, 99)).map_err(|e| e.paths())
}

#[test]
fn order_number_and_type_are_required_on_create() {
    assert_eq!(
        batch_paths(&[OrderInput::default()]),
        ["0.order_number", "0.type"]
    );
}

#[test]
fn an_order_number_is_at_most_255_characters_on_create_and_update() {
    let long = "\u{1F680}".repeat(256);
    assert_eq!(
        batch_paths(&[delivery(&"\u{1F680}".repeat(255)), delivery(&long)]),
        ["1.order_number"]
    );
    let stored = create(&delivery("A"), 1);
    let renamed = OrderInput {
        order_number: Some(Some(long)),
        ..OrderInput::default()
    };
    assert_eq!(put(&stored, &renamed, false).unwrap_err(), ["order_number"]);
}

#[test]
fn a_repeated_order_number_rejects_the_batch() {
    assert_eq!(
        batch_paths(&[delivery("A"), delivery("B"), delivery("A")]),
        ["2.order_number"]
    );
}

#[test]
fn a_shipment_needs_pickup_and_delivery_data() {
    let mut o = delivery("A");
    o.kind = Some(Some("shipment".into()));
    assert_eq!(batch_paths(&[o.clone()]), ["0.pickup_address"]);
    o.pickup.fields.lat = Some(Some(1.0));
    o.pickup.fields.lng = Some(Some(2.0));
    assert!(validate_order_batch(vec![o], &statuses()).is_ok());
}

#[test]
fn a_delivery_needs_delivery_data_and_a_pickup_pickup_data() {
    let mut d = delivery("A");
    d.delivery.fields.address = None;
    d.pickup.fields.address = Some(Some("x".into()));
    let mut p = delivery("B");
    p.kind = Some(Some("pickup".into()));
    assert_eq!(
        batch_paths(&[d, p]),
        ["0.delivery_address", "1.pickup_address"]
    );
}

#[test]
fn an_exchange_reference_must_be_shared_by_exactly_two_orders() {
    let ex = |n: &str| OrderInput {
        order_exchange: Some(Some("X".into())),
        ..delivery(n)
    };
    assert_eq!(batch_paths(&[ex("A")]), ["0.order_exchange.reference"]);
    assert!(validate_order_batch(vec![ex("A"), ex("B")], &statuses()).is_ok());
    assert_eq!(batch_paths(&[ex("A"), ex("B"), ex("C")]).len(), 3);
}

#[test]
fn at_most_100_orders_per_request() {
    let many: Vec<OrderInput> = (0..101).map(|i| delivery(&i.to_string())).collect();
    assert_eq!(batch_paths(&many), [""]);
}

#[test]
fn field_formats_are_checked_with_their_paths() {
    let mut o = delivery("A");
    o.priority = Some(Some("P4".into()));
    o.delivery_date = Some(Some("2026-13-01".into()));
    o.delivery.fields.contact_email = Some(Some("nope".into()));
    o.delivery.fields.country_code = Some(Some("GBR".into()));
    o.delivery.available_days = Some(vec!["FUNDAY".into()]);
    o.delivery.time_windows = Some(vec![TimeWindowInput {
        from: Some("09:00".into()),
        to: None,
        kind: None,
    }]);
    o.emails = Some(vec!["bad".into()]);
    assert_eq!(
        batch_paths(&[o]),
        [
            "0.priority",
            "0.delivery_contact_email",
            "0.delivery_country_code",
            "0.delivery_available_days.0",
            "0.delivery_date",
            "0.delivery_time_windows.0.to",
            "0.emails.0.email"
        ]
    );
}

#[test]
fn line_items_need_code_name_and_integer_quantity_within_limits() {
    let mut o = delivery("A");
    o.line_items = Some(vec![
        LineItemInput {
            product_code: Some("c".repeat(21)),
            product_name: Some("n".repeat(76)),
            product_quantity: Some(1.5),
            ..LineItemInput::default()
        },
        LineItemInput {
            product_code: Some("B".into()),
            ..LineItemInput::default()
        },
    ]);
    let (cat, st, start) = (catalog(), statuses(), Status::open());
    let errs = validate_order_batch(vec![o], &st).unwrap_err();
    let paths: Vec<String> = errs.paths();
    assert_eq!(
        paths,
        [
            "0.line_items.0.product_code",
            "0.line_items.0.product_name",
            "0.line_items.0.product_quantity"
        ]
    );
    let mut o = delivery("A");
    o.line_items = Some(vec![LineItemInput {
        product_code: Some("B".into()),
        ..LineItemInput::default()
    }]);
    let changes = validate_order_batch(vec![o], &st).unwrap().remove(0);
    let errs = merge_posted_order(None, &changes, None, ctx(&cat, &st, &start, 1)).unwrap_err();
    let paths: Vec<String> = errs.paths();
    assert_eq!(
        paths,
        ["line_items.0.product_name", "line_items.0.product_quantity"]
    );
}

#[test]
fn a_new_order_starts_open_and_unknown_tags_are_skipped() {
    let mut o = delivery("A");
    o.tags = Some(vec!["fragile".into(), "Unknown".into()]);
    o.skills = Some(vec!["forklift".into(), "Crane".into()]);
    let m = post(None, &o, 1);
    assert_eq!(m.order.status, Status::open());
    assert_eq!(m.order.tags, ["Fragile"]);
    assert_eq!(m.order.skills, ["Forklift", "Crane"]);
    assert_eq!(m.geocode, [Side::Delivery]);
    assert!(m.events.is_empty());
}

#[test]
fn existing_orders_keep_their_status_on_post() {
    let mut stored = create(&delivery("A"), 1);
    stored.id = 3;
    stored.status = Status::from_stored("DELIVERED");
    let m = post(Some(&stored), &delivery("A"), 2);
    assert_eq!(m.order.status.as_str(), "DELIVERED");
    assert_eq!((m.order.id, m.order.created.millis()), (3, 1));
    assert!(m.events.is_empty());
}

#[test]
fn product_value_is_derived_unless_given_and_the_order_value_derives_from_line_items() {
    let mut o = delivery("A");
    o.line_items = Some(vec![
        item("A", 3.0, Some(2.5)),
        LineItemInput {
            product_value: Some(Some(1.25)),
            ..item("B", 1.0, None)
        },
    ]);
    let order = create(&o, 1);
    assert_eq!(
        order.line_items[0].value(),
        Some((Money::from_cents(750), ValueSource::Derived))
    );
    assert_eq!(
        order.line_items[1].value(),
        Some((Money::from_cents(125), ValueSource::Manual))
    );
    assert_eq!(
        order.value(),
        Ok(Some((Money::from_cents(875), ValueSource::Derived)))
    );
}

#[test]
fn order_value_is_settable_only_without_valued_line_items() {
    let mut o = delivery("A");
    o.order_value = Some(Some(10.5));
    assert_eq!(
        create(&o, 1).value(),
        Ok(Some((Money::from_cents(1050), ValueSource::Manual)))
    );
    o.line_items = Some(vec![item("A", 1.0, Some(1.0))]);
    let (cat, st, start) = (catalog(), statuses(), Status::open());
    let changes = validate_order_batch(vec![o.clone()], &st)
        .unwrap()
        .remove(0);
    assert!(merge_posted_order(None, &changes, None, ctx(&cat, &st, &start, 1)).is_err());
    o.order_value = Some(Some(10.555));
    assert_eq!(batch_paths(&[o]), ["0.order_value"]);
}

#[test]
fn the_line_items_own_order_value_sent_back_is_accepted_and_sets_nothing() {
    let mut o = delivery("A");
    o.line_items = Some(vec![item("A", 2.0, Some(1.25))]);
    o.order_value = Some(Some(2.5));
    let (cat, st, start) = (catalog(), statuses(), Status::open());
    let changes = validate_order_batch(vec![o], &st).unwrap().remove(0);
    let made = merge_posted_order(None, &changes, None, ctx(&cat, &st, &start, 1))
        .expect("the value the line items give");
    assert_eq!(
        made.order.value(),
        Ok(Some((Money::from_cents(250), ValueSource::Derived)))
    );
    assert_eq!(made.order.manual_value, None);
}

#[test]
fn put_changes_only_sent_fields() {
    let mut o = delivery("A");
    o.priority = Some(Some("P1".into()));
    o.parts = Some(Some(2.0));
    let stored = create(&o, 1);
    let m = put(
        &stored,
        &OrderInput {
            parts: Some(Some(5.0)),
            ..OrderInput::default()
        },
        false,
    )
    .unwrap();
    assert_eq!(m.order.parts, Some(5.0));
    assert_eq!(m.order.priority, stored.priority);
    assert_eq!(m.order.delivery, stored.delivery);
}

#[test]
fn put_refuses_an_order_number_of_another_order() {
    let stored = create(&delivery("A"), 1);
    let change = OrderInput {
        order_number: Some(Some("B".into())),
        ..OrderInput::default()
    };
    assert_eq!(put(&stored, &change, true).unwrap_err(), ["order_number"]);
    assert!(put(&stored, &change, false).is_ok());
}

#[test]
fn put_refuses_a_type_change_that_leaves_a_missing_address() {
    let stored = create(&delivery("A"), 1);
    let change = OrderInput {
        kind: Some(Some("shipment".into())),
        ..OrderInput::default()
    };
    assert_eq!(put(&stored, &change, false).unwrap_err(), ["type"]);
}

#[test]
fn put_cannot_change_the_customer() {
    let mut stored = create(&delivery("A"), 1);
    stored.customer_id = Some(4);
    let same = OrderInput {
        customer_id: Some(Some(4)),
        ..OrderInput::default()
    };
    assert!(put(&stored, &same, false).is_ok());
    let other = OrderInput {
        customer_id: Some(Some(5)),
        ..OrderInput::default()
    };
    assert_eq!(put(&stored, &other, false).unwrap_err(), ["customer_id"]);
}

#[test]
fn put_order_exchange_only_renames_an_existing_pair() {
    let stored = create(&delivery("A"), 1);
    let rename = OrderInput {
        order_exchange: Some(Some("Y".into())),
        ..OrderInput::default()
    };
    assert_eq!(
        put(&stored, &rename, false).unwrap_err(),
        ["order_exchange"]
    );
    let paired = Order {
        exchange_reference: Some("X".into()),
        ..stored
    };
    assert_eq!(
        put(&paired, &rename, false)
            .unwrap()
            .order
            .exchange_reference
            .as_deref(),
        Some("Y")
    );
}

#[test]
fn put_time_windows_replace_all_windows_of_the_order() {
    let mut o = delivery("A");
    let w = |f: &str, t: &str| TimeWindowInput {
        from: Some(f.into()),
        to: Some(t.into()),
        kind: None,
    };
    o.delivery.time_windows = Some(vec![w("08:00", "09:00")]);
    o.pickup.time_windows = Some(vec![w("06:00", "07:00")]);
    let stored = create(&o, 1);
    assert_eq!(stored.time_windows.len(), 2);
    let change = OrderInput {
        delivery: EndpointInput {
            time_windows: Some(vec![w("10:00", "11:00")]),
            ..EndpointInput::default()
        },
        ..OrderInput::default()
    };
    let m = put(&stored, &change, false).unwrap();
    assert_eq!(m.order.time_windows.len(), 1);
    assert_eq!(
        (
            m.order.time_windows[0].side,
            m.order.time_windows[0].from.to_string()
        ),
        (Side::Delivery, "10:00".to_owned())
    );
}

#[test]
fn put_line_items_are_matched_by_product_code_and_missing_ones_removed() {
    let mut o = delivery("A");
    o.line_items = Some(vec![item("A", 1.0, None), item("B", 2.0, None)]);
    let mut stored = create(&o, 1);
    stored.line_items[0].id = 10;
    stored.line_items[1].id = 11;
    let change = OrderInput {
        line_items: Some(vec![
            LineItemInput {
                product_code: Some("B".into()),
                product_quantity: Some(5.0),
                ..LineItemInput::default()
            },
            item("C", 1.0, None),
        ]),
        ..OrderInput::default()
    };
    let m = put(&stored, &change, false).unwrap();
    let codes: Vec<(&str, i64, i64)> = m
        .order
        .line_items
        .iter()
        .map(|i| (i.product_code.as_str(), i.id, i.quantity))
        .collect();
    assert_eq!(codes, [("B", 11, 5), ("C", 0, 1)]);
}

#[test]
fn a_line_item_status_change_emits_orders_status_with_the_derived_status() {
    let mut o = delivery("A");
    o.line_items = Some(vec![item("A", 1.0, None), item("B", 1.0, None)]);
    let mut stored = create(&o, 1);
    stored.id = 8;
    let change = OrderInput {
        line_items: Some(vec![
            LineItemInput {
                status: Some("DELIVERED".into()),
                ..item("A", 1.0, None)
            },
            item("B", 1.0, None),
        ]),
        ..OrderInput::default()
    };
    let m = put(&stored, &change, false).unwrap();
    assert_eq!(m.order.status.as_str(), "PARTIALLY_DELIVERED");
    assert_eq!(m.events.len(), 1);
    assert_eq!(
        (m.events[0].order_id, m.events[0].status.as_str()),
        (8, "PARTIALLY_DELIVERED")
    );
    let derived = OrderInput {
        line_items: Some(vec![LineItemInput {
            status: Some("PARTIALLY_DELIVERED".into()),
            ..item("A", 1.0, None)
        }]),
        ..OrderInput::default()
    };
    assert_eq!(
        put(&stored, &derived, false).unwrap_err(),
        ["line_items.0.status"]
    );
}

#[test]
fn changing_an_address_without_coordinates_geocodes_it() {
    let mut o = delivery("A");
    o.delivery.fields.lat = Some(Some(1.0));
    o.delivery.fields.lng = Some(Some(1.0));
    let stored = create(&o, 1);
    let change = OrderInput {
        delivery: EndpointInput {
            fields: EndpointFields {
                address: Some(Some("2 Low St".into())),
                ..EndpointFields::default()
            },
            ..EndpointInput::default()
        },
        ..OrderInput::default()
    };
    let m = put(&stored, &change, false).unwrap();
    assert_eq!(m.geocode, [Side::Delivery]);
    assert_eq!(m.order.delivery.lat, None);
}

fn random_order(number: String) -> impl Strategy<Value = OrderInput> {
    (
        proptest::option::of(prop_oneof![Just("P1"), Just("P3")]),
        proptest::option::of(prop::collection::vec(
            prop_oneof![Just("Fragile"), Just("x")],
            0..3,
        )),
        prop::collection::vec(
            (
                prop_oneof![Just("A"), Just("B"), Just("C")],
                1u32..5,
                proptest::option::of(0u32..1000),
            ),
            0..3,
        ),
        proptest::option::of(0u32..100),
    )
        .prop_map(move |(priority, tags, items, parts)| {
            let mut seen = Vec::new();
            let items: Vec<LineItemInput> = items
                .into_iter()
                .filter(|(c, _, _)| {
                    let fresh = !seen.contains(c);
                    seen.push(*c);
                    fresh
                })
                .map(|(c, q, p)| item(c, f64::from(q), p.map(|p| f64::from(p) / 100.0)))
                .collect();
            OrderInput {
                priority: priority.map(|p| Some(p.to_owned())),
                tags: tags.map(|t| t.into_iter().map(String::from).collect()),
                line_items: Some(items),
                parts: parts.map(|p| Some(f64::from(p))),
                ..delivery(&number)
            }
        })
}

proptest! {
    #[test]
    fn create_or_update_is_idempotent(input in random_order("N1".into())) {
        let first = create(&input, 1);
        let again = post(Some(&first), &input, 2);
        prop_assert!(again.events.is_empty());
        prop_assert_eq!(again.order.updated, Timestamp::from_millis(2));
        prop_assert_eq!(Order { updated: first.updated, ..again.order }, first);
    }

    #[test]
    fn put_arrays_replace_the_stored_list(first in random_order("N1".into()), second in random_order("N1".into())) {
        let stored = create(&first, 1);
        let change = OrderInput { tags: second.tags.clone(), line_items: second.line_items.clone(), ..OrderInput::default() };
        let m = put(&stored, &change, false).unwrap();
        match &second.tags {
            Some(t) => prop_assert_eq!(&m.order.tags, &Catalog::resolve_names(&catalog().tags, t, false)),
            None => prop_assert_eq!(&m.order.tags, &stored.tags),
        }
        let codes: Vec<String> = m.order.line_items.iter().map(|i| i.product_code.clone()).collect();
        let sent: Vec<String> = second.line_items.unwrap().iter().map(|i| i.product_code.clone().unwrap()).collect();
        prop_assert_eq!(codes, sent);
    }
}

#[test]
fn adding_or_removing_line_items_without_a_status_change_emits_no_event() {
    let mut o = delivery("A");
    o.line_items = Some(vec![LineItemInput {
        status: Some("DELIVERED".into()),
        ..item("A", 1.0, None)
    }]);
    let mut stored = create(&o, 1);
    stored.id = 4;
    stored.line_items[0].id = 40;
    assert_eq!(stored.status.as_str(), "DELIVERED");
    let removed = put(
        &stored,
        &OrderInput {
            line_items: Some(Vec::new()),
            ..OrderInput::default()
        },
        false,
    )
    .unwrap();
    assert_eq!(removed.order.status.as_str(), "DELIVERED");
    assert!(removed.events.is_empty());
    let added = OrderInput {
        line_items: Some(vec![
            item("A", 1.0, None),
            LineItemInput {
                status: Some("DELIVERED".into()),
                ..item("B", 1.0, None)
            },
        ]),
        ..OrderInput::default()
    };
    let m = put(&stored, &added, false).unwrap();
    assert_eq!(m.order.status.as_str(), "DELIVERED");
    assert!(m.events.is_empty());
}

#[test]
fn re_dating_a_failed_delivery_opens_it_again_with_one_status_event() {
    let dated = |d: &str| OrderInput {
        delivery_date: Some(Some(d.into())),
        ..delivery("A")
    };
    let mut failed = create(&dated("2026-03-02"), 1);
    failed.id = 7;
    failed.status = Status::from_stored("UNDELIVERED");
    // Sent again for the same day: the failure stands.
    let same = post(Some(&failed), &dated("2026-03-02"), 2);
    assert_eq!(same.order.status.as_str(), "UNDELIVERED");
    assert!(same.events.is_empty());
    // For another day: OPEN again, one event.
    let again = post(Some(&failed), &dated("2026-03-04"), 3);
    assert_eq!(again.order.status.as_str(), "OPEN");
    assert_eq!(again.events.len(), 1);
    assert_eq!(again.events[0].status.as_str(), "OPEN");
    // A delivered order keeps its status whatever its date.
    let mut delivered = failed.clone();
    delivered.status = Status::from_stored("DELIVERED");
    let kept = post(Some(&delivered), &dated("2026-03-04"), 4);
    assert_eq!(kept.order.status.as_str(), "DELIVERED");
    assert!(kept.events.is_empty());
}
