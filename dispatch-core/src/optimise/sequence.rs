//! `maintain_upload_sequence`: the solver chooses which vehicle serves which orders; each route
//! is then put in request order and re-timed. An order that no longer fits its route moves to
//! the route (used or empty) where it fits in its place of the sequence at the least extra
//! travel time, or is left out with the constraint that blocked it.

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

/// The solution's routes in request order, and the tasks that had to leave them.
pub(crate) fn in_request_order(
    built: &BuiltDay,
    solution: &Solution,
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
    let mut removed: Vec<(Task, Reason)> = Vec::new();
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
    let mut left_out = Vec::new();
    for (t, reason) in removed {
        let r = rank(built, t);
        let mut best: Option<(i64, usize, Vec<Task>)> = None;
        for (v, plan) in plans.iter().enumerate() {
            let at = plan.partition_point(|&x| rank(built, x) < r);
            let mut candidate = plan.clone();
            candidate.insert(at, t);
            let Ok(route) = simulate(built, v, &visits(&candidate), Mode::Strict) else {
                continue;
            };
            let before = if plan.is_empty() {
                0
            } else {
                simulate(built, v, &visits(plan), Mode::Strict).map_or(0, |r| travel(built, &r))
            };
            let extra = travel(built, &route) - before;
            if best.as_ref().is_none_or(|b| extra < b.0) {
                best = Some((extra, v, candidate));
            }
        }
        match best {
            Some((_, v, candidate)) => plans[v] = candidate,
            None => left_out.push((t, reason)),
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
