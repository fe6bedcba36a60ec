//! `maintain_upload_sequence`: routes are subsequences of the request. Two candidates are
//! built and the one serving more (then driving less) is kept: the solver's routes put in
//! request order, an order that no longer fits moving to the route (used or empty) where it fits
//! in its place of the sequence; and every order appended, in request order, to the route where
//! it adds the least travel. An order neither places is left out with the constraint that
//! blocked it.

use super::simulate::{simulate, Mode};
use super::BuiltDay;
use crate::solver::solution::{Reason, Route, Solution, Step};

/// A task of the problem: `Step::Job(i)` or `Step::Pickup(i)` standing for shipment `i`.
type Task = Step;

fn rank(built: &BuiltDay, t: Task) -> usize {
    match t {
        Step::Job(i) => built.ranks[i],
        Step::Pickup(i) | Step::Delivery(i) => built.ranks[built.problem.jobs.len() + i],
        Step::Break(_) => usize::MAX,
    }
}

/// The visits of tasks in order: a shipment's pickup then its delivery.
fn visits(tasks: &[Task]) -> Vec<Step> {
    tasks
        .iter()
        .flat_map(|&t| match t {
            Step::Pickup(i) => vec![Step::Pickup(i), Step::Delivery(i)],
            other => vec![other],
        })
        .collect()
}

fn travel(built: &BuiltDay, route: &Route) -> i64 {
    let m = &built.problem.matrix;
    let vehicle = &built.problem.vehicles[route.vehicle];
    let mut prev = vehicle.start;
    let mut total = 0;
    for s in &route.steps {
        let loc = match s.step {
            Step::Job(i) => built.problem.jobs[i].place.location,
            Step::Pickup(i) => built.problem.shipments[i].pickup.location,
            Step::Delivery(i) => built.problem.shipments[i].delivery.location,
            Step::Break(_) => continue,
        };
        total += prev.map_or(0, |a| m.duration(a, loc));
        prev = Some(loc);
    }
    total + prev.zip(vehicle.end).map_or(0, |(a, b)| m.duration(a, b))
}

/// The day's routes in request order and the tasks left out (replacing the solver's
/// `NOT_PLACED` ones): the better of the solver's routes put in request order and repaired, and
/// a construction appending every task in request order to the route where it adds the least
/// travel. Better is more tasks served, then less travel.
pub(crate) fn in_request_order(
    built: &BuiltDay,
    solution: &Solution,
) -> (Vec<Route>, Vec<(Step, Reason)>) {
    let not_placed: Vec<Task> = solution
        .unassigned
        .iter()
        .filter(|u| u.reason == Reason::NotPlaced)
        .map(|u| u.task)
        .collect();
    let repaired = repair(built, solution, &not_placed);
    let mut tasks: Vec<Task> = solution
        .routes
        .iter()
        .flat_map(|r| &r.steps)
        .filter_map(|s| matches!(s.step, Step::Job(_) | Step::Pickup(_)).then_some(s.step))
        .chain(not_placed)
        .collect();
    tasks.sort_by_key(|&t| rank(built, t));
    let appended = append_in_order(built, &tasks);
    let key = |(routes, left): &(Vec<Route>, Vec<(Step, Reason)>)| {
        (
            left.len(),
            routes.iter().map(|r| travel(built, r)).sum::<i64>(),
        )
    };
    if key(&appended) < key(&repaired) {
        appended
    } else {
        repaired
    }
}

/// The most frequent reason among the vehicles' refusals, eligibility (skills, pinning) last.
fn main_reason(refusals: &[Reason]) -> Reason {
    let mut counts: Vec<(Reason, usize)> = Vec::new();
    for &r in refusals {
        match counts.iter_mut().find(|(x, _)| *x == r) {
            Some((_, n)) => *n += 1,
            None => counts.push((r, 1)),
        }
    }
    counts
        .into_iter()
        .max_by_key(|&(r, n)| (!matches!(r, Reason::Skills | Reason::NoVehicle), n))
        .map_or(Reason::NotPlaced, |(r, _)| r)
}

