//! Each inter-route operator on its own, on hand-made two-route solutions and on seeded
//! random days with time windows, a break, set-up times, two load dimensions and shipments.
//! Every result is judged by the independent checker (`checker::check` on the solution the
//! search would output), never by the operators' own bookkeeping.

use super::inter::{improve_with, InterMove};
use super::{relocate::Relocate, swap::Swap, two_opt_star::TwoOptStar};
use crate::solver::checker;
use crate::solver::fixtures::{self, job, vehicle};
use crate::solver::instance::Instance;
use crate::solver::neighbours::Neighbours;
use crate::solver::output::to_solution;
use crate::solver::precheck::precheck;
use crate::solver::problem::*;
use crate::solver::rng::Rng;
use crate::solver::state::State;
use crate::solver::warm::initial;

mod edits;
mod exchange;
mod random;

/// An operator run alone: the per-visit moves and whether SWAP* runs.
struct Op {
    name: &'static str,
    moves: &'static [&'static dyn InterMove],
    star: bool,
}

const RELOCATE: Op = Op {
    name: "relocate",
    moves: &[&Relocate],
    star: false,
};
const SWAP: Op = Op {
    name: "swap",
    moves: &[&Swap],
    star: false,
};
const TWO_OPT_STAR: Op = Op {
    name: "2-opt*",
    moves: &[&TwoOptStar],
    star: false,
};
const SWAP_STAR: Op = Op {
    name: "SWAP*",
    moves: &[],
    star: true,
};
const ALL: [&Op; 4] = [&RELOCATE, &SWAP, &TWO_OPT_STAR, &SWAP_STAR];

/// Rounded Euclidean matrix over the depot (0,0) and `points`.
fn plane(points: &[(i64, i64)]) -> Matrix {
    let mut pts = vec![(0i64, 0i64)];
    pts.extend_from_slice(points);
    fixtures::plane(&pts)
}

/// Jobs at `points` (node i at location i + 1), two vehicles of capacity `cap`.
fn problem(points: &[(i64, i64)], cap: i64) -> Problem {
    Problem {
        name: "two routes".into(),
        matrix: plane(points),
        jobs: (1..=points.len()).map(|l| job(l as u64, l)).collect(),
        shipments: vec![],
        vehicles: vec![vehicle(1, cap), vehicle(2, cap)],
        dimensions: 1,
        objective: Objective::Distance,
    }
}

/// What one operator made of a start: the routes' visits, the cost before and after.
struct Outcome {
    routes: Vec<Vec<u32>>,
    before: i64,
    after: i64,
}

/// Runs `op` alone from the given routes (node lists per vehicle) and checks the result with
/// the independent checker: feasible, every task still served, cost never higher.
fn run(p: &Problem, plan: &[(usize, Vec<u32>)], op: &Op) -> Outcome {
    let mut inst = Instance::new(p);
    let reasons = precheck(p, &mut inst);
    let tasks: Vec<u32> = (0..inst.tasks.len() as u32)
        .filter(|&t| reasons[t as usize].is_none())
        .collect();
    let (mut s, _): (State, _) = initial(&inst, &tasks, &plan.to_vec());
    let served = inst.tasks.len() - s.unassigned.len();
    let before = s.routing_cost();
    let nb = Neighbours::new(&inst, 10);
    let all: Vec<usize> = (0..s.routes.len()).collect();
    improve_with(&inst, &nb, &mut s, &all, op.moves, op.star, &|| false);
    let solution = to_solution(&inst, &s, &reasons);
    let report = checker::check(p, &solution);
    assert!(
        report.is_feasible(),
        "{}: {:?}\n{solution:#?}",
        op.name,
        report.violations
    );
    assert_eq!(inst.tasks.len() - s.unassigned.len(), served, "{}", op.name);
    assert!(s.routing_cost() <= before, "{}", op.name);
    Outcome {
        routes: s.routes.iter().map(|r| r.nodes.clone()).collect(),
        before,
        after: s.routing_cost(),
    }
}

#[test]
fn relocate_moves_a_stray_visit_to_its_cheapest_place_in_another_route() {
    // Route 0 goes east and takes (20,30) far north; route 1 serves the north and has room
    // for one more visit (capacity 3). The cheapest place is after (10,30), at its end.
    let p = problem(&[(10, 0), (20, 0), (0, 30), (10, 30), (20, 30)], 3);
    let o = run(&p, &[(0, vec![0, 1, 4]), (1, vec![2, 3])], &RELOCATE);
    assert!(o.after < o.before);
    assert_eq!(o.routes[1], vec![2, 3, 4]);
}

