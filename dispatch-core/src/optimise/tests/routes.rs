//! Converting solutions to routes and stops, and timing single routes.

use super::*;

#[test]
fn times_and_distances_come_from_the_same_matrix_the_solver_used() {
    let mut o = delivery(1, 5);
    o.delivery.duration = Some(2.0);
    let plan = Day::new(vec![o], vec![vehicle(10)]).plan();
    let route = &plan.routes[0];
    let stop = &route.stops[0];
    assert_eq!(stop.arrival.seconds() - route.start_time.seconds(), 500);
    assert_eq!(stop.planned_distance_m, 5000);
    assert_eq!(stop.travel_time_s, 500);
    assert_eq!(route.distance_m, 10_000);
    assert_eq!(route.travel_time_s, 1000);
    assert_eq!(route.total_time_s, 1120);
    assert_eq!(route.operation_time_s(), 120);
}

#[test]
fn consecutive_visits_at_one_location_are_one_stop() {
    let plan = Day::new(
        vec![delivery(1, 5), delivery(2, 5), delivery(3, 2)],
        vec![vehicle(10)],
    )
    .plan();
    let route = &plan.routes[0];
    assert_eq!(route.stops.len(), 2);
    let mut shared = stop_of(&plan, 1).order_ids.clone();
    shared.sort_unstable();
    assert_eq!(shared, vec![1, 2]);
    assert_eq!(stop_of(&plan, 2).planned_distance_m, 3000);
}

#[test]
fn time_route_times_a_given_sequence_and_reports_lateness() {
    let mut tight = delivery(2, 1);
    tight.time_windows = vec![window(Side::Delivery, "08:00", "08:05")];
    let day = Day::new(vec![delivery(1, 5), tight], vec![vehicle(10)]);
    let visit = |order_id| {
        vec![Visit {
            order_id,
            side: Side::Delivery,
        }]
    };
    let route = time_route(&day.request(), &Grid, 10, &[visit(1), visit(2)]).unwrap();
    assert_eq!(route.stops.len(), 2);
    assert_eq!(route.stops[0].order_ids, vec![1]);
    // 08:00 + 500 s out, 400 s back to order 2: 08:15, ten minutes after its window.
    assert_eq!(route.stops[1].service_start.seconds(), 8 * 3600 + 900);
    assert_eq!(route.stops[1].late_s, 600);
    assert_eq!(route.distance_m, 5000 + 4000 + 1000);
    let reversed = time_route(&day.request(), &Grid, 10, &[visit(2), visit(1)]).unwrap();
    assert_eq!(reversed.stops[0].late_s, 0);
    assert_eq!(reversed.distance_m, 10_000);
}

#[test]
fn time_route_refuses_unknown_orders_and_vehicles() {
    let day = Day::new(vec![delivery(1, 5)], vec![vehicle(10)]);
    let stop = vec![vec![Visit {
        order_id: 9,
        side: Side::Delivery,
    }]];
    assert!(matches!(
        time_route(&day.request(), &Grid, 10, &stop),
        Err(OptimiseError::UnknownOrder { order_id: 9, .. })
    ));
    let stop = vec![vec![Visit {
        order_id: 1,
        side: Side::Delivery,
    }]];
    assert_eq!(
        time_route(&day.request(), &Grid, 11, &stop).unwrap_err(),
        OptimiseError::UnknownVehicle { vehicle_id: 11 }
    );
}

#[test]
fn reoptimise_route_shortens_a_zigzag_and_never_returns_worse() {
    let day = Day::new(
        vec![
            delivery(1, 5),
            delivery(2, 1),
            delivery(3, 4),
            delivery(4, 2),
        ],
        vec![vehicle(10)],
    );
    let visit = |order_id| {
        vec![Visit {
            order_id,
            side: Side::Delivery,
        }]
    };
    let zigzag: Vec<_> = [1, 2, 3, 4].map(visit).to_vec();
    let before = time_route(&day.request(), &Grid, 10, &zigzag).unwrap();
    let after = reoptimise_route(&day.request(), &Grid, 10, &zigzag, &config(), &Never).unwrap();
    assert!(after.distance_m < before.distance_m);
    assert_eq!(after.distance_m, 10_000);
    let best: Vec<_> = [2, 4, 3, 1].map(visit).to_vec();
    let again = reoptimise_route(&day.request(), &Grid, 10, &best, &config(), &Never).unwrap();
    assert_eq!(again.distance_m, 10_000);
}

#[test]
fn day_times_past_midnight_keep_their_date() {
    let t = DayTime(86_400 + 3_600 + 59);
    assert_eq!(t.day_offset(), 1);
    assert_eq!(t.time_of_day().to_string(), "01:00");
    assert_eq!(t.date(monday()), monday().add_days(1));
    assert_eq!(DayTime(0).time_of_day().to_string(), "00:00");
}

#[test]
fn a_built_day_exports_to_vroom_json_that_reads_back_with_its_matrix() {
    use crate::solver::formats::vroom::read;
    use crate::solver::problem::Objective;
    let mut pinned = delivery(2, 3);
    pinned.vehicle_id = Some(11);
    let mut day = Day::new(vec![delivery(1, 5), pinned], vec![vehicle(10), vehicle(11)]);
    day.capacity_types = vec![capacity_type(1, "Weight")];
    let built = build_day(&day.request(), &Grid).unwrap();
    let back = read(&built.vroom_json().unwrap(), Objective::Duration)
        .unwrap()
        .problem;
    assert_eq!(back.matrix, built.problem.matrix);
    assert_eq!(back.jobs.len(), 2);
    assert_eq!(back.jobs[1].id, 2);
    assert_eq!(back.vehicles[1].shift, built.problem.vehicles[1].shift);
    // The pin survives as a skill only vehicle 11 has.
    assert!(!back.jobs[1].skills.is_subset_of(&back.vehicles[0].skills));
    assert!(back.jobs[1].skills.is_subset_of(&back.vehicles[1].skills));
    let solved = crate::solver::solve(&back, &config(), &Never);
    assert!(solved.unassigned.is_empty());
    assert!(solved.routes.iter().any(|r| r.vehicle == 1
        && r.steps
            .iter()
            .any(|s| s.step == crate::solver::solution::Step::Job(1))));
}
