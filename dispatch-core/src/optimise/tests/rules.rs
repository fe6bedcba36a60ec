//! One test per order rule of the bridge.

use super::*;
use crate::model::customer::CustomerTimeWindow;
use crate::model::line_item::LineItem;
use crate::model::order_fields::CapacityAmount;
use crate::model::reference::CapacityAmount as VehicleCapacity;
use crate::model::zone::Polygon;
use crate::time::Weekday;

fn weight(amount: f64) -> CapacityAmount {
    CapacityAmount {
        capacity_type_id: 1,
        amount,
    }
}

fn truck(id: i64, capacity: f64) -> Vehicle {
    let mut v = vehicle(id);
    v.fields.capacities = vec![VehicleCapacity {
        id: 1,
        type_name: "Weight".into(),
        capacity,
    }];
    v
}

fn customer(id: i64) -> Customer {
    Customer {
        id,
        ..Customer::new(format!("C{id}"), Timestamp::from_millis(0))
    }
}

#[test]
fn delivery_order_is_one_visit_at_its_delivery_end_dropping_its_load() {
    let mut o = delivery(1, 5);
    o.capacities = vec![weight(2.0)];
    let mut day = Day::new(vec![o], vec![truck(10, 5.0)]);
    day.capacity_types = vec![capacity_type(1, "Weight")];
    let built = build_day(&day.request(), &Grid).unwrap();
    assert_eq!(built.problem.jobs.len(), 1);
    assert_eq!(built.problem.jobs[0].delivery, vec![2000]);
    assert_eq!(built.problem.jobs[0].pickup, vec![0]);
    let plan = day.plan();
    let stop = stop_of(&plan, 1);
    assert_eq!(stop.sides, vec![Side::Delivery]);
    assert_eq!(stop.location.lng, 0.005);
}

#[test]
fn pickup_order_collects_its_load_at_its_pickup_end() {
    let mut o = pickup(1, 3);
    o.capacities = vec![weight(4.0)];
    let mut day = Day::new(vec![o], vec![truck(10, 5.0)]);
    day.capacity_types = vec![capacity_type(1, "Weight")];
    let built = build_day(&day.request(), &Grid).unwrap();
    assert_eq!(built.problem.jobs[0].pickup, vec![4000]);
    assert_eq!(built.problem.jobs[0].delivery, vec![0]);
    let plan = day.plan();
    assert_eq!(stop_of(&plan, 1).sides, vec![Side::Pickup]);
    assert_eq!(stop_of(&plan, 1).location.lng, 0.003);
}

#[test]
fn shipment_is_picked_up_then_delivered_by_one_vehicle() {
    let mut o = delivery(1, 8);
    o.kind = OrderType::Shipment;
    o.pickup = at(2);
    let day = Day::new(vec![o], vec![vehicle(10), vehicle(11)]);
    let plan = day.plan();
    let route = route_of(&plan, 1).unwrap();
    let sides: Vec<_> = route.stops.iter().flat_map(|s| s.sides.clone()).collect();
    assert_eq!(sides, vec![Side::Pickup, Side::Delivery]);
    assert_eq!(route.stops[0].location.lng, 0.002);
    assert_eq!(route.stops[1].location.lng, 0.008);
}

#[test]
fn exchange_pair_is_one_consecutive_visit_by_one_vehicle() {
    let mut drop = delivery(1, 4);
    drop.exchange_reference = Some("X".into());
    drop.delivery.duration = Some(5.0);
    let mut collect = pickup(2, 4);
    collect.exchange_reference = Some("X".into());
    collect.pickup.duration = Some(3.0);
    let day = Day::new(vec![drop, collect, delivery(3, 9)], vec![vehicle(10)]);
    let built = build_day(&day.request(), &Grid).unwrap();
    assert_eq!(built.problem.jobs.len(), 2);
    let plan = day.plan();
    let stop = stop_of(&plan, 1);
    assert_eq!(stop.order_ids, vec![1, 2]);
    assert_eq!(stop.sides, vec![Side::Delivery, Side::Pickup]);
    assert_eq!(
        stop.departure.seconds() - stop.service_start.seconds(),
        8 * 60
    );
}

