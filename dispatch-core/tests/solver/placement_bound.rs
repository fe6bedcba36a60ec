//! The placement bound on tiny hand-made days whose answer is known, and on a sample depot day
//! against the solver's own answer.

use dispatch_core::solver::bound::{placement_bound, PlacementBound};
use dispatch_core::solver::formats::{self, Format};
use dispatch_core::solver::problem::*;
use dispatch_core::solver::{checker, solution, solve, Config, Control};

/// Every pair of the `n` locations `travel` apart (0 at the same place).
fn matrix(n: usize, travel: Time) -> Matrix {
    let d = (0..n * n)
        .map(|k| if k / n == k % n { 0 } else { travel })
        .collect();
    Matrix::from_durations(n, d).unwrap()
}

fn place(location: usize, service: Time) -> Place {
    Place {
        location,
        setup: 0,
        service,
        time_windows: vec![],
    }
}

fn job(id: u64, location: usize, service: Time, delivery: Load, pickup: Load) -> Job {
    Job {
        id,
        place: place(location, service),
        delivery: vec![delivery],
        pickup: vec![pickup],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    }
}

fn vehicle(id: u64, capacity: Load, shift_end: Time) -> Vehicle {
    Vehicle {
        shift: TimeWindow {
            start: 0,
            end: shift_end,
        },
        ..crate::solver_engine_common::vehicle(id, 0, capacity)
    }
}

fn day(matrix: Matrix, jobs: Vec<Job>, vehicles: Vec<Vehicle>) -> Problem {
    Problem {
        name: "tiny".into(),
        matrix,
        jobs,
        shipments: vec![],
        vehicles,
        dimensions: 1,
        objective: Objective::Duration,
    }
}

/// The relaxation's optimum is `lp`: the certified value sits just above it, the feasible
/// fractional assignment just below.
fn assert_solved(b: &PlacementBound, lp: f64) {
    assert!(b.dual_value >= lp - 1e-9, "{b:?} against {lp}");
    assert!(b.dual_value <= lp + 0.01, "{b:?} against {lp}");
    assert!(
        b.primal_value <= lp + 1e-9 && b.primal_value >= lp - 0.01,
        "{b:?}"
    );
}

#[test]
fn capacity_caps_the_placed_count_at_the_fractional_fill() {
    let jobs = (1..=3).map(|i| job(i, 0, 1, 4, 0)).collect();
    let b = placement_bound(&day(matrix(1, 0), jobs, vec![vehicle(1, 10, 1000)]));
    assert_solved(&b, 2.5);
    assert_eq!((b.tasks, b.max_placed, b.unplaceable_at_least()), (3, 2, 1));
    assert_eq!(b.unplaceable_alone, 0);
}

#[test]
fn deliveries_and_pickups_each_fill_the_capacity_once() {
    let jobs = vec![job(1, 0, 1, 6, 0), job(2, 0, 1, 6, 0), job(3, 0, 1, 0, 6)];
    let b = placement_bound(&day(matrix(1, 0), jobs, vec![vehicle(1, 10, 1000)]));
    assert_solved(&b, 10.0 / 6.0 + 1.0);
    assert_eq!(b.max_placed, 2);
}

#[test]
fn interchangeable_vehicles_pool_their_capacity() {
    let jobs = (1..=6).map(|i| job(i, 0, 1, 4, 0)).collect();
    let fleet = vec![vehicle(1, 10, 1000), vehicle(2, 10, 1000)];
    let b = placement_bound(&day(matrix(1, 0), jobs, fleet));
    assert_solved(&b, 5.0);
    assert_eq!(b.max_placed, 5);
}

#[test]
fn the_shift_less_its_breaks_bounds_the_service_time() {
    let jobs = (1..=4).map(|i| job(i, 0, 20, 0, 0)).collect();
    let mut v = vehicle(1, 10, 100);
    v.breaks.push(Break {
        id: 1,
        time_windows: vec![],
        service: 30,
    });
    let b = placement_bound(&day(matrix(1, 0), jobs, vec![v]));
    assert_solved(&b, 3.5);
    assert_eq!(b.max_placed, 3);
}

#[test]
fn the_cheapest_way_into_each_visit_counts_against_the_shift() {
    // Six customers 10 apart, 10 of service each: every visit costs at least 20 of the 100.
    let jobs = (1..=6).map(|i| job(i, i as usize, 10, 0, 0)).collect();
    let b = placement_bound(&day(matrix(7, 10), jobs, vec![vehicle(1, 10, 100)]));
    assert_solved(&b, 5.0);
    assert_eq!(b.max_placed, 5);
}

#[test]
fn a_max_duration_shorter_than_the_shift_is_the_budget() {
    let jobs = (1..=4).map(|i| job(i, 0, 20, 0, 0)).collect();
    let mut v = vehicle(1, 10, 1000);
    v.max_duration = Some(50);
    let b = placement_bound(&day(matrix(1, 0), jobs, vec![v]));
    assert_solved(&b, 2.5);
}

