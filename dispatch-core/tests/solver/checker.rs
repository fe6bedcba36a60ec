//! The independent checker: it accepts the published best-known solutions and flags every kind of
//! broken route on small hand-made instances.

use crate::solver_support;

use dispatch_core::solver::checker::{self, plane::check_plane, Code};
use dispatch_core::solver::formats::{self, Convention, Plane};
use dispatch_core::solver::problem::{
    Break, Job, Matrix, Objective, Place, Problem, Shipment, Skills, TimeWindow, Vehicle,
};
use dispatch_core::solver::solution::{Reason, Solution, Step, Unassigned};

/// Locations on a line at x = 0 (depot), 10, 20, 30; travel time = distance = |dx|.
fn line_matrix() -> Matrix {
    let xs = [0i64, 10, 20, 30];
    let d: Vec<i64> = xs
        .iter()
        .flat_map(|a| xs.iter().map(move |b| (a - b).abs()))
        .collect();
    Matrix::new(4, d.clone(), d).unwrap()
}

fn place(location: usize, start: i64, end: i64) -> Place {
    Place {
        location,
        setup: 0,
        service: 5,
        time_windows: vec![TimeWindow { start, end }],
    }
}

fn job(id: u64, location: usize, end: i64, delivery: i64) -> Job {
    Job {
        id,
        place: place(location, 0, end),
        delivery: vec![delivery],
        pickup: vec![0],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    }
}

fn vehicle(id: u64, capacity: i64) -> Vehicle {
    Vehicle {
        shift: TimeWindow {
            start: 0,
            end: 1000,
        },
        ..crate::solver_engine_common::vehicle(id, 0, capacity)
    }
}

/// Jobs 1 (x=10) and 2 (x=20, must start by 30), shipment 10 (x=30) -> 11 (x=10), two vehicles.
fn problem() -> Problem {
    Problem {
        name: "line".into(),
        matrix: line_matrix(),
        jobs: vec![job(1, 1, 100, 3), job(2, 2, 30, 2)],
        shipments: vec![Shipment {
            pickup_id: 10,
            delivery_id: 11,
            pickup: place(3, 0, 1000),
            delivery: place(1, 0, 1000),
            amount: vec![4],
            skills: Skills::default(),
            priority: 0,
            pinned_vehicle: None,
        }],
        vehicles: vec![vehicle(1, 10), vehicle(2, 10)],
        dimensions: 1,
        objective: Objective::Distance,
    }
}

const GOOD: [Step; 4] = [
    Step::Job(0),
    Step::Job(1),
    Step::Pickup(0),
    Step::Delivery(0),
];

fn one_route(p: &Problem, steps: &[Step]) -> Solution {
    Solution {
        routes: vec![checker::schedule(p, 0, steps)],
        unassigned: Vec::new(),
    }
}

fn codes(p: &Problem, s: &Solution) -> Vec<Code> {
    checker::check(p, s)
        .violations
        .iter()
        .map(|v| v.code)
        .collect()
}

#[test]
fn a_correct_route_passes_with_its_figures() {
    let p = problem();
    let s = one_route(&p, &GOOD);
    let report = checker::check(&p, &s);
    assert!(report.is_feasible(), "{:?}", report.violations);
    assert_eq!(report.vehicles, 1);
    assert_eq!(report.served, 3);
    // 0 -> 10 -> 20 -> 30 -> 10 -> 0
    assert_eq!(report.distance, 60);
    assert_eq!(report.travel_time, 60);
    assert_eq!(s.routes[0].end_time, 60 + 4 * 5);
}

#[test]
fn a_late_arrival_is_a_time_window_violation() {
    let p = problem();
    let s = one_route(
        &p,
        &[
            Step::Job(0),
            Step::Pickup(0),
            Step::Delivery(0),
            Step::Job(1),
        ],
    );
    assert!(codes(&p, &s).contains(&Code::TimeWindow));
}

