//! Hand-made trades and seeded random days, every result judged by the independent checker.

use super::eject;
use crate::solver::checker;
use crate::solver::fixtures::{job, plane, vehicle};
use crate::solver::instance::{Instance, NONE};
use crate::solver::output::to_solution;
use crate::solver::precheck::precheck;
use crate::solver::problem::*;
use crate::solver::rng::Rng;
use crate::solver::solution::Solution;
use crate::solver::state::State;
use crate::solver::warm::{initial, Plan};

/// Runs the pass from `plan` (every other task left out), checks the result with the
/// independent checker and the state's own bookkeeping.
fn run(p: &Problem, plan: &Plan) -> (State, Solution) {
    let mut inst = Instance::new(p);
    let reasons = precheck(p, &mut inst);
    let tasks: Vec<u32> = (0..inst.tasks.len() as u32)
        .filter(|&t| reasons[t as usize].is_none())
        .collect();
    let (mut s, _) = initial(&inst, &tasks, plan);
    let before = s.score(&inst);
    eject(&inst, &mut s, &|| false);
    assert!(s.score(&inst) <= before, "the score never gets worse");
    for &t in &tasks {
        let on_routes = s.routes.iter().flat_map(|r| &r.nodes);
        let visits = on_routes
            .filter(|&&x| inst.node_task[x as usize] as usize == t as usize)
            .count();
        let left = s.unassigned.iter().filter(|&&u| u == t).count();
        let expected = if inst.tasks[t as usize].second == NONE {
            1
        } else {
            2
        };
        match s.route_of[t as usize] {
            NONE => assert_eq!((visits, left), (0, 1), "task {t} left out once"),
            r => {
                assert_eq!((visits, left), (expected, 0), "task {t} on a route");
                assert!(s.routes[r as usize]
                    .nodes
                    .contains(&inst.tasks[t as usize].first));
            }
        }
    }
    let solution = to_solution(&inst, &s, &reasons);
    let report = checker::check(p, &solution);
    assert!(
        report.is_feasible(),
        "{:?}\n{solution:#?}",
        report.violations
    );
    (s, solution)
}

/// Jobs at (10,0), (0,10) and (10,10) delivering `loads`, one vehicle of capacity 4.
fn day(loads: [Load; 3]) -> Problem {
    let mut jobs: Vec<Job> = (1..=3).map(|l| job(l as u64, l)).collect();
    for (j, l) in jobs.iter_mut().zip(loads) {
        j.delivery = vec![l];
    }
    Problem {
        name: "eject".into(),
        matrix: plane(&[(0, 0), (10, 0), (0, 10), (10, 10)]),
        jobs,
        shipments: vec![],
        vehicles: vec![vehicle(1, 4)],
        dimensions: 1,
        objective: Objective::Duration,
    }
}

#[test]
fn a_heavy_task_on_a_full_route_makes_room_for_two_light_left_out_ones() {
    let p = day([4, 2, 2]);
    let (s, _) = run(&p, &vec![(0, vec![0])]);
    assert_eq!(s.unassigned, vec![0]);
    let mut on = s.routes[0].nodes.clone();
    on.sort_unstable();
    assert_eq!(on, vec![1, 2]);
}

#[test]
fn a_higher_priority_task_is_never_traded_for_lower_ones() {
    let mut p = day([4, 2, 2]);
    p.jobs[0].priority = 100;
    let (s, _) = run(&p, &vec![(0, vec![0])]);
    assert_eq!(s.routes[0].nodes, vec![0]);
    let mut left = s.unassigned.clone();
    left.sort_unstable();
    assert_eq!(left, vec![1, 2]);
}

#[test]
fn one_light_task_does_not_replace_one_heavy_task_of_the_same_priority() {
    // Only one light job fits beside nothing else (load 3 each): one for one gains no task,
    // and the heavy job's route is the cheaper one, so nothing changes.
    let p = day([4, 3, 3]);
    let (s, _) = run(&p, &vec![(0, vec![0])]);
    assert_eq!(s.routes[0].nodes, vec![0]);
}

