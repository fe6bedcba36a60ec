//! A plan made on its own day starts from that moment: nothing is planned in the past.

use super::*;
use crate::time::zone::DepotZone;

fn at(clock: &str) -> Option<DayTime> {
    Some(DayTime(i64::from(t(clock).minutes()) * 60))
}

#[test]
fn a_plan_made_during_the_shift_plans_nothing_before_that_moment() {
    let mut morning = delivery(1, 5);
    morning.time_windows = vec![window(Side::Delivery, "09:00", "11:00")];
    let mut day = Day::new(
        vec![morning, delivery(2, 5), delivery(3, 8)],
        vec![vehicle(10)],
    );
    day.not_before = at("13:00");
    let plan = day.plan();
    assert!(reason_of(&plan, 1).is_some(), "its window has passed");
    let route = route_of(&plan, 2).expect("a route for the rest of the day");
    assert!(route.start_time.seconds() >= 13 * 3600);
    for id in [2, 3] {
        assert!(stop_of(&plan, id).service_start.seconds() >= 13 * 3600);
    }
    // The same day planned ahead serves the morning order.
    day.not_before = None;
    assert_eq!(reason_of(&day.plan(), 1), None);
}

#[test]
fn a_shift_already_over_plans_no_route_and_the_left_out_orders_say_so() {
    let mut pinned = delivery(2, 5);
    pinned.vehicle_id = Some(10);
    let mut day = Day::new(vec![delivery(1, 5), pinned], vec![vehicle(10)]);
    day.not_before = at("18:30");
    let plan = day.plan();
    assert!(plan.routes.is_empty());
    assert_eq!(reason_of(&plan, 1), Some("NO_VEHICLE"));
    assert!(
        description_of(&plan, 1)
            .ends_with("every shift on 2026-11-23 is over by 18:30, when this plan starts"),
        "{}",
        description_of(&plan, 1)
    );
    assert!(
        description_of(&plan, 2).ends_with(
            "it is assigned to vehicle 10, whose shift on 2026-11-23 is over by 18:30, when this plan starts"
        ),
        "{}",
        description_of(&plan, 2)
    );
    // Planned ahead, nobody's shift is over.
    day.not_before = None;
    assert_eq!(reason_of(&day.plan(), 1), None);
}

#[test]
fn a_break_that_can_no_longer_start_is_left_out() {
    let mut v = vehicle(10);
    v.fields.has_break = true;
    v.fields.break_start = Some(t("11:00"));
    v.fields.break_end = Some(t("12:00"));
    v.fields.break_duration = Some(30.0);
    let mut day = Day::new(vec![delivery(1, 5)], vec![v]);
    day.not_before = at("14:00");
    let plan = day.plan();
    assert_eq!(reason_of(&plan, 1), None);
    assert!(plan.routes[0].breaks.is_empty());
    // Still inside its window: the break is planned, from now on.
    day.not_before = at("11:10");
    let plan = day.plan();
    let taken = &plan.routes[0].breaks;
    assert_eq!(taken.len(), 1);
    assert!(taken[0].start.seconds() >= 11 * 3600 + 600);
}

#[test]
fn the_planning_start_is_the_moment_only_on_the_plan_date() {
    let zone = DepotZone::named("Europe/London");
    let now = Timestamp::parse("2026-11-23T13:15:00.000Z").unwrap();
    assert_eq!(
        planning_start(zone, monday(), now),
        Some(DayTime(13 * 3600 + 900))
    );
    assert_eq!(planning_start(zone, monday().add_days(1), now), None);
    assert_eq!(planning_start(zone, monday().add_days(-1), now), None);
}