#[test]
fn over_capacity_is_flagged_at_the_start_and_after_a_pickup() {
    let mut p = problem();
    p.vehicles[0].capacity = vec![4];
    assert!(codes(&p, &one_route(&p, &GOOD)).contains(&Code::Capacity));
    p.vehicles[0].capacity = vec![6];
    let s = one_route(
        &p,
        &[
            Step::Pickup(0),
            Step::Job(0),
            Step::Job(1),
            Step::Delivery(0),
        ],
    );
    let report = checker::check(&p, &s);
    let cap = report.violations.iter().find(|v| v.code == Code::Capacity);
    assert_eq!(
        cap.map(|v| v.step),
        Some(Some(0)),
        "{:?}",
        report.violations
    );
}

#[test]
fn a_delivery_before_its_pickup_is_flagged() {
    let p = problem();
    let s = one_route(
        &p,
        &[
            Step::Job(0),
            Step::Job(1),
            Step::Delivery(0),
            Step::Pickup(0),
        ],
    );
    assert!(codes(&p, &s).contains(&Code::DeliveryBeforePickup));
}

#[test]
fn a_shipment_split_over_two_routes_is_flagged() {
    let p = problem();
    let s = Solution {
        routes: vec![
            checker::schedule(&p, 0, &[Step::Job(0), Step::Job(1), Step::Pickup(0)]),
            checker::schedule(&p, 1, &[Step::Delivery(0)]),
        ],
        unassigned: Vec::new(),
    };
    assert!(codes(&p, &s).contains(&Code::ShipmentSplit));
}

#[test]
fn missing_repeated_and_double_counted_tasks_are_flagged() {
    let p = problem();
    let missing = one_route(&p, &[Step::Job(1), Step::Pickup(0), Step::Delivery(0)]);
    assert_eq!(codes(&p, &missing), vec![Code::TaskMissing]);

    let mut listed = missing.clone();
    listed.unassigned.push(Unassigned {
        task: Step::Job(0),
        reason: Reason::NotPlaced,
    });
    assert!(checker::check(&p, &listed).is_feasible());

    let mut both = one_route(&p, &GOOD);
    both.unassigned.push(Unassigned {
        task: Step::Job(0),
        reason: Reason::NotPlaced,
    });
    assert!(codes(&p, &both).contains(&Code::BadUnassigned));

    let repeated = Solution {
        routes: vec![
            checker::schedule(&p, 0, &GOOD),
            checker::schedule(&p, 1, &[Step::Job(0)]),
        ],
        unassigned: Vec::new(),
    };
    assert!(codes(&p, &repeated).contains(&Code::TaskRepeated));
}

#[test]
fn vehicles_used_twice_or_unknown_and_unknown_tasks_are_flagged() {
    let p = problem();
    let twice = Solution {
        routes: vec![
            checker::schedule(&p, 0, &[Step::Job(0), Step::Job(1)]),
            checker::schedule(&p, 0, &[Step::Pickup(0), Step::Delivery(0)]),
        ],
        unassigned: Vec::new(),
    };
    assert!(codes(&p, &twice).contains(&Code::VehicleReused));
    let mut unknown = one_route(&p, &GOOD);
    unknown.routes[0].vehicle = 7;
    assert!(codes(&p, &unknown).contains(&Code::UnknownVehicle));
    let ghost = one_route(
        &p,
        &[
            Step::Job(0),
            Step::Job(1),
            Step::Job(9),
            Step::Pickup(0),
            Step::Delivery(0),
        ],
    );
    assert!(codes(&p, &ghost).contains(&Code::UnknownTask));
}

#[test]
fn skills_and_pinned_vehicles_are_enforced() {
    let mut p = problem();
    p.jobs[0].skills = Skills::from_indices([3]);
    assert!(codes(&p, &one_route(&p, &GOOD)).contains(&Code::Skills));
    p.vehicles[0].skills = Skills::from_indices([1, 3]);
    assert!(checker::check(&p, &one_route(&p, &GOOD)).is_feasible());
    p.shipments[0].pinned_vehicle = Some(1);
    assert!(codes(&p, &one_route(&p, &GOOD)).contains(&Code::PinnedVehicle));
}