#[test]
fn the_task_taken_out_moves_to_another_route_with_room() {
    // The light jobs need skill 1, which only the first vehicle has; the second has room for
    // the heavy job.
    let mut p = day([4, 2, 2]);
    for j in &mut p.jobs[1..] {
        j.skills = Skills::from_indices([1]);
    }
    p.vehicles[0].skills = Skills::from_indices([1]);
    p.vehicles.push(vehicle(2, 5));
    p.jobs.push(job(4, 1));
    let (s, _) = run(&p, &vec![(0, vec![0]), (1, vec![3])]);
    assert!(s.unassigned.is_empty(), "{:?}", s.unassigned);
    let mut second = s.routes[1].nodes.clone();
    second.sort_unstable();
    assert_eq!(second, vec![0, 3]);
}

#[test]
fn a_route_short_of_time_takes_the_two_cheapest_detours_not_the_lightest_task() {
    // The heavy job (load 4) sits at (5,0). Left out: two jobs of load 2 near the depot, at
    // (0,5) and (5,5), and one of load 1 at (19,0), whose round trip (38) fills the shift
    // (40) alone. The lightest first would take the far job only.
    let pts = [(0, 0), (5, 0), (0, 5), (5, 5), (19, 0)];
    let mut jobs: Vec<Job> = (1..=4).map(|l| job(l as u64, l)).collect();
    for (j, l) in jobs.iter_mut().zip([4, 2, 2, 1]) {
        j.delivery = vec![l];
    }
    let p = Problem {
        name: "short of time".into(),
        matrix: plane(&pts),
        jobs,
        shipments: vec![],
        vehicles: vec![Vehicle {
            shift: TimeWindow { start: 0, end: 40 },
            ..vehicle(1, 4)
        }],
        dimensions: 1,
        objective: Objective::Duration,
    };
    let (s, _) = run(&p, &vec![(0, vec![0])]);
    let mut on = s.routes[0].nodes.clone();
    on.sort_unstable();
    assert_eq!(on, vec![1, 2]);
    let mut left = s.unassigned.clone();
    left.sort_unstable();
    assert_eq!(left, vec![0, 3]);
}

#[test]
fn a_route_that_breaks_without_the_task_taken_out_is_left_alone() {
    // Depot 0; a, X, c on the route (loads 1, 2, 1, capacity 4); u1, u2 left out (load 1).
    // From a, c is 5 + 5 through X but 85 directly: without X the route takes 105 of the
    // shift's 110, and its 10-minute break no longer fits. Filling it with u1 and u2 near the
    // end would look feasible to arrays that hold no break.
    #[rustfmt::skip]
    let d = vec![
        0, 10, 40, 40, 45, 45,
        10, 0, 5, 85, 60, 60,
        40, 60, 0, 5, 60, 60,
        10, 60, 60, 0, 2, 3,
        9, 60, 60, 60, 0, 1,
        9, 60, 60, 60, 60, 0,
    ];
    let mut jobs: Vec<Job> = (1..=5).map(|l| job(l as u64, l)).collect();
    jobs[1].delivery = vec![2];
    let p = Problem {
        name: "triangle".into(),
        matrix: Matrix::new(6, d.clone(), d).unwrap(),
        jobs,
        shipments: vec![],
        vehicles: vec![Vehicle {
            shift: TimeWindow { start: 0, end: 110 },
            breaks: vec![Break {
                id: 9,
                time_windows: vec![TimeWindow { start: 0, end: 110 }],
                service: 10,
            }],
            ..vehicle(1, 4)
        }],
        dimensions: 1,
        objective: Objective::Duration,
    };
    let (s, _) = run(&p, &vec![(0, vec![0, 1, 2])]);
    assert_eq!(s.routes[0].nodes, vec![0, 1, 2]);
}