#[test]
fn exchange_halves_without_a_common_window_are_unserved_time_window() {
    let mut drop = delivery(1, 4);
    drop.exchange_reference = Some("X".into());
    drop.time_windows = vec![window(Side::Delivery, "09:00", "10:00")];
    let mut collect = pickup(2, 4);
    collect.exchange_reference = Some("X".into());
    collect.time_windows = vec![window(Side::Pickup, "11:00", "12:00")];
    let plan = Day::new(vec![drop, collect], vec![vehicle(10)]).plan();
    assert_eq!(reason_of(&plan, 1), Some("TIME_WINDOW"));
    assert_eq!(reason_of(&plan, 2), Some("TIME_WINDOW"));
}

#[test]
fn two_time_windows_per_side_bound_the_start_of_service() {
    let mut o = delivery(1, 5);
    o.time_windows = vec![
        window(Side::Delivery, "06:00", "07:00"),
        window(Side::Delivery, "14:00", "15:00"),
        window(Side::Pickup, "08:00", "09:00"),
    ];
    let plan = Day::new(vec![o], vec![vehicle(10)]).plan();
    assert_eq!(stop_of(&plan, 1).service_start.seconds(), 14 * 3600);
}

#[test]
fn durations_in_minutes_become_seconds_of_service() {
    let mut o = delivery(1, 5);
    o.delivery.duration = Some(7.5);
    let plan = Day::new(vec![o], vec![vehicle(10)]).plan();
    let stop = stop_of(&plan, 1);
    assert_eq!(stop.departure.seconds() - stop.service_start.seconds(), 450);
}

#[test]
fn customer_duration_windows_and_skills_apply_when_the_order_has_none() {
    let mut c = customer(7);
    c.duration = Some(10.0);
    c.time_windows = vec![CustomerTimeWindow {
        from: t("13:00"),
        to: None,
    }];
    let mut o = delivery(1, 5);
    o.customer_id = Some(7);
    let mut day = Day::new(vec![o], vec![vehicle(10)]);
    day.customers = vec![c.clone()];
    let plan = day.plan();
    let stop = stop_of(&plan, 1);
    assert_eq!(stop.service_start.seconds(), 13 * 3600);
    assert_eq!(stop.departure.seconds() - stop.service_start.seconds(), 600);
    c.skills = vec!["Ladder".into()];
    day.customers = vec![c];
    assert_eq!(reason_of(&day.plan(), 1), Some("SKILLS"));
}

#[test]
fn capacities_per_type_come_from_the_order_else_its_line_items() {
    let mut own = delivery(1, 5);
    own.capacities = vec![weight(3.0)];
    own.line_items = vec![line_item(100.0)];
    let mut items = delivery(2, 6);
    items.line_items = vec![line_item(1.5), line_item(2.25)];
    let mut day = Day::new(vec![own, items], vec![truck(10, 100.0)]);
    day.capacity_types = vec![capacity_type(1, "Weight"), capacity_type(2, "Volume")];
    let built = build_day(&day.request(), &Grid).unwrap();
    assert_eq!(built.problem.dimensions, 2);
    assert_eq!(built.problem.jobs[0].delivery, vec![3000, 0]);
    assert_eq!(built.problem.jobs[1].delivery, vec![3750, 0]);
    // No Volume entry and no numeric default: no limit on that dimension.
    assert_eq!(built.problem.vehicles[0].capacity[1], 1 << 40);
}

fn line_item(amount: f64) -> LineItem {
    LineItem {
        id: 0,
        product_code: "P".into(),
        product_name: "Product".into(),
        quantity: 3,
        unit_price: None,
        manual_value: None,
        quantity_outstanding: None,
        status: Status::open(),
        date: None,
        capacities: vec![weight(amount)],
        custom_fields: vec![],
    }
}

#[test]
fn capacity_too_small_for_the_order_is_unserved_capacity() {
    let mut big = delivery(1, 5);
    big.capacities = vec![weight(12.0)];
    let mut fits = delivery(2, 5);
    fits.capacities = vec![weight(0.1)];
    let mut also = delivery(3, 5);
    also.capacities = vec![weight(0.2)];
    let mut day = Day::new(vec![big, fits, also], vec![truck(10, 0.3)]);
    day.capacity_types = vec![capacity_type(1, "Weight")];
    let plan = day.plan();
    assert_eq!(reason_of(&plan, 1), Some("CAPACITY"));
    // 0.1 + 0.2 fits 0.3 exactly: integer thousandths, no float noise.
    assert!(route_of(&plan, 2).is_some() && route_of(&plan, 3).is_some());
}