#[test]
fn tasks_no_vehicle_can_take_alone_are_counted_apart() {
    let mut skilled = job(1, 0, 1, 1, 0);
    skilled.skills = Skills::from_indices([0]);
    let heavy = job(2, 0, 1, 11, 0);
    let mut late = job(3, 0, 1, 1, 0);
    late.place.time_windows = vec![TimeWindow {
        start: 2000,
        end: 3000,
    }];
    let fine = job(4, 0, 1, 1, 0);
    let b = placement_bound(&day(
        matrix(1, 0),
        vec![skilled, heavy, late, fine],
        vec![vehicle(1, 10, 1000)],
    ));
    assert_eq!(b.unplaceable_alone, 3);
    assert_eq!((b.max_placed, b.unplaceable_at_least()), (1, 3));
}

#[test]
fn a_shipment_counts_twice_and_needs_room_only_for_its_own_amount() {
    let shipment = |id, amount| Shipment {
        pickup_id: id,
        delivery_id: id + 100,
        pickup: place(0, 1),
        delivery: place(0, 1),
        amount: vec![amount],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    };
    let mut p = day(
        matrix(1, 0),
        vec![job(1, 0, 1, 10, 0)],
        vec![vehicle(1, 10, 1000)],
    );
    p.shipments = vec![shipment(2, 8), shipment(3, 8), shipment(4, 11)];
    let b = placement_bound(&p);
    // The full delivery leaves room for the shipments: each is on board between its visits only.
    assert_eq!(b.tasks, 7);
    assert_eq!(b.unplaceable_alone, 2);
    assert_eq!(b.max_placed, 5);
}

struct Never;

impl Control for Never {
    fn should_stop(&self) -> bool {
        false
    }
}

#[test]
fn no_solution_of_a_sample_depot_places_more_than_the_bound() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../instances/depots/depot-0200-1.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let p = formats::read(&text, Some(Format::Vroom), Objective::Duration)
        .unwrap()
        .problem;
    let b = placement_bound(&p);
    let config = Config {
        seed: 1,
        threads: 1,
        max_iterations: Some(300),
    };
    let s = solve(&p, &config, &Never);
    assert!(checker::check(&p, &s).is_feasible());
    let placed = s
        .routes
        .iter()
        .flat_map(|r| &r.steps)
        .filter(|st| !matches!(st.step, solution::Step::Break(_)))
        .count();
    assert!(placed <= b.max_placed, "{placed} placed, bound {b:?}");
    // The prices are close to the relaxation's optimum: the two sides meet within a task.
    assert!(b.dual_value - b.primal_value < 1.0, "{b:?}");
}

fn shipment(id: u64, pickup: Place, delivery: Place) -> Shipment {
    Shipment {
        pickup_id: id,
        delivery_id: id + 100,
        pickup,
        delivery,
        amount: vec![1],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    }
}

fn window(start: Time, end: Time) -> Vec<TimeWindow> {
    vec![TimeWindow { start, end }]
}

#[test]
fn a_shipment_whose_delivery_closes_before_its_pickup_opens_is_unplaceable() {
    let mut pickup = place(0, 1);
    pickup.time_windows = window(100, 200);
    let mut delivery = place(0, 1);
    delivery.time_windows = window(0, 50);
    let mut p = day(matrix(1, 0), vec![], vec![vehicle(1, 10, 1000)]);
    p.shipments = vec![shipment(1, pickup, delivery)];
    let b = placement_bound(&p);
    assert_eq!((b.tasks, b.unplaceable_alone, b.max_placed), (2, 2, 0));
}

#[test]
fn the_shortest_chain_of_visits_not_the_direct_arc_separates_pickup_and_delivery() {
    // Depot 0, pickup at 1, delivery at 2, a job of 3 at 3: 1 to 2 is 100 directly but 23 by
    // way of the job; by way of the depot, which holds no visit, no route can go.
    #[rustfmt::skip]
    let m = Matrix::from_durations(4, vec![
        0, 10, 10, 10,
        1, 0, 100, 10,
        10, 10, 0, 10,
        10, 10, 10, 0,
    ]).unwrap();
    let bound_with_delivery_by = |end| {
        let mut pickup = place(1, 1);
        pickup.time_windows = window(10, 10);
        let mut delivery = place(2, 1);
        delivery.time_windows = window(0, end);
        let jobs = vec![job(1, 3, 3, 0, 0)];
        let mut p = day(m.clone(), jobs, vec![vehicle(1, 10, 1000)]);
        p.shipments = vec![shipment(1, pickup, delivery)];
        placement_bound(&p)
    };
    // At the pickup at 10, left at 11, delivered at 34 at the earliest.
    assert_eq!(bound_with_delivery_by(34).unplaceable_alone, 0);
    assert_eq!(bound_with_delivery_by(34).max_placed, 3);
    assert_eq!(bound_with_delivery_by(33).unplaceable_alone, 2);
}