/// A seeded day on a 40 x 40 plane: jobs of load 1-5 (deliveries and some pickups), windows,
/// set-up times, two shipments, two vehicles of capacity 10 with a break: more load than
/// room, so tasks are left out.
fn random_day(rng: &mut Rng) -> Problem {
    let jobs = 16;
    let visits = jobs + 4;
    let mut pts = vec![(20i64, 20i64)];
    pts.extend((0..visits).map(|_| (rng.below(41) as i64, rng.below(41) as i64)));
    let mut place = |location: usize| {
        let start = rng.below(200) as Time;
        let windows = match rng.below(3) {
            0 => vec![],
            _ => vec![TimeWindow {
                start,
                end: start + 80 + rng.below(200) as Time,
            }],
        };
        Place {
            location,
            setup: rng.below(3) as Time,
            service: 1 + rng.below(5) as Time,
            time_windows: windows,
        }
    };
    let places: Vec<Place> = (1..=visits).map(&mut place).collect();
    let jobs = (0..jobs)
        .map(|j| Job {
            id: j as u64 + 1,
            place: places[j].clone(),
            delivery: vec![1 + rng.below(5) as Load],
            pickup: vec![if rng.below(4) == 0 {
                1 + rng.below(3) as Load
            } else {
                0
            }],
            skills: Skills::default(),
            priority: if rng.below(5) == 0 { 10 } else { 0 },
            pinned_vehicle: None,
        })
        .collect();
    let shipments = (0..2)
        .map(|k| Shipment {
            pickup_id: 100 + 2 * k as u64,
            delivery_id: 101 + 2 * k as u64,
            pickup: places[16 + 2 * k].clone(),
            delivery: places[17 + 2 * k].clone(),
            amount: vec![1 + rng.below(4) as Load],
            skills: Skills::default(),
            priority: 0,
            pinned_vehicle: None,
        })
        .collect();
    let vehicles = (0..2)
        .map(|v| Vehicle {
            shift: TimeWindow { start: 0, end: 400 },
            breaks: vec![Break {
                id: 50 + v as u64,
                time_windows: vec![TimeWindow {
                    start: 100,
                    end: 200,
                }],
                service: 15,
            }],
            ..vehicle(v as u64 + 1, 10)
        })
        .collect();
    Problem {
        name: "random eject".into(),
        matrix: plane(&pts),
        jobs,
        shipments,
        vehicles,
        dimensions: 1,
        objective: Objective::Duration,
    }
}

/// Random routes: each task on a random vehicle or none, shipments' pickups first.
fn random_plan(p: &Problem, rng: &mut Rng) -> Plan {
    let mut routes: Vec<Vec<u32>> = vec![Vec::new(); p.vehicles.len()];
    for j in 0..p.jobs.len() {
        let r = rng.below(routes.len() + 1);
        if r < routes.len() {
            let at = rng.below(routes[r].len() + 1);
            routes[r].insert(at, j as u32);
        }
    }
    for k in 0..p.shipments.len() {
        let first = (p.jobs.len() + 2 * k) as u32;
        let r = &mut routes[rng.below(p.vehicles.len())];
        let at = rng.below(r.len() + 1);
        r.insert(at, first);
        let later = at + 1 + rng.below(r.len() - at);
        r.insert(later, first + 1);
    }
    routes.into_iter().enumerate().collect()
}

#[test]
fn random_days_stay_feasible_and_never_lose_a_priority_or_a_task() {
    let mut traded = 0;
    for seed in 0..200 {
        let mut rng = Rng::new(seed, 7);
        let p = random_day(&mut rng);
        let plan = random_plan(&p, &mut rng);
        let mut inst = Instance::new(&p);
        let reasons = precheck(&p, &mut inst);
        let tasks: Vec<u32> = (0..inst.tasks.len() as u32)
            .filter(|&t| reasons[t as usize].is_none())
            .collect();
        let (start, _) = initial(&inst, &tasks, &plan);
        let placed = |s: &State, prio: u32| {
            let on = |t: usize| s.route_of[t] != NONE;
            (0..p.jobs.len())
                .filter(|&j| p.jobs[j].priority >= prio && on(j))
                .count()
                + (0..p.shipments.len())
                    .filter(|&k| on(p.jobs.len() + k) && prio == 0)
                    .count()
        };
        let (s, first) = run(&p, &plan);
        assert!(
            placed(&s, 10) >= placed(&start, 10),
            "seed {seed}: priority 10"
        );
        assert!(placed(&s, 0) >= placed(&start, 0), "seed {seed}: all");
        if placed(&s, 0) > placed(&start, 0) {
            traded += 1;
        }
        let (_, again) = run(&p, &plan);
        assert_eq!(first, again, "seed {seed}: deterministic");
    }
    assert!(traded >= 10, "the days exercise the trade: {traded} of 200");
}