#[test]
fn relocate_moves_a_shipment_with_both_its_visits() {
    // Jobs east on route 0 with a shipment (0,30) -> (10,30) in the north, near route 1.
    let mut p = problem(&[(10, 0), (20, 0), (0, 20), (0, 30), (10, 30)], 10);
    p.jobs.truncate(3);
    p.shipments.push(Shipment {
        pickup_id: 10,
        delivery_id: 11,
        pickup: Place {
            location: 4,
            setup: 0,
            service: 0,
            time_windows: vec![],
        },
        delivery: Place {
            location: 5,
            setup: 0,
            service: 0,
            time_windows: vec![],
        },
        amount: vec![2],
        skills: Skills::default(),
        priority: 0,
        pinned_vehicle: None,
    });
    // Nodes: jobs 0..3, the shipment's pickup 3 and delivery 4.
    let o = run(&p, &[(0, vec![0, 3, 4, 1]), (1, vec![2])], &RELOCATE);
    assert!(o.after < o.before);
    assert_eq!(o.routes[0], vec![0, 1]);
    assert_eq!(o.routes[1], vec![2, 3, 4]);
}

#[test]
fn swap_exchanges_visits_between_full_routes() {
    // Capacity 2: each route keeps two visits, so only an exchange helps.
    let p = problem(&[(10, 0), (0, 30), (10, 30), (20, 0)], 2);
    let o = run(&p, &[(0, vec![0, 1]), (1, vec![2, 3])], &SWAP);
    assert!(o.after < o.before, "{} -> {}", o.before, o.after);
    let mut east = o.routes.into_iter().find(|r| r.contains(&0)).expect("east");
    east.sort_unstable();
    assert_eq!(east, vec![0, 3]);
}

#[test]
fn two_opt_star_exchanges_crossing_tails() {
    // Two routes that cross: 0 -> (10,0) -> (20,30) and 0 -> (10,30) -> (20,0).
    let p = problem(&[(10, 0), (20, 30), (10, 30), (20, 0)], 10);
    let o = run(&p, &[(0, vec![0, 1]), (1, vec![2, 3])], &TWO_OPT_STAR);
    assert!(o.after < o.before, "{} -> {}", o.before, o.after);
}

#[test]
fn swap_star_puts_each_exchanged_visit_at_its_best_place() {
    // East (10,0) (20,0) (30,0) and north (0,10) (0,20) (0,30), capacity 3; route 0 holds the
    // north's middle visit, route 1 the east's middle one, each at the wrong end: an exchange
    // in place leaves them there, SWAP* puts each between its two neighbours.
    let p = problem(&[(10, 0), (20, 0), (30, 0), (0, 10), (0, 20), (0, 30)], 3);
    let start = [(0, vec![4, 0, 2]), (1, vec![3, 5, 1])];
    let o = run(&p, &start, &SWAP_STAR);
    // Out to 30 and back on each axis: 60 + 60, the optimum.
    assert_eq!(o.after, 120, "{:?}", o.routes);
    let mut sets = o.routes.clone();
    sets.iter_mut().for_each(|r| r.sort_unstable());
    assert_eq!(sets, vec![vec![0, 1, 2], vec![3, 4, 5]]);
}

#[test]
fn no_operator_overloads_a_route() {
    // Capacity 2 and both routes full: relocating would overload.
    let p = problem(&[(10, 0), (0, 30), (10, 30), (20, 0)], 2);
    for op in ALL {
        let o = run(&p, &[(0, vec![0, 1]), (1, vec![2, 3])], op);
        assert!(
            o.routes.iter().all(|r| r.len() <= 2),
            "{}: {:?}",
            op.name,
            o.routes
        );
    }
}

#[test]
fn each_operator_keeps_days_with_breaks_shipments_and_windows_feasible() {
    // Seeded random days (see `random`): every operator alone, from a random feasible start;
    // the checker judges each result. Each operator must improve some of them, or the test
    // would pass without exercising it.
    for op in ALL {
        let mut improved = 0;
        for seed in 0..40 {
            let mut rng = Rng::new(seed, 7);
            let p = random::day(&mut rng);
            let plan = random::plan(&p, &mut rng);
            let o = run(&p, &plan, op);
            if o.after < o.before {
                improved += 1;
            }
        }
        assert!(
            improved >= 5,
            "{} improved only {improved} of 40 days",
            op.name
        );
    }
}