#[test]
fn route_limits_are_enforced() {
    let mut p = problem();
    p.vehicles[0].max_tasks = Some(3);
    assert!(codes(&p, &one_route(&p, &GOOD)).contains(&Code::MaxTasks));
    p.vehicles[0].max_tasks = Some(4);
    p.vehicles[0].max_travel_time = Some(59);
    assert_eq!(codes(&p, &one_route(&p, &GOOD)), vec![Code::MaxTravelTime]);
    p.vehicles[0].max_travel_time = Some(60);
    p.vehicles[0].max_duration = Some(79);
    assert_eq!(codes(&p, &one_route(&p, &GOOD)), vec![Code::MaxDuration]);
    p.vehicles[0].max_duration = None;
    p.vehicles[0].shift.end = 79;
    assert_eq!(codes(&p, &one_route(&p, &GOOD)), vec![Code::ShiftEnd]);
}

#[test]
fn breaks_must_be_taken_once_inside_a_window() {
    let mut p = problem();
    p.vehicles[0].breaks = vec![Break {
        id: 5,
        time_windows: vec![TimeWindow { start: 12, end: 20 }],
        service: 3,
    }];
    assert_eq!(codes(&p, &one_route(&p, &GOOD)), vec![Code::BreakMissing]);
    let on_time = [
        Step::Job(0),
        Step::Break(0),
        Step::Job(1),
        Step::Pickup(0),
        Step::Delivery(0),
    ];
    let s = one_route(&p, &on_time);
    assert!(checker::check(&p, &s).is_feasible());
    // Job 1 ends at 15; the break starts then, lasts 3; job 2 starts at 28.
    assert_eq!(s.routes[0].steps[1].service_start, 15);
    assert_eq!(s.routes[0].steps[2].service_start, 28);
    let too_late = [
        Step::Job(0),
        Step::Job(1),
        Step::Break(0),
        Step::Pickup(0),
        Step::Delivery(0),
    ];
    assert!(codes(&p, &one_route(&p, &too_late)).contains(&Code::BreakWindow));
}

#[test]
fn setup_is_spent_only_when_the_location_changes() {
    let mut p = problem();
    p.jobs[0].place.setup = 7;
    p.shipments[0].delivery.setup = 7;
    p.jobs[1].place.time_windows = vec![TimeWindow { start: 0, end: 100 }];
    let s = one_route(
        &p,
        &[
            Step::Job(0),
            Step::Delivery(0),
            Step::Job(1),
            Step::Pickup(0),
        ],
    );
    // Job 1 at x=10 (arrive 10, setup 7, service 5), delivery at x=10 too (no setup).
    assert_eq!(s.routes[0].steps[1].service_start, 22);
    // The delivery before its pickup is the only problem.
    assert_eq!(codes(&p, &s), vec![Code::DeliveryBeforePickup]);
}

#[test]
fn reported_times_that_differ_from_the_simulation_are_flagged() {
    let p = problem();
    let mut s = one_route(&p, &GOOD);
    s.routes[0].steps[2].service_start -= 1;
    assert_eq!(codes(&p, &s), vec![Code::ScheduleMismatch]);
    let mut s = one_route(&p, &GOOD);
    s.routes[0].start_time = -5;
    assert!(codes(&p, &s).contains(&Code::ShiftStart));
}

#[test]
fn waiting_for_a_later_window_is_allowed() {
    let mut p = problem();
    p.jobs[0].place.time_windows = vec![
        TimeWindow { start: 0, end: 5 },
        TimeWindow { start: 40, end: 50 },
    ];
    p.jobs[1].place.time_windows = vec![TimeWindow { start: 0, end: 100 }];
    let s = one_route(&p, &GOOD);
    assert_eq!(s.routes[0].steps[0].service_start, 40);
    assert!(checker::check(&p, &s).is_feasible());
}

