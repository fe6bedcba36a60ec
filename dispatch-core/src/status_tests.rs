use proptest::prelude::*;

use super::*;

fn st(s: &str) -> Status {
    Status::from_stored(s)
}

fn order(status: &str, items: &[&str]) -> OrderState {
    OrderState {
        order_id: 7,
        order_number: "N-7".into(),
        status: st(status),
        line_items: items.iter().map(|s| st(s)).collect(),
    }
}

fn set() -> StatusSet {
    StatusSet::new(vec!["RETURNED".into(), "Left at door".into()])
}

#[test]
fn status_list_has_defaults_then_custom_and_no_derived() {
    let entries = set().entries();
    let names: Vec<_> = entries.iter().map(|e| e.status.as_str()).collect();
    assert_eq!(
        names,
        [
            "OPEN",
            "ROUTED",
            "DELIVERED",
            "UNDELIVERED",
            "RETURNED",
            "Left at door"
        ]
    );
    assert!(entries[..4].iter().all(|e| !e.is_custom));
    assert!(entries[4..].iter().all(|e| e.is_custom));
}

#[test]
fn custom_status_is_stored_exactly_as_sent_without_trimming() {
    assert_eq!(set().check_new_custom(" Damaged ").unwrap(), " Damaged ");
}

#[test]
fn custom_status_must_be_1_to_255_characters() {
    assert_eq!(
        set().check_new_custom(""),
        Err(StatusRejection::InvalidLength)
    );
    assert!(set().check_new_custom(&"é".repeat(255)).is_ok());
    assert_eq!(
        set().check_new_custom(&"x".repeat(256)),
        Err(StatusRejection::InvalidLength)
    );
}

#[test]
fn default_and_duplicate_statuses_cannot_be_added() {
    assert!(matches!(
        set().check_new_custom("DELIVERED"),
        Err(StatusRejection::IsDefault(_))
    ));
    assert!(matches!(
        set().check_new_custom("RETURNED"),
        Err(StatusRejection::AlreadyExists(_))
    ));
    assert!(matches!(
        set().check_new_custom("PARTIALLY_RETURNED"),
        Err(StatusRejection::Derived(_))
    ));
}

#[test]
fn removal_refuses_defaults_and_unknown_names() {
    assert!(matches!(
        set().check_removal("OPEN"),
        Err(StatusRejection::IsDefault(_))
    ));
    assert!(matches!(
        set().check_removal("returned"),
        Err(StatusRejection::NotFound(_))
    ));
    assert_eq!(set().check_removal("RETURNED"), Ok(()));
}

#[test]
fn list_filter_is_case_insensitive_and_knows_partial_aggregates() {
    assert_eq!(set().resolve_filter("open").unwrap(), st("OPEN"));
    assert_eq!(set().resolve_filter("returned").unwrap(), st("RETURNED"));
    assert_eq!(
        set().resolve_filter("partially_delivered").unwrap(),
        st("PARTIALLY_DELIVERED")
    );
    assert!(matches!(
        set().resolve_filter("SHIPPED"),
        Err(StatusRejection::Unknown(_))
    ));
}

#[test]
fn derived_statuses_cannot_be_set_directly() {
    assert!(matches!(
        set().resolve_settable("PARTIALLY_DELIVERED"),
        Err(StatusRejection::Derived(_))
    ));
    assert!(matches!(
        transition(
            &order("OPEN", &[]),
            OrderEvent::StatusSet(st("PARTIALLY_DELIVERED"))
        ),
        Err(StatusRejection::Derived(_))
    ));
}

#[test]
fn disagreeing_line_items_derive_partially_of_the_most_advanced() {
    assert_eq!(
        derive_order_status(&[st("DELIVERED"), st("OPEN")]),
        Some(st("PARTIALLY_DELIVERED"))
    );
    assert_eq!(
        derive_order_status(&[st("UNDELIVERED"), st("ROUTED")]),
        Some(st("PARTIALLY_UNDELIVERED"))
    );
    assert_eq!(
        derive_order_status(&[st("DELIVERED"), st("DELIVERED")]),
        Some(st("DELIVERED"))
    );
    assert_eq!(derive_order_status(&[]), None);
}

#[test]
fn dispatch_moves_open_orders_to_routed_and_emits_orders_status() {
    let t = transition(&order("OPEN", &["OPEN"]), OrderEvent::Dispatched).unwrap();
    assert_eq!(t.state.status, st("ROUTED"));
    assert_eq!(t.state.line_items, vec![st("ROUTED")]);
    assert_eq!(
        t.events,
        vec![OrderStatusChanged {
            order_id: 7,
            order_number: "N-7".into(),
            status: st("ROUTED")
        }]
    );
    assert!(transition(&order("DELIVERED", &[]), OrderEvent::Dispatched).is_err());
}

