//! One route at a time, for edits of existing routes: timing a given stop sequence (route
//! reversal, appended stops) and re-solving one route while never returning a worse one.

use super::describe::describe;
use super::from_solution::{earliest, planned_route, task_orders};
use super::simulate::{simulate, Mode};
use super::to_problem::{build, Checks};
use super::{BuiltDay, DayRequest, OptimiseError, PlannedRoute, UnservedOrder, Visit};
use crate::model::order::Side;
use crate::ports::matrix::TravelMatrix;
use crate::solver::solution::Step;
use crate::solver::{self};

/// The step serving `visit`, if the built problem has it.
fn step_of(built: &BuiltDay, visit: Visit) -> Option<Step> {
    if let Some(i) = built.job_visits.iter().position(|v| v.contains(&visit)) {
        return Some(Step::Job(i));
    }
    let i = built
        .shipment_orders
        .iter()
        .position(|&o| o == visit.order_id)?;
    Some(match visit.side {
        Side::Pickup => Step::Pickup(i),
        Side::Delivery => Step::Delivery(i),
    })
}

/// The steps of `stops` and, per step, the stop it belongs to. Visits already served by an
/// earlier step of the same stop (the second half of an exchange) add nothing.
fn steps_of(
    built: &BuiltDay,
    stops: &[Vec<Visit>],
) -> Result<(Vec<Step>, Vec<usize>), OptimiseError> {
    let (mut steps, mut groups) = (Vec::new(), Vec::new());
    for (g, stop) in stops.iter().enumerate() {
        for &visit in stop {
            let step = step_of(built, visit).ok_or_else(|| OptimiseError::UnknownOrder {
                order_id: visit.order_id,
                why: match built.excluded.iter().find(|u| u.order_id == visit.order_id) {
                    Some(u) => u.description.clone(),
                    None => "it is not among the request's orders with that end".to_owned(),
                },
            })?;
            if !(steps.last() == Some(&step) && groups.last() == Some(&g)) {
                steps.push(step);
                groups.push(g);
            }
        }
    }
    Ok((steps, groups))
}

/// Keeps the entries whose `mask` entry is true.
fn keep<T>(items: &mut Vec<T>, mask: &[bool]) {
    let mut flags = mask.iter();
    items.retain(|_| flags.next().copied().unwrap_or(false));
}

fn vehicle_index(built: &BuiltDay, vehicle_id: i64) -> Result<usize, OptimiseError> {
    built
        .vehicle_ids
        .iter()
        .position(|&v| v == vehicle_id)
        .ok_or(OptimiseError::UnknownVehicle { vehicle_id })
}

/// Times `stops` (each a list of order visits served together) in the given order for vehicle
/// `vehicle_id`, with the same matrix, shift, break and timing rules as planning. Nothing is
/// checked: a visit reached after its windows starts on arrival and reports its lateness in
/// [`super::PlannedStop::late_s`]; loads and skills are not checked. `req` names the orders
/// and the vehicle; its day rules (dates, zones) are not applied.
pub fn time_route(
    req: &DayRequest,
    matrix: &dyn TravelMatrix,
    vehicle_id: i64,
    stops: &[Vec<Visit>],
) -> Result<PlannedRoute, OptimiseError> {
    let built = build(req, matrix, Checks::LocationOnly)?;
    let v = vehicle_index(&built, vehicle_id)?;
    let (steps, groups) = steps_of(&built, stops)?;
    let route =
        simulate(&built, v, &steps, Mode::Lenient).expect("lenient timing accepts every sequence");
    Ok(planned_route(&built, &route, Some(&groups)))
}

