//! The whole-day invariant checker catches each violation it exists for, and passes a day that
//! keeps them: every rule is broken once on purpose below.

use crate::day_checker;
use day_checker::{Checker, Observation, Order, Route, Rule, Stop, Vehicle};

const H: i64 = 3600;

fn order(id: i64, window: Option<(i64, i64)>) -> Order {
    Order {
        id,
        status: "OPEN".into(),
        windows: window.into_iter().collect(),
        service_s: 300,
        skills: Vec::new(),
        load: vec![(1, 10.0)],
    }
}

fn stop(orders: &[i64], arrival_s: i64) -> Stop {
    Stop {
        orders: orders.to_vec(),
        arrival_s,
        departure_s: arrival_s + 300 * orders.len() as i64,
    }
}

fn route(id: i64, vehicle: i64, start_s: i64, stops: Vec<Stop>) -> Route {
    let end_s = stops.last().map_or(start_s, |s| s.departure_s + 600);
    Route {
        id,
        vehicle: Some(vehicle),
        date: "2026-03-02".into(),
        dispatched: true,
        completed: false,
        start_s,
        end_s,
        stops,
    }
}

/// A day that keeps every rule: two vans, four orders, two promises, events for two changes.
fn good_day() -> Observation {
    let mut seen = Observation {
        routes: vec![
            route(1, 10, 8 * H, vec![stop(&[1], 9 * H), stop(&[2], 10 * H)]),
            route(2, 20, 8 * H, vec![stop(&[3, 4], 9 * H)]),
        ],
        ..Observation::default()
    };
    for (id, w) in [
        (1, Some((9 * H, 10 * H))),
        (2, None),
        (3, None),
        (4, Some((8 * H, 12 * H))),
    ] {
        let mut o = order(id, w);
        o.status = "ROUTED".into();
        seen.orders.insert(id, Some(o));
        seen.status_events.push((id, "ROUTED".into()));
    }
    for v in [10, 20] {
        seen.vehicles.insert(
            v,
            Vehicle {
                id: v,
                skills: vec!["Fridge".into()],
                capacity: vec![(1, 35.0)],
            },
        );
    }
    seen.promises.insert(1, (8 * H + 45 * 60, 9 * H + 15 * 60));
    seen
}

fn rules(seen: &Observation) -> Vec<Rule> {
    let mut c = Checker::default();
    let mut rules: Vec<Rule> = c.check(seen).violations.iter().map(|v| v.rule).collect();
    rules.sort();
    rules.dedup();
    rules
}

#[test]
fn a_day_that_keeps_every_rule_passes() {
    assert_eq!(rules(&good_day()), vec![]);
}

#[test]
fn an_order_on_two_active_routes_is_caught_and_a_completed_route_frees_it() {
    let mut seen = good_day();
    seen.routes[1].stops.push(stop(&[2], 11 * H));
    assert_eq!(rules(&seen), vec![Rule::OneActiveRoute]);
    seen.routes[0].completed = true;
    assert_eq!(rules(&seen), vec![]);
}

#[test]
fn a_vehicle_in_two_places_at_once_is_caught() {
    let mut seen = good_day();
    seen.routes.push(Route {
        dispatched: false,
        ..route(3, 10, 9 * H + 30 * 60, vec![])
    });
    seen.routes[2].end_s = 12 * H;
    assert_eq!(rules(&seen), vec![Rule::OnePlaceAtATime]);
    // After the first route ends, the same van may go out again.
    seen.routes[2].start_s = seen.routes[0].end_s;
    assert_eq!(rules(&seen), vec![]);
}

#[test]
fn a_service_start_outside_its_window_fails_unless_added_without_reoptimisation() {
    let mut seen = good_day();
    seen.routes[0].stops[0] = stop(&[1], 10 * H + 30 * 60);
    seen.routes[0].stops[1] = stop(&[2], 11 * H);
    seen.promises.clear();
    assert_eq!(rules(&seen), vec![Rule::TimeWindow]);
    seen.may_breach.insert(1);
    let mut c = Checker::default();
    let found = c.check(&seen);
    assert!(found.violations.is_empty(), "{:?}", found.violations);
    assert_eq!(found.breaches.len(), 1, "{:?}", found.breaches);
}

#[test]
fn an_overloaded_vehicle_is_caught_unless_an_order_was_added_without_reoptimisation() {
    let mut seen = good_day();
    seen.orders.get_mut(&3).unwrap().as_mut().unwrap().load = vec![(1, 30.0)];
    assert_eq!(rules(&seen), vec![Rule::Capacity]);
    // Order 4 shares the route and was appended unchecked: the excess is reported.
    seen.may_breach.insert(4);
    let found = Checker::default().check(&seen);
    assert!(found.violations.is_empty(), "{:?}", found.violations);
    assert_eq!(found.breaches.len(), 1, "{:?}", found.breaches);
}

#[test]
fn a_skill_the_vehicle_lacks_is_caught_unless_its_order_was_added_without_reoptimisation() {
    let mut seen = good_day();
    seen.orders.get_mut(&2).unwrap().as_mut().unwrap().skills = vec!["Crane".into()];
    assert_eq!(rules(&seen), vec![Rule::Skills]);
    seen.may_breach.insert(2);
    let found = Checker::default().check(&seen);
    assert!(found.violations.is_empty(), "{:?}", found.violations);
    assert_eq!(found.breaches.len(), 1, "{:?}", found.breaches);
}

#[test]
fn a_promise_that_misses_the_planned_service_start_is_caught() {
    let mut seen = good_day();
    // The van arrives at 09:00; a promise of 08:00-08:45 does not contain it.
    seen.promises.insert(1, (8 * H, 8 * H + 45 * 60));
    assert_eq!(rules(&seen), vec![Rule::Promise]);
}

#[test]
fn a_status_change_without_its_event_or_with_two_is_caught() {
    let mut seen = good_day();
    seen.status_events.retain(|(o, _)| *o != 2);
    assert_eq!(rules(&seen), vec![Rule::StatusEvents]);
    let mut seen = good_day();
    seen.status_events.push((2, "ROUTED".into()));
    assert_eq!(rules(&seen), vec![Rule::StatusEvents]);
    // Across steps: a later change needs a later event.
    let mut c = Checker::default();
    let mut seen = good_day();
    assert!(c.check(&seen).violations.is_empty());
    seen.orders.get_mut(&1).unwrap().as_mut().unwrap().status = "DELIVERED".into();
    let found = c.check(&seen);
    assert_eq!(found.violations.len(), 2, "{:?}", found.violations);
    seen.status_events.push((1, "DELIVERED".into()));
    let mut c2 = Checker::default();
    assert!(c2.check(&good_day()).violations.is_empty());
    assert!(c2.check(&seen).violations.is_empty());
}

#[test]
fn an_acknowledged_order_that_no_longer_reads_is_lost() {
    let mut seen = good_day();
    seen.orders.insert(5, None);
    assert_eq!(rules(&seen), vec![Rule::Lost]);
}