/// The vehicle whose plan takes `t` (put in by `put`) at the least extra travel: its index,
/// the new plan and its route; else every vehicle's refusal. `travels` holds each plan's
/// present travel (0 when empty).
fn cheapest_plan(
    built: &BuiltDay,
    plans: &[Vec<Task>],
    travels: &[i64],
    t: Task,
    put: impl Fn(&[Task], Task) -> Vec<Task>,
) -> Result<(usize, Vec<Task>, Route), Vec<Reason>> {
    let mut best: Option<(i64, usize, Vec<Task>, Route)> = None;
    let mut refusals = Vec::new();
    for (v, plan) in plans.iter().enumerate() {
        let candidate = put(plan, t);
        match simulate(built, v, &visits(&candidate), Mode::Strict) {
            Ok(route) => {
                let extra = travel(built, &route) - travels[v];
                if best.as_ref().is_none_or(|b| extra < b.0) {
                    best = Some((extra, v, candidate, route));
                }
            }
            Err(reason) => refusals.push(reason),
        }
    }
    best.map(|(_, v, plan, route)| (v, plan, route))
        .ok_or(refusals)
}

/// Every task in request order, appended to the route where it fits at the least extra travel.
fn append_in_order(built: &BuiltDay, tasks: &[Task]) -> (Vec<Route>, Vec<(Step, Reason)>) {
    let nv = built.problem.vehicles.len();
    let mut plans: Vec<Vec<Task>> = vec![Vec::new(); nv];
    let mut travels = vec![0; nv];
    let mut routes: Vec<Option<Route>> = vec![None; nv];
    let mut left_out = Vec::new();
    let append = |plan: &[Task], t: Task| [plan, &[t]].concat();
    for &t in tasks {
        match cheapest_plan(built, &plans, &travels, t, append) {
            Ok((v, plan, route)) => {
                travels[v] = travel(built, &route);
                plans[v] = plan;
                routes[v] = Some(route);
            }
            Err(refusals) => left_out.push((t, main_reason(&refusals))),
        }
    }
    (routes.into_iter().flatten().collect(), left_out)
}

/// The solver's routes sorted into request order; what no longer fits moves to the route where
/// it fits in its place of the sequence (the solver's left-out tasks get the same chance).
fn repair(
    built: &BuiltDay,
    solution: &Solution,
    not_placed: &[Task],
) -> (Vec<Route>, Vec<(Step, Reason)>) {
    let nv = built.problem.vehicles.len();
    let mut plans: Vec<Vec<Task>> = vec![Vec::new(); nv];
    for r in &solution.routes {
        plans[r.vehicle] = r
            .steps
            .iter()
            .filter_map(|s| match s.step {
                Step::Job(_) | Step::Pickup(_) => Some(s.step),
                _ => None,
            })
            .collect();
    }
    let mut removed: Vec<(Task, Reason)> =
        not_placed.iter().map(|&t| (t, Reason::NotPlaced)).collect();
    for (v, plan) in plans.iter_mut().enumerate() {
        plan.sort_by_key(|&t| rank(built, t));
        if plan.is_empty() || simulate(built, v, &visits(plan), Mode::Strict).is_ok() {
            continue;
        }
        let mut kept: Vec<Task> = Vec::with_capacity(plan.len());
        for &t in plan.iter() {
            kept.push(t);
            if let Err(reason) = simulate(built, v, &visits(&kept), Mode::Strict) {
                kept.pop();
                removed.push((t, reason));
            }
        }
        *plan = kept;
    }
    removed.sort_by_key(|&(t, _)| rank(built, t));
    let mut travels: Vec<i64> = plans
        .iter()
        .enumerate()
        .map(|(v, plan)| {
            if plan.is_empty() {
                return 0;
            }
            let route = simulate(built, v, &visits(plan), Mode::Strict);
            route.map_or(0, |r| travel(built, &r))
        })
        .collect();
    let mut left_out = Vec::new();
    for (t, reason) in removed {
        let r = rank(built, t);
        let in_place = |plan: &[Task], t: Task| {
            let at = plan.partition_point(|&x| rank(built, x) < r);
            [&plan[..at], &[t], &plan[at..]].concat()
        };
        match cheapest_plan(built, &plans, &travels, t, in_place) {
            Ok((v, plan, route)) => {
                travels[v] = travel(built, &route);
                plans[v] = plan;
            }
            Err(_) => left_out.push((t, reason)),
        }
    }
    let routes = plans
        .iter()
        .enumerate()
        .filter(|(_, p)| !p.is_empty())
        .map(|(v, p)| {
            simulate(built, v, &visits(p), Mode::Strict)
                .expect("every kept sequence was checked feasible")
        })
        .collect();
    (routes, left_out)
}