#[test]
fn the_plane_recheck_sums_double_and_truncated_arcs() {
    // Depot (0,0), customers (1,1) and (3,4): arcs sqrt 2, sqrt 13, 5.
    let text = "T\nVEHICLE\nNUMBER CAPACITY\n1 10\nCUSTOMER\nCUST NO. X Y D R DUE S\n0 0 0 0 0 100 0\n1 1 1 1 0 100 0\n2 3 4 1 0 100 0\n";
    let inst = formats::solomon::read(text, Objective::Distance, Convention::Exact).unwrap();
    let s = one_route(&inst.problem, &[Step::Job(0), Step::Job(1)]);
    let plane: &Plane = inst.plane.as_ref().unwrap();
    let r = check_plane(&inst.problem, &s, plane);
    let exact = 2f64.sqrt() + 13f64.sqrt() + 5.0;
    assert!((r.distance - exact).abs() < 1e-9);
    assert!((r.dimacs_distance - (1.4 + 3.6 + 5.0)).abs() < 1e-9);
    assert!(r.is_feasible());
}

#[test]
fn the_plane_recheck_uses_exact_travel_times() {
    // Customer at (1,1) due at 1: exact travel sqrt 2 > 1 is late; the integer model says so too.
    let text = "T\nVEHICLE\nNUMBER CAPACITY\n1 10\nCUSTOMER\nCUST NO. X Y D R DUE S\n0 0 0 0 0 100 0\n1 1 1 1 0 1 0\n";
    let inst = formats::solomon::read(text, Objective::Distance, Convention::Exact).unwrap();
    let s = one_route(&inst.problem, &[Step::Job(0)]);
    let r = check_plane(&inst.problem, &s, inst.plane.as_ref().unwrap());
    assert_eq!(
        r.violations.iter().map(|v| v.code).collect::<Vec<_>>(),
        vec![Code::TimeWindow]
    );
    assert!(codes(&inst.problem, &s).contains(&Code::TimeWindow));
}

#[test]
fn the_dimacs_convention_checks_with_truncated_travel_times() {
    // Five diagonal hops of sqrt 2 reach (5,5) at 7.07 exactly but at 7.0 with truncated arcs.
    let mut text =
        "T\nVEHICLE\nNUMBER CAPACITY\n1 10\nCUSTOMER\nCUST NO. X Y D R DUE S\n0 0 0 0 0 100 0\n"
            .to_owned();
    for k in 1..=5 {
        text += &format!("{k} {k} {k} 1 0 {} 0\n", if k == 5 { 7 } else { 100 });
    }
    let steps: Vec<Step> = (0..5).map(Step::Job).collect();
    let exact = formats::read_with(&text, None, Objective::Distance, Convention::Exact).unwrap();
    let s = one_route(&exact.problem, &steps);
    assert!(codes(&exact.problem, &s).contains(&Code::TimeWindow));
    assert!(!check_plane(&exact.problem, &s, exact.plane.as_ref().unwrap()).is_feasible());
    let dimacs = formats::read_with(&text, None, Objective::Distance, Convention::Dimacs).unwrap();
    let s = one_route(&dimacs.problem, &steps);
    assert!(checker::check(&dimacs.problem, &s).is_feasible());
    let r = check_plane(&dimacs.problem, &s, dimacs.plane.as_ref().unwrap());
    assert!(r.is_feasible(), "{:?}", r.violations);
    assert!((r.dimacs_distance - (5.0 * 1.4 + 7.0)).abs() < 1e-9);
}