#[test]
fn resubmitting_an_existing_order_keeps_its_status_without_events() {
    let t = transition(&order("DELIVERED", &[]), OrderEvent::Resubmitted).unwrap();
    assert_eq!(t.state.status, st("DELIVERED"));
    assert!(t.events.is_empty());
}

#[test]
fn removal_from_route_reopens_unless_completed() {
    let t = transition(&order("ROUTED", &[]), OrderEvent::RemovedFromRoute).unwrap();
    assert_eq!(t.state.status, st("OPEN"));
    assert_eq!(t.events.len(), 1);
    let quiet = transition(&order("OPEN", &[]), OrderEvent::RemovedFromRoute).unwrap();
    assert!(quiet.events.is_empty());
    assert!(matches!(
        transition(
            &order("PARTIALLY_DELIVERED", &["DELIVERED", "OPEN"]),
            OrderEvent::RemovedFromRoute
        ),
        Err(StatusRejection::Completed(_))
    ));
}

#[test]
fn plan_deletion_reopens_only_orders_of_dispatched_routes() {
    let routed = order("ROUTED", &[]);
    let t = transition(
        &routed,
        OrderEvent::PlanDeleted {
            route_dispatched: true,
        },
    )
    .unwrap();
    assert_eq!(t.state.status, st("OPEN"));
    assert_eq!(t.events.len(), 1);
    let t = transition(
        &order("OPEN", &[]),
        OrderEvent::PlanDeleted {
            route_dispatched: false,
        },
    )
    .unwrap();
    assert!(t.events.is_empty());
}

#[test]
fn adding_to_a_route_needs_an_open_order() {
    assert!(transition(&order("OPEN", &[]), OrderEvent::AddedToRoute).is_ok());
    assert_eq!(
        transition(&order("ROUTED", &[]), OrderEvent::AddedToRoute),
        Err(StatusRejection::AlreadyRouted)
    );
    assert!(matches!(
        transition(&order("DELIVERED", &[]), OrderEvent::AddedToRoute),
        Err(StatusRejection::Completed(_))
    ));
}

#[test]
fn line_item_status_change_rederives_the_order_and_emits_an_event() {
    let t = transition(
        &order("ROUTED", &["ROUTED", "ROUTED"]),
        OrderEvent::LineItemStatusSet {
            index: 1,
            status: st("DELIVERED"),
        },
    )
    .unwrap();
    assert_eq!(t.state.status, st("PARTIALLY_DELIVERED"));
    assert_eq!(t.events[0].status, st("PARTIALLY_DELIVERED"));
    assert_eq!(
        transition(
            &order("OPEN", &["OPEN"]),
            OrderEvent::LineItemStatusSet {
                index: 3,
                status: st("OPEN")
            }
        ),
        Err(StatusRejection::NoSuchLineItem(3))
    );
}

fn item_status() -> impl Strategy<Value = Status> {
    prop_oneof![
        Just(st("OPEN")),
        Just(st("ROUTED")),
        Just(st("DELIVERED")),
        Just(st("UNDELIVERED")),
        Just(st("RETURNED")),
    ]
}

proptest! {
    #[test]
    fn derived_status_for_random_line_item_states(items in prop::collection::vec(item_status(), 1..8)) {
        let derived = derive_order_status(&items).unwrap();
        let all_same = items.iter().all(|s| *s == items[0]);
        prop_assert_eq!(derived.is_derived(), !all_same);
        let base = derived.as_str().strip_prefix(PARTIAL_PREFIX).unwrap_or(derived.as_str());
        prop_assert!(items.iter().any(|s| s.as_str() == base));
        prop_assert!(items.iter().all(|s| s.rank() <= st(base).rank()));
        // Order of the line items does not matter.
        let mut reversed = items.clone();
        reversed.reverse();
        prop_assert_eq!(derive_order_status(&reversed).unwrap(), derived);
    }

    #[test]
    fn transitions_never_produce_a_derived_status_without_disagreeing_items(
        items in prop::collection::vec(item_status(), 0..5),
        chosen in item_status(),
    ) {
        let start = OrderState {
            order_id: 1,
            order_number: "A".into(),
            status: derive_order_status(&items).unwrap_or_else(Status::open),
            line_items: items,
        };
        let t = transition(&start, OrderEvent::StatusSet(chosen.clone())).unwrap();
        prop_assert_eq!(&t.state.status, &chosen);
        prop_assert!(t.state.line_items.iter().all(|s| *s == chosen));
        prop_assert_eq!(t.events.is_empty(), start == t.state);
    }
}