/// Re-solves the route of `vehicle_id` serving the orders of `current` (its stops in their
/// present order), warm-started from the present sequence (repaired first when it breaks a
/// constraint): the solver's route is returned when it serves every order on time and
/// drives less than the present sequence, else the present sequence, re-timed. Stops of the
/// result are merged by location, as planning does.
pub fn reoptimise_route(
    req: &DayRequest,
    matrix: &dyn TravelMatrix,
    vehicle_id: i64,
    current: &[Vec<Visit>],
    config: &solver::Config,
    control: &dyn solver::Control,
) -> Result<PlannedRoute, OptimiseError> {
    let mut built = build(req, matrix, Checks::LocationOnly)?;
    let v = vehicle_index(&built, vehicle_id)?;
    let (steps, groups) = steps_of(&built, current)?;
    let present = match simulate(&built, v, &steps, Mode::Strict) {
        Ok(route) => Some(planned_route(&built, &route, Some(&groups))),
        Err(_) => None,
    };
    let start = only_route(&mut built, v, vehicle_id, &steps);
    let solution = solve_warm(&built, start, config, control);
    // Timed as planning times its routes: the solver may report any feasible timing.
    let solved = match (solution.unassigned.is_empty(), solution.routes.first()) {
        (true, Some(r)) => Some(planned_route(&built, &earliest(&built, r), None)),
        _ => None,
    };
    match (solved, present) {
        (Some(s), Some(p)) if s.travel_time_s < p.travel_time_s => Ok(s),
        (Some(s), None) => Ok(s),
        (_, Some(p)) => Ok(p),
        (None, None) => time_route(req, matrix, vehicle_id, current),
    }
}

/// Narrows `built` to vehicle `v` (now index 0) and the tasks of `steps`, none pinned; returns
/// `steps` renumbered for the narrowed problem.
fn only_route(built: &mut BuiltDay, v: usize, vehicle_id: i64, steps: &[Step]) -> Vec<Step> {
    let p = &mut built.problem;
    p.vehicles = vec![p.vehicles[v].clone()];
    built.vehicle_ids = vec![vehicle_id];
    let mut keep_job = vec![false; p.jobs.len()];
    let mut keep_ship = vec![false; p.shipments.len()];
    for &s in steps {
        match s {
            Step::Job(i) => keep_job[i] = true,
            Step::Pickup(i) | Step::Delivery(i) => keep_ship[i] = true,
            Step::Break(_) => {}
        }
    }
    // The new index of each kept task: how many kept ones come before it.
    let ranks = |keep: &[bool]| -> Vec<usize> {
        keep.iter()
            .scan(0, |n, &k| {
                let rank = *n;
                *n += usize::from(k);
                Some(rank)
            })
            .collect()
    };
    let (job_rank, ship_rank) = (ranks(&keep_job), ranks(&keep_ship));
    let renumbered = steps
        .iter()
        .map(|&s| match s {
            Step::Job(i) => Step::Job(job_rank[i]),
            Step::Pickup(i) => Step::Pickup(ship_rank[i]),
            Step::Delivery(i) => Step::Delivery(ship_rank[i]),
            Step::Break(b) => Step::Break(b),
        })
        .collect();
    keep(&mut p.jobs, &keep_job);
    keep(&mut built.job_visits, &keep_job);
    keep(&mut p.shipments, &keep_ship);
    keep(&mut built.shipment_orders, &keep_ship);
    for j in &mut p.jobs {
        j.pinned_vehicle = None;
    }
    for s in &mut p.shipments {
        s.pinned_vehicle = None;
    }
    renumbered
}

/// Solves the narrowed problem warm-started from `start` (the route's present visits on its
/// vehicle, now index 0); a start the solver refuses as malformed (a shipment with only one
/// of its visits on the route) is solved from scratch instead.
fn solve_warm(
    built: &BuiltDay,
    start: Vec<Step>,
    config: &solver::Config,
    control: &dyn solver::Control,
) -> solver::solution::Solution {
    let start = [solver::StartRoute {
        vehicle: 0,
        steps: start,
    }];
    match solver::solve_from(&built.problem, &start, config, control) {
        Ok(warm) => warm.solution,
        Err(_) => solver::solve(&built.problem, config, control),
    }
}

/// A route re-solved with orders added to it, and the added orders it declined.
#[derive(Debug, Clone, PartialEq)]
pub struct RouteWithAdditions {
    /// The route: its present orders and the added orders it accepted.
    pub route: PlannedRoute,
    /// Added orders left out, with the constraint that kept each out.
    pub declined: Vec<UnservedOrder>,
}