/// Depot 0, a customer at 1 and a hub at 2: out 50 and back 60 directly, 10 to and from the hub.
#[rustfmt::skip]
fn depot_customer_hub() -> Matrix {
    Matrix::from_durations(3, vec![
        0, 50, 10,
        60, 0, 10,
        10, 10, 0,
    ]).unwrap()
}

/// A job at the customer (service 5, open until `closes`) and, with `hub_service`, one at the
/// hub.
fn customer_and_hub(closes: Time, hub_service: Option<Time>, shift_end: Time) -> PlacementBound {
    let mut j = job(1, 1, 5, 0, 0);
    j.place.time_windows = window(0, closes);
    let mut jobs = vec![j];
    jobs.extend(hub_service.map(|s| job(2, 2, s, 0, 0)));
    placement_bound(&day(
        depot_customer_hub(),
        jobs,
        vec![vehicle(1, 10, shift_end)],
    ))
}

#[test]
fn a_visit_starts_no_earlier_than_the_shortest_drive_from_the_vehicle_start() {
    assert_eq!(customer_and_hub(50, None, 1000).unplaceable_alone, 0);
    assert_eq!(customer_and_hub(49, None, 1000).unplaceable_alone, 1);
    assert_eq!(customer_and_hub(49, None, 1000).max_placed, 0);
}

#[test]
fn the_drive_from_the_start_may_pass_a_visit_and_pays_its_service() {
    // Out through the hub: 10, 5 of service there, 10 on.
    assert_eq!(customer_and_hub(25, Some(5), 1000).unplaceable_alone, 0);
    assert_eq!(customer_and_hub(24, Some(5), 1000).unplaceable_alone, 1);
}

#[test]
fn a_visit_ends_in_time_for_the_shortest_drive_back_to_the_vehicle_end() {
    // Reached at 50, served until 55, back at the depot at 115 at the earliest (no hub visit).
    assert_eq!(customer_and_hub(1000, None, 115).unplaceable_alone, 0);
    assert_eq!(customer_and_hub(1000, None, 114).unplaceable_alone, 1);
    // Through the hub both ways: reached at 25, served until 30, back at 55.
    assert_eq!(customer_and_hub(1000, Some(5), 55).unplaceable_alone, 0);
    assert_eq!(customer_and_hub(1000, Some(5), 54).unplaceable_alone, 1);
}

#[test]
fn a_shipment_is_picked_up_after_the_drive_out_and_delivered_before_the_drive_back() {
    let hub_to_customer = |delivery_by, shift_end| {
        let mut delivery = place(1, 1);
        delivery.time_windows = window(0, delivery_by);
        let mut p = day(
            depot_customer_hub(),
            vec![],
            vec![vehicle(1, 10, shift_end)],
        );
        p.shipments = vec![shipment(1, place(2, 1), delivery)];
        placement_bound(&p).unplaceable_alone
    };
    // At the hub at 10, left at 11, at the customer at 21 at the earliest.
    assert_eq!(hub_to_customer(21, 1000), 0);
    assert_eq!(hub_to_customer(20, 1000), 2);
    // Delivered from 21 to 22, back by the hub (passed at its 1 of service) at 43.
    assert_eq!(hub_to_customer(1000, 43), 0);
    assert_eq!(hub_to_customer(1000, 42), 2);
}

#[test]
fn a_vehicle_without_a_start_or_end_drives_neither_way() {
    let mut j = job(1, 1, 5, 0, 0);
    j.place.time_windows = window(0, 0);
    let mut v = vehicle(1, 10, 5);
    (v.start, v.end) = (None, None);
    let b = placement_bound(&day(depot_customer_hub(), vec![j], vec![v]));
    assert_eq!((b.unplaceable_alone, b.max_placed), (0, 1));
}

#[test]
fn a_loose_fleet_certifies_every_task_some_class_can_take() {
    // Twice the fleet of a sample day: only tasks no class can take alone are left out, and
    // the prices found must not certify a value above that count.
    for name in ["depot-0050-1", "depot-0200-1"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../instances/depots/{name}.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut p = formats::read(&text, Some(Format::Vroom), Objective::Duration)
            .unwrap()
            .problem;
        let fleet = p.vehicles.clone();
        p.vehicles.extend(fleet.into_iter().map(|v| Vehicle {
            id: v.id + 1000,
            ..v
        }));
        let b = placement_bound(&p);
        let some_class = (b.tasks - b.unplaceable_alone) as f64;
        assert!(b.dual_value <= some_class, "{name}: {b:?}");
        assert_eq!(b.max_placed, b.tasks - b.unplaceable_alone);
    }
}
