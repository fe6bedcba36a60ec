//! A solver [`Solution`] to routes and stops with times and distances from the same matrix the
//! solver used, and its left-out tasks to unserved orders.

use super::describe::describe;
use super::simulate::{simulate, Mode};
use super::{
    sequence, BuiltDay, DayPlan, DayTime, PlannedBreak, PlannedRoute, PlannedStop, UnservedOrder,
    Visit,
};
use crate::model::order::Side;
use crate::solver::problem::{LocationIndex, Place, TimeWindow};
use crate::solver::solution::{Reason, Route, Solution, Step};

/// The day's plan from a solution of `built.problem`: one route per used vehicle (in vehicle
/// order), stops merged where consecutive visits share a location, and every order not routed
/// in `unserved` with its reason (checks before solving first, then the solver's).
pub fn plan_from_solution(built: &BuiltDay, solution: &Solution) -> DayPlan {
    let (mut routes, left_out) = if built.maintain_upload_sequence {
        sequence::in_request_order(built, solution)
    } else {
        let routes = solution.routes.iter().map(|r| earliest(built, r)).collect();
        (routes, Vec::new())
    };
    routes.sort_by_key(|r| r.vehicle);
    let mut unserved = built.excluded.clone();
    // In sequence mode the solver's NOT_PLACED tasks had their chance again: `left_out` says
    // what became of them.
    let solver_left_out = solution
        .unassigned
        .iter()
        .filter(|u| !(built.maintain_upload_sequence && u.reason == Reason::NotPlaced))
        .map(|u| (u.task, u.reason))
        .chain(left_out);
    for (task, reason) in solver_left_out {
        let description = describe(built, task, reason);
        for order_id in task_orders(built, task) {
            unserved.push(UnservedOrder {
                order_id,
                reason: reason.into(),
                description: description.clone(),
            });
        }
    }
    unserved.sort_by_key(|u| built.order_rank.get(&u.order_id).copied());
    DayPlan {
        routes: routes
            .iter()
            .filter(|r| !r.steps.is_empty())
            .map(|r| planned_route(built, r, None))
            .collect(),
        unserved,
    }
}

/// The route re-timed to serve every visit as early as its windows allow, leaving the start as
/// late as the first visit allows (the solver may report any feasible timing, e.g. the latest);
/// the solver's own timing when the re-timing cannot place the breaks.
pub(crate) fn earliest(built: &BuiltDay, route: &Route) -> Route {
    let visits: Vec<Step> = route
        .steps
        .iter()
        .map(|s| s.step)
        .filter(|s| !matches!(s, Step::Break(_)))
        .collect();
    simulate(built, route.vehicle, &visits, Mode::Strict).unwrap_or_else(|_| route.clone())
}

/// The orders a job or shipment step serves.
pub(crate) fn task_orders(built: &BuiltDay, step: Step) -> Vec<i64> {
    match step {
        Step::Job(i) => built.job_visits[i].iter().map(|v| v.order_id).collect(),
        Step::Pickup(i) | Step::Delivery(i) => vec![built.shipment_orders[i]],
        Step::Break(_) => Vec::new(),
    }
}

/// The visits of a step and where and how it is served.
pub(crate) fn step_place(built: &BuiltDay, step: Step) -> (Vec<Visit>, &Place) {
    let p = &built.problem;
    match step {
        Step::Job(i) => (built.job_visits[i].clone(), &p.jobs[i].place),
        Step::Pickup(i) => (
            vec![Visit {
                order_id: built.shipment_orders[i],
                side: Side::Pickup,
            }],
            &p.shipments[i].pickup,
        ),
        Step::Delivery(i) => (
            vec![Visit {
                order_id: built.shipment_orders[i],
                side: Side::Delivery,
            }],
            &p.shipments[i].delivery,
        ),
        Step::Break(_) => unreachable!("breaks have no place"),
    }
}

/// Seconds service starts after the end of the last window that opened before it (0 when on
/// time or unconstrained).
fn lateness(windows: &[TimeWindow], start: i64) -> i64 {
    if windows.is_empty() || windows.iter().any(|w| w.start <= start && start <= w.end) {
        return 0;
    }
    windows
        .iter()
        .filter(|w| w.end < start)
        .map(|w| start - w.end)
        .min()
        .unwrap_or(0)
}

/// A timed solver route as a planned route. Visits form one stop when they are consecutive at
/// one location, or, when `groups` is given (one entry per non-break step), when they are
/// consecutive with the same group number.
pub(crate) fn planned_route(
    built: &BuiltDay,
    route: &Route,
    groups: Option<&[usize]>,
) -> PlannedRoute {
    let p = &built.problem;
    let vehicle = &p.vehicles[route.vehicle];
    let m = &p.matrix;
    let mut prev: Option<LocationIndex> = vehicle.start;
    let (mut travel, mut distance) = (0i64, 0i64);
    let mut stops: Vec<PlannedStop> = Vec::new();
    let mut breaks = Vec::new();
    let mut last_was_stop = false;
    let mut visit_no = 0;
    let mut prev_group = None;
    for s in &route.steps {
        if let Step::Break(b) = s.step {
            let service = vehicle.breaks[b].service;
            breaks.push(PlannedBreak {
                start: DayTime(s.service_start),
                end: DayTime(s.service_start + service),
            });
            last_was_stop = false;
            continue;
        }
        let (visits, place) = step_place(built, s.step);
        let group = groups.map(|g| g[visit_no]);
        visit_no += 1;
        let same_stop = match group {
            Some(g) => last_was_stop && prev_group == Some(g),
            None => last_was_stop && prev == Some(place.location),
        } && stops
            .last()
            .is_some_and(|l| groups.is_some() || l.departure.seconds() == s.service_start);
        prev_group = group;
        let leg = prev.map_or((0, 0), |a| {
            (m.duration(a, place.location), m.distance(a, place.location))
        });
        travel += leg.0;
        distance += leg.1;
        let setup = if prev == Some(place.location) {
            0
        } else {
            place.setup
        };
        let departure = s.service_start + setup + place.service;
        let late = lateness(&place.time_windows, s.service_start);
        match stops.last_mut() {
            Some(last) if same_stop => {
                last.order_ids.extend(visits.iter().map(|v| v.order_id));
                last.sides.extend(visits.iter().map(|v| v.side));
                last.departure = DayTime(departure);
                last.late_s = last.late_s.max(late);
            }
            _ => stops.push(PlannedStop {
                order_ids: visits.iter().map(|v| v.order_id).collect(),
                sides: visits.iter().map(|v| v.side).collect(),
                location: built.location(place.location),
                arrival: DayTime(s.arrival),
                service_start: DayTime(s.service_start),
                departure: DayTime(departure),
                planned_distance_m: leg.1,
                travel_time_s: leg.0,
                late_s: late,
            }),
        }
        last_was_stop = true;
        prev = Some(place.location);
    }
    let end_leg = match (prev, vehicle.end) {
        (Some(a), Some(b)) => (m.duration(a, b), m.distance(a, b)),
        _ => (0, 0),
    };
    travel += end_leg.0;
    distance += end_leg.1;
    PlannedRoute {
        vehicle_id: built.vehicle_ids[route.vehicle],
        start_time: DayTime(route.start_time),
        end_time: DayTime(route.end_time),
        total_time_s: route.end_time - route.start_time,
        travel_time_s: travel,
        distance_m: distance,
        start_location: vehicle.start.map(|l| built.location(l)),
        end_location: vehicle.end.map(|l| built.location(l)),
        end_distance_m: end_leg.1,
        stops,
        breaks,
    }
}