/// Re-solves the route of `vehicle_id` serving `current` (its stops in their present order)
/// plus `added` (one visit each), warm-started from the present sequence with the additions
/// inserted at their cheapest places. The present sequence with the additions appended is the
/// fallback: it stands when it is feasible and drives no more than the solver's route. The
/// solver may decline added orders (with their reason) but never a present one: when it
/// cannot keep every present order (the route was already infeasible, or it dropped one to
/// make room for an addition), the present stops are kept in their order and an addition is
/// appended only where the route stays feasible with it (windows, capacity, shift); the
/// others are declined, so a re-solved add never serves an order outside its window or beyond
/// the van.
pub fn reoptimise_with_additions(
    req: &DayRequest,
    matrix: &dyn TravelMatrix,
    vehicle_id: i64,
    current: &[Vec<Visit>],
    added: &[Visit],
    config: &solver::Config,
    control: &dyn solver::Control,
) -> Result<RouteWithAdditions, OptimiseError> {
    let mut built = build(req, matrix, Checks::LocationOnly)?;
    let v = vehicle_index(&built, vehicle_id)?;
    let mut all: Vec<Vec<Visit>> = current.to_vec();
    all.extend(added.iter().map(|a| vec![*a]));
    let (steps, groups) = steps_of(&built, &all)?;
    let present_steps = groups.partition_point(|&g| g < current.len());
    let appended = simulate(&built, v, &steps, Mode::Strict)
        .ok()
        .map(|route| planned_route(&built, &route, Some(&groups)));
    // The whole day's problem, kept to check appended additions against if the solver cannot
    // keep every present order (narrowing renumbers `built`).
    let full = built.clone();
    let mut start = only_route(&mut built, v, vehicle_id, &steps);
    start.truncate(present_steps);
    let solution = solve_warm(&built, start, config, control);
    let added_ids: Vec<i64> = added.iter().map(|a| a.order_id).collect();
    let mut declined = Vec::new();
    let mut present_left_out = false;
    for u in &solution.unassigned {
        for order_id in task_orders(&built, u.task) {
            if added_ids.contains(&order_id) {
                declined.push(UnservedOrder {
                    order_id,
                    reason: u.reason.into(),
                    description: describe(&built, u.task, u.reason),
                });
            } else {
                present_left_out = true;
            }
        }
    }
    if present_left_out {
        let mut kept: Vec<Vec<Visit>> = current.to_vec();
        for a in added {
            if declined.iter().any(|d| d.order_id == a.order_id) {
                continue;
            }
            let mut trial = kept.clone();
            trial.push(vec![*a]);
            let fits = steps_of(&full, &trial)
                .is_ok_and(|(steps, _)| simulate(&full, v, &steps, Mode::Strict).is_ok());
            if fits {
                kept = trial;
            } else {
                declined.push(UnservedOrder {
                    order_id: a.order_id,
                    reason: super::UnservedReason::NotPlaced,
                    description: format!(
                        "order {} fits the route only in place of an order already on it",
                        a.order_id
                    ),
                });
            }
        }
        declined.sort_by_key(|d| added_ids.iter().position(|&a| a == d.order_id));
        let route = time_route(req, matrix, vehicle_id, &kept)?;
        return Ok(RouteWithAdditions { route, declined });
    }
    declined.sort_by_key(|d| added_ids.iter().position(|&a| a == d.order_id));
    let solved = solution
        .routes
        .first()
        .map(|r| planned_route(&built, &earliest(&built, r), None));
    let route = match (solved, appended) {
        (Some(s), Some(a)) if declined.is_empty() && a.travel_time_s <= s.travel_time_s => a,
        (Some(s), _) => s,
        (None, Some(a)) => a,
        (None, None) => time_route(req, matrix, vehicle_id, current)?,
    };
    Ok(RouteWithAdditions { route, declined })
}