#[test]
fn the_dimacs_recheck_adds_truncated_arcs_in_integer_tenths() {
    // Ten diagonal hops of sqrt 2 (1.4 truncated) reach (10,10) at exactly 14.0, its due time.
    // Summed in doubles the ten arcs make 14.000000000000002: a valid route would be late on
    // float rounding alone, as a valid PyVRP route on rc1_10_1 was.
    assert!((0..10).fold(0.0f64, |t, _| t + 1.4) > 14.0);
    let mut text =
        "T\nVEHICLE\nNUMBER CAPACITY\n1 20\nCUSTOMER\nCUST NO. X Y D R DUE S\n0 0 0 0 0 100 0\n"
            .to_owned();
    for k in 1..=10 {
        text += &format!("{k} {k} {k} 1 0 {} 0\n", if k == 10 { 14 } else { 100 });
    }
    let dimacs = formats::read_with(&text, None, Objective::Distance, Convention::Dimacs).unwrap();
    let steps: Vec<Step> = (0..10).map(Step::Job).collect();
    let s = one_route(&dimacs.problem, &steps);
    assert!(checker::check(&dimacs.problem, &s).is_feasible());
    let r = check_plane(&dimacs.problem, &s, dimacs.plane.as_ref().unwrap());
    assert!(r.is_feasible(), "{:?}", r.violations);
    assert_eq!(
        r.dimacs_distance, 28.1,
        "14.0 out, 14.1 back: summed as 281 tenths"
    );

    // One unit earlier the same route is late, by the re-check as by the integer model.
    let late = text.replace("10 10 10 1 0 14 0", "10 10 10 1 0 13 0");
    let dimacs = formats::read_with(&late, None, Objective::Distance, Convention::Dimacs).unwrap();
    let s = one_route(&dimacs.problem, &steps);
    assert!(codes(&dimacs.problem, &s).contains(&Code::TimeWindow));
    let r = check_plane(&dimacs.problem, &s, dimacs.plane.as_ref().unwrap());
    assert_eq!(
        r.violations.iter().map(|v| v.code).collect::<Vec<_>>(),
        vec![Code::TimeWindow]
    );
}

#[test]
fn published_best_known_solutions_pass_both_checks() {
    let dir = solver_support::instances();
    let picks = [
        ("homberger", "c1_2_1"),
        ("homberger", "r2_2_3"),
        ("homberger", "rc1_2_5"),
        ("lilim", "lc101"),
        ("lilim", "lr112"),
        ("lilim", "lrc206"),
    ];
    for (set, name) in picks {
        let file = std::fs::read_dir(dir.join(set).join("bks_solutions"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .find(|f| f.starts_with(&format!("{name}.")))
            .unwrap_or_else(|| panic!("no BKS file for {name}"));
        check_bks_file(&dir, set, name, &file).unwrap();
    }
}

/// Every shipped route file: the 72 Homberger and 56 Li & Lim 100 instances of `instances/`.
#[test]
fn every_shipped_best_known_solution_passes_both_checks() {
    let dir = solver_support::instances();
    let (mut count, mut failures) = (0, Vec::new());
    for set in ["homberger", "lilim"] {
        for entry in std::fs::read_dir(dir.join(set).join("bks_solutions")).unwrap() {
            let file = entry.unwrap().file_name().into_string().unwrap();
            let name = file.split('.').next().unwrap().to_owned();
            if let Err(e) = check_bks_file(&dir, set, &name, &file) {
                failures.push(e);
            }
            count += 1;
        }
    }
    assert_eq!(count, 72 + 56);
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Reads an instance and its SINTEF route file and runs both checks; `Err` says what failed.
fn check_bks_file(dir: &std::path::Path, set: &str, name: &str, file: &str) -> Result<(), String> {
    let (vehicles, distance) = solver_support::figures_from_name(file);
    let path = std::fs::read_dir(dir.join(set))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .eq_ignore_ascii_case(&format!("{name}.txt"))
        })
        .ok_or(format!("no instance file for {name}"))?;
    let inst = formats::read(
        &solver_support::read_text(&path),
        None,
        Objective::VehiclesThenDistance,
    )
    .map_err(|e| format!("{name}: {e}"))?;
    let routes = solver_support::sintef_routes(&solver_support::read_text(
        &dir.join(set).join("bks_solutions").join(file),
    ));
    let solution = solver_support::solution_from_nodes(&inst, &routes);
    let report = checker::check(&inst.problem, &solution);
    if !report.is_feasible() || report.vehicles != vehicles {
        return Err(format!(
            "{name}: {} vehicles, {:?}",
            report.vehicles, report.violations
        ));
    }
    let plane = check_plane(&inst.problem, &solution, inst.plane.as_ref().unwrap());
    if !plane.is_feasible() || (plane.distance - distance).abs() >= 5e-5 {
        return Err(format!(
            "{name}: distance {} vs {distance}, {:?}",
            plane.distance, plane.violations
        ));
    }
    if plane.dimacs_distance >= plane.distance {
        return Err(format!("{name}: DIMACS figure not below the double one"));
    }
    Ok(())
}