#[test]
fn skills_must_all_be_offered_by_the_vehicle() {
    let mut o = delivery(1, 5);
    o.skills = vec!["Fridge".into(), "Forklift".into()];
    let mut v = vehicle(10);
    v.fields.skills = vec!["Fridge".into()];
    let mut day = Day::new(vec![o], vec![v]);
    assert_eq!(reason_of(&day.plan(), 1), Some("SKILLS"));
    day.vehicles[0].fields.skills.push("forklift".into());
    assert_eq!(reason_of(&day.plan(), 1), Some("SKILLS"), "case-sensitive");
    day.vehicles[0].fields.skills.push("Forklift".into());
    assert_eq!(reason_of(&day.plan(), 1), None);
}

#[test]
fn priority_p1_outweighs_any_number_of_p2_orders() {
    let mut v = vehicle(10);
    v.fields.shift_end = Some(t("09:00"));
    let orders = vec![
        with_priority(delivery(1, -14), Priority::P2),
        with_priority(delivery(2, -14), Priority::P2),
        with_priority(delivery(3, 15), Priority::P1),
    ];
    let plan = Day::new(orders, vec![v]).plan();
    assert!(route_of(&plan, 3).is_some());
    assert_eq!(reason_of(&plan, 1), Some("NOT_PLACED"));
    assert_eq!(reason_of(&plan, 2), Some("NOT_PLACED"));
}

#[test]
fn delivery_date_of_another_day_is_unserved_delivery_date() {
    let mut o = delivery(1, 5);
    o.delivery_date = Some(monday().add_days(1));
    let mut undated = delivery(2, 5);
    undated.delivery_date = None;
    let plan = Day::new(vec![o, undated], vec![vehicle(10)]).plan();
    assert_eq!(reason_of(&plan, 1), Some("DELIVERY_DATE"));
    assert!(route_of(&plan, 2).is_some());
}

#[test]
fn available_days_without_the_plan_weekday_are_unserved_available_days() {
    let mut o = delivery(1, 5);
    o.delivery.available_days = vec![Weekday::Tuesday, Weekday::Friday];
    let mut ok = delivery(2, 5);
    ok.delivery.available_days = vec![Weekday::Monday];
    let plan = Day::new(vec![o, ok], vec![vehicle(10)]).plan();
    assert_eq!(reason_of(&plan, 1), Some("AVAILABLE_DAYS"));
    let u = &plan.unserved[0];
    assert!(u.description.contains("MONDAY"), "{}", u.description);
    assert!(route_of(&plan, 2).is_some());
}

#[test]
fn vehicle_assignment_pins_the_order_to_its_vehicle() {
    let mut o = delivery(1, 5);
    o.vehicle_id = Some(11);
    let mut far = delivery(2, 5);
    far.vehicle_id = Some(99);
    let plan = Day::new(vec![o, far], vec![vehicle(10), vehicle(11)]).plan();
    assert_eq!(route_of(&plan, 1).unwrap().vehicle_id, 11);
    assert_eq!(reason_of(&plan, 2), Some("NO_VEHICLE"));
}

#[test]
fn zone_group_serves_only_orders_inside_its_zones() {
    let square = Polygon(vec![
        Coordinates {
            lat: -0.01,
            lng: 0.0,
        },
        Coordinates {
            lat: 0.01,
            lng: 0.0,
        },
        Coordinates {
            lat: 0.01,
            lng: 0.006,
        },
        Coordinates {
            lat: -0.01,
            lng: 0.006,
        },
    ]);
    let mut day = Day::new(vec![delivery(1, 5), delivery(2, 9)], vec![vehicle(10)]);
    day.zones = Some(vec![Zone {
        id: 1,
        zone_group_id: 1,
        name: "West".into(),
        polygon: square,
    }]);
    let plan = day.plan();
    assert!(route_of(&plan, 1).is_some());
    assert_eq!(reason_of(&plan, 2), Some("OUTSIDE_ZONE"));
}

#[test]
fn order_without_coordinates_is_unserved_no_location() {
    let mut o = delivery(1, 5);
    o.delivery.lat = None;
    let plan = Day::new(vec![o], vec![vehicle(10)]).plan();
    assert_eq!(reason_of(&plan, 1), Some("NO_LOCATION"));
}

