//! One test per vehicle rule of the bridge.

use super::*;
use crate::model::reference::CapacityAmount as VehicleCapacity;

#[test]
fn inactive_vehicles_are_left_out_when_only_active_vehicles_are_used() {
    let mut v = vehicle(10);
    v.fields.active = false;
    let mut day = Day::new(vec![delivery(1, 5)], vec![v]);
    assert_eq!(reason_of(&day.plan(), 1), Some("NO_VEHICLE"));
    day.only_active_vehicles = false;
    assert_eq!(route_of(&day.plan(), 1).unwrap().vehicle_id, 10);
}

#[test]
fn availability_shift_bounds_the_route_by_its_shift() {
    let mut o = delivery(1, 5);
    o.time_windows = vec![window(Side::Delivery, "19:00", "20:00")];
    let plan = Day::new(vec![o, delivery(2, 5)], vec![vehicle(10)]).plan();
    assert_eq!(reason_of(&plan, 1), Some("SHIFT"));
    let route = route_of(&plan, 2).unwrap();
    assert!(route.start_time.seconds() >= 8 * 3600);
}

#[test]
fn availability_full_day_works_the_whole_plan_date() {
    let mut v = vehicle(10);
    v.fields.availability = Availability::FullDay;
    let mut early = delivery(1, 5);
    early.time_windows = vec![window(Side::Delivery, "05:00", "05:30")];
    let mut late = delivery(2, 5);
    late.time_windows = vec![window(Side::Delivery, "23:00", "23:50")];
    let plan = Day::new(vec![early, late], vec![v]).plan();
    assert_eq!(stop_of(&plan, 1).service_start.seconds(), 5 * 3600);
    assert_eq!(stop_of(&plan, 2).service_start.seconds(), 23 * 3600);
    assert!(route_of(&plan, 2).unwrap().end_time.seconds() <= 86_400);
}

#[test]
fn availability_always_may_run_past_midnight() {
    let mut v = vehicle(10);
    v.fields.availability = Availability::Always;
    let mut late = delivery(1, 50);
    late.time_windows = vec![window(Side::Delivery, "23:50", "23:55")];
    late.delivery.duration = Some(30.0);
    let plan = Day::new(vec![late], vec![v]).plan();
    let route = &plan.routes[0];
    assert!(route.end_time.seconds() > 86_400);
    assert_eq!(route.end_time.day_offset(), 1);
    assert_eq!(route.end_time.date(monday()), monday().add_days(1));
    // 23:50 + 30 min service + 5000 s back = 01:43:20 the next day.
    assert_eq!(route.end_time.time_of_day().to_string(), "01:43");
}

#[test]
fn break_is_taken_inside_its_window() {
    let mut v = vehicle(10);
    v.fields.has_break = true;
    v.fields.break_start = Some(t("12:00"));
    v.fields.break_end = Some(t("13:00"));
    v.fields.break_duration = Some(30.0);
    let mut o = delivery(1, 5);
    o.time_windows = vec![window(Side::Delivery, "11:00", "17:00")];
    let plan = Day::new(vec![o], vec![v]).plan();
    let route = &plan.routes[0];
    assert_eq!(route.breaks.len(), 1);
    let b = route.breaks[0];
    assert!(b.start.seconds() >= 12 * 3600 && b.end.seconds() <= 13 * 3600);
    assert_eq!(b.end.seconds() - b.start.seconds(), 1800);
}

#[test]
fn start_other_and_end_none_give_an_open_route_from_the_vehicle_address() {
    let mut v = vehicle(10);
    v.fields.start_location = StartLocation::Other;
    v.fields.start = VehiclePlace {
        address: None,
        lat: Some(0.0),
        lng: Some(0.002),
    };
    v.fields.end_location = EndLocation::None;
    let plan = Day::new(vec![delivery(1, 5)], vec![v]).plan();
    let route = &plan.routes[0];
    assert_eq!(route.start_location.unwrap().lng, 0.002);
    assert_eq!(route.end_location, None);
    assert_eq!(route.end_distance_m, 0);
    assert_eq!(route.distance_m, 3000);
    assert_eq!(route.stops[0].planned_distance_m, 3000);
}

#[test]
fn end_other_returns_to_the_vehicle_address() {
    let mut v = vehicle(10);
    v.fields.end_location = EndLocation::Other;
    v.fields.end = VehiclePlace {
        address: None,
        lat: Some(0.0),
        lng: Some(0.007),
    };
    let plan = Day::new(vec![delivery(1, 5)], vec![v]).plan();
    let route = &plan.routes[0];
    assert_eq!(route.end_distance_m, 2000);
    assert_eq!(route.distance_m, 7000);
}

#[test]
fn app_location_starts_at_the_depot() {
    let mut v = vehicle(10);
    v.fields.start_location = StartLocation::AppLocation;
    let plan = Day::new(vec![delivery(1, 5)], vec![v]).plan();
    let route = &plan.routes[0];
    assert_eq!(route.start_location.unwrap().lng, 0.0);
    assert_eq!(route.distance_m, 10_000);
}

#[test]
fn depot_without_coordinates_is_an_error_for_vehicles_that_need_it() {
    let mut day = Day::new(vec![delivery(1, 5)], vec![vehicle(10)]);
    day.depot.lat = None;
    let err = build_day(&day.request(), &Grid).unwrap_err();
    assert_eq!(
        err,
        OptimiseError::DepotWithoutLocation {
            vehicle_id: 10,
            depot_id: day.depot.id
        }
    );
    assert_eq!(vehicles_at_depot(&day.vehicles, day.date, true), vec![10]);
}

#[test]
fn vehicle_capacity_falls_back_to_the_capacity_type_default() {
    let mut t1 = capacity_type(1, "Weight");
    t1.default = "2.5".into();
    let mut t2 = capacity_type(2, "Volume");
    t2.default = "2".into();
    let mut v = vehicle(10);
    v.fields.capacities = vec![VehicleCapacity {
        id: 2,
        type_name: "Volume".into(),
        capacity: 7.0,
    }];
    let mut day = Day::new(vec![delivery(1, 5)], vec![v]);
    day.capacity_types = vec![t1, t2];
    let built = build_day(&day.request(), &Grid).unwrap();
    assert_eq!(built.problem.vehicles[0].capacity, vec![2500, 7000]);
}

#[test]
fn vehicle_shift_of_the_plan_weekday_and_its_window_reach_the_solver() {
    let day = Day::new(vec![], vec![vehicle(10)]);
    let built = build_day(&day.request(), &Grid).unwrap();
    let shift = built.problem.vehicles[0].shift;
    assert_eq!((shift.start, shift.end), (8 * 3600, 18 * 3600));
    assert_eq!(built.vehicle_ids, vec![10]);
}
