//! One route at a time, for edits of existing routes: timing a given stop sequence (route
//! reversal, appended stops) and re-solving one route while never returning a worse one.

use super::from_solution::planned_route;
use super::simulate::{simulate, Mode};
use super::to_problem::{build, Checks};
use super::{BuiltDay, DayRequest, OptimiseError, PlannedRoute, Visit};
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
/// present order): the solver's route is returned when it serves every order on time and
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
    // Only this vehicle, only the route's tasks, all pinned to it.
    let p = &mut built.problem;
    p.vehicles = vec![p.vehicles[v].clone()];
    built.vehicle_ids = vec![vehicle_id];
    let on_route = &steps;
    let keep_job: Vec<bool> = (0..p.jobs.len())
        .map(|i| on_route.contains(&Step::Job(i)))
        .collect();
    let keep_ship: Vec<bool> = (0..p.shipments.len())
        .map(|i| on_route.contains(&Step::Pickup(i)) || on_route.contains(&Step::Delivery(i)))
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
    let solution = solver::solve(&built.problem, config, control);
    let solved = match (solution.unassigned.is_empty(), solution.routes.first()) {
        (true, Some(r)) => Some(planned_route(&built, r, None)),
        _ => None,
    };
    match (solved, present) {
        (Some(s), Some(p)) if s.travel_time_s < p.travel_time_s => Ok(s),
        (Some(s), None) => Ok(s),
        (_, Some(p)) => Ok(p),
        (None, None) => time_route(req, matrix, vehicle_id, current),
    }
}