#[test]
fn maintain_upload_sequence_keeps_the_request_order_within_a_route() {
    let orders = vec![
        delivery(1, 5),
        delivery(2, 1),
        delivery(3, 3),
        delivery(4, 2),
    ];
    let mut day = Day::new(orders, vec![vehicle(10)]);
    let free = day.plan();
    let order: Vec<i64> = free.routes[0]
        .stops
        .iter()
        .map(|s| s.order_ids[0])
        .collect();
    assert!(
        order == [2, 4, 3, 1] || order == [1, 3, 4, 2],
        "the solver alone sorts by place: {order:?}"
    );
    day.maintain_upload_sequence = true;
    let kept = day.plan();
    let order: Vec<i64> = kept.routes[0]
        .stops
        .iter()
        .map(|s| s.order_ids[0])
        .collect();
    assert_eq!(order, vec![1, 2, 3, 4]);
}

#[test]
fn maintain_upload_sequence_moves_or_leaves_out_what_no_longer_fits() {
    // Served in request order, order 2's window has closed by the time order 1 is done.
    let mut late = delivery(2, 1);
    late.time_windows = vec![window(Side::Delivery, "08:00", "08:05")];
    let mut day = Day::new(vec![delivery(1, 20), late], vec![vehicle(10)]);
    day.maintain_upload_sequence = true;
    let plan = day.plan();
    assert_eq!(reason_of(&plan, 2), Some("TIME_WINDOW"));
    assert!(route_of(&plan, 1).is_some());
    day.vehicles.push(vehicle(11));
    let plan = day.plan();
    assert_ne!(
        route_of(&plan, 1).unwrap().vehicle_id,
        route_of(&plan, 2).unwrap().vehicle_id
    );
}

#[test]
fn unserved_orders_are_listed_once_in_request_order() {
    let mut a = delivery(5, 1);
    a.delivery.lat = None;
    let mut b = delivery(3, 1);
    b.skills = vec!["Crane".into()];
    let mut c = delivery(4, 1);
    c.delivery_date = None;
    c.vehicle_id = Some(1234);
    let plan = Day::new(vec![b, a, c], vec![vehicle(10)]).plan();
    let ids: Vec<i64> = plan.unserved.iter().map(|u| u.order_id).collect();
    assert_eq!(ids, vec![3, 5, 4]);
}

#[test]
fn unserved_descriptions_name_the_order_specifics_that_blocked_it() {
    let mut skilled = delivery(1, 5);
    skilled.skills = vec!["Crane".into()];
    let mut heavy = delivery(2, 5);
    heavy.capacities = vec![weight(12.5)];
    let mut night = delivery(3, 5);
    night.time_windows = vec![window(Side::Delivery, "02:00", "03:00")];
    let mut day = Day::new(vec![skilled, heavy, night], vec![truck(10, 10.0)]);
    day.capacity_types = vec![capacity_type(1, "Weight")];
    let plan = day.plan();
    let skills = description_of(&plan, 1);
    assert!(
        skills.starts_with(UnservedReason::Skills.description()),
        "{skills}"
    );
    assert!(skills.ends_with("it needs Crane"), "{skills}");
    let capacity = description_of(&plan, 2);
    assert!(
        capacity.ends_with("it needs 12.5 Weight (the largest vehicle holds 10)"),
        "{capacity}"
    );
    // A window closing before the shift opens cannot be reached.
    assert_eq!(reason_of(&plan, 3), Some("TIME_WINDOW"));
    assert!(description_of(&plan, 3).ends_with("its windows are 02:00-03:00"));
    let mut early = delivery(4, 5);
    early.time_windows = vec![window(Side::Delivery, "08:01", "08:02")];
    let plan = Day::new(vec![early], vec![vehicle(10)]).plan();
    assert_eq!(reason_of(&plan, 4), Some("TIME_WINDOW"));
    assert!(description_of(&plan, 4).ends_with("its windows are 08:01-08:02"));
    let plan = Day::new(vec![delivery(5, 1)], vec![]).plan();
    assert_eq!(reason_of(&plan, 5), Some("NO_VEHICLE"));
    assert!(description_of(&plan, 5).ends_with("no vehicle works on 2026-11-23"));
}
