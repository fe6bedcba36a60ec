//! Opening a route for a task that fits only through another visit.
//!
//! On a matrix that breaks the triangle inequality the pre-check keeps a task that fits no
//! vehicle alone but fits in time through one other visit ([`super::precheck`]), allowed
//! nowhere, so the search leaves it out. This step, run on the final solution, tries each such
//! task on an unused vehicle it fits that way, together with one job that makes the detour,
//! moved over from its route (which must stay feasible) or from the left-out list: the task
//! is placed and nothing is lost.

use super::constraint::feasible;
use super::instance::{Instance, NONE};
use super::state::State;

/// Places every such left-out task it can on an unused vehicle beside a job moved there; see
/// the module documentation. Deterministic: tasks, jobs and vehicles in index order.
pub(crate) fn open_detour_routes(inst: &Instance, s: &mut State) {
    let mut left: Vec<u32> = s
        .unassigned
        .iter()
        .copied()
        .filter(|&t| !inst.through_a_visit[t as usize].is_empty())
        .collect();
    left.sort_unstable();
    for t in left {
        let t = t as usize;
        let task = &inst.tasks[t];
        let nodes: Vec<u32> = [task.first, task.second]
            .into_iter()
            .filter(|&x| x != NONE)
            .collect();
        let unused = unused_classes(inst, s, t);
        if unused
            .iter()
            .any(|&r| feasible(inst, s.routes[r].vehicle, &nodes))
        {
            // It fits alone: leaving it out was the search's call, not a missing detour.
            continue;
        }
        for y in detour_jobs(inst, s, &unused, &nodes) {
            if try_move(inst, s, t, &nodes, y, &unused) {
                break;
            }
        }
    }
}

/// One unused route per class of interchangeable vehicles that task `t` fits through a visit.
fn unused_classes(inst: &Instance, s: &State, t: usize) -> Vec<usize> {
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (r, route) in s.routes.iter().enumerate() {
        let class = inst.vehicles[route.vehicle].class;
        if route.is_empty()
            && inst.through_a_visit[t].contains(&route.vehicle)
            && !seen.contains(&class)
        {
            seen.push(class);
            out.push(r);
        }
    }
    out
}

/// Job nodes through which some leg of the task (from a vehicle's start, between its visits,
/// to the end) is quicker than its direct arc, set-up and service included.
fn detour_jobs(inst: &Instance, s: &State, unused: &[usize], nodes: &[u32]) -> Vec<u32> {
    let mut legs = Vec::new();
    for &r in unused {
        let vd = &inst.vehicles[s.routes[r].vehicle];
        let mut stops = vec![vd.start];
        stops.extend(nodes.iter().map(|&x| inst.loc[x as usize]));
        stops.push(vd.end);
        legs.extend(stops.windows(2).map(|w| (w[0], w[1])));
    }
    legs.sort_unstable();
    legs.dedup();
    (0..inst.loc.len())
        .filter(|&y| inst.tasks[inst.node_task[y] as usize].second == NONE)
        .filter(|&y| {
            let (l, busy) = (inst.loc[y], inst.setup[y] + inst.service[y]);
            legs.iter()
                .any(|&(a, b)| inst.tt(a, l) + busy + inst.tt(l, b) < inst.tt(a, b))
        })
        .map(|y| y as u32)
        .collect()
}

/// Opens one of `unused` with task `t`'s visits and job node `y` at some position, moving `y`
/// from where it is; false (nothing changed) when no such route is feasible.
fn try_move(
    inst: &Instance,
    s: &mut State,
    t: usize,
    nodes: &[u32],
    y: u32,
    unused: &[usize],
) -> bool {
    let ty = inst.node_task[y as usize] as usize;
    let from = s.route_of[ty];
    let rest: Option<Vec<u32>> = (from != NONE).then(|| {
        let route = &s.routes[from as usize];
        route.nodes.iter().copied().filter(|&x| x != y).collect()
    });
    if let Some(rest) = &rest {
        if !feasible(inst, s.routes[from as usize].vehicle, rest) {
            return false;
        }
    }
    for &r in unused {
        let v = s.routes[r].vehicle;
        if !inst.is_allowed(ty, v) {
            continue;
        }
        for k in 0..=nodes.len() {
            let mut seq = nodes.to_vec();
            seq.insert(k, y);
            if !feasible(inst, v, &seq) {
                continue;
            }
            let mut placed = Vec::new();
            s.take_unassigned_where(inst, &mut placed, |x| x as usize == t || x as usize == ty);
            if let Some(rest) = rest {
                s.route_mut(from as usize).nodes = rest;
                s.refresh(inst, from as usize);
            }
            s.route_mut(r).nodes = seq;
            s.refresh(inst, r);
            s.set_route(t, r as u32);
            s.set_route(ty, r as u32);
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::checker;
    use crate::solver::fixtures::{job, vehicle};
    use crate::solver::output::to_solution;
    use crate::solver::precheck::precheck;
    use crate::solver::problem::*;
    use crate::solver::solution::{Reason, Step};

    /// Depot 0, pickup 1, a hub customer 2, delivery 3, another customer 4 (`depot_to_4` from
    /// the depot). From the pickup the delivery is 100 away directly, 25 through the hub (5 of
    /// service there), 45 through 4.
    fn day(depot_to_4: Time) -> Problem {
        #[rustfmt::skip]
        let d = vec![
            0, 10, 20, 50, depot_to_4,
            10, 0, 10, 100, 15,
            20, 10, 0, 10, 5,
            50, 100, 10, 0, 30,
            20, 15, 5, 30, 0,
        ];
        let mut hub = job(1, 2);
        hub.place.service = 5;
        let place = |location, end| Place {
            location,
            setup: 0,
            service: 0,
            time_windows: vec![TimeWindow { start: 0, end }],
        };
        let mut skilled = vehicle(2, 10);
        skilled.skills = Skills::from_indices([1]);
        Problem {
            name: "detour".into(),
            matrix: Matrix::new(5, d.clone(), d).unwrap(),
            jobs: vec![hub, job(2, 4)],
            shipments: vec![Shipment {
                pickup_id: 3,
                delivery_id: 4,
                pickup: place(1, 1000),
                delivery: place(3, 40),
                amount: vec![1],
                skills: Skills::from_indices([1]),
                priority: 0,
                pinned_vehicle: None,
            }],
            vehicles: vec![vehicle(1, 10), skilled],
            dimensions: 1,
            objective: Objective::Distance,
        }
    }

    /// Both jobs on the unskilled vehicle, the shipment left out: what the search may end with,
    /// as inserting the shipment anywhere alone fails.
    fn both_jobs_on_the_first_route(inst: &Instance) -> State {
        let mut s = State::empty(inst, &[0, 1, 2]);
        s.take_unassigned_where(inst, &mut Vec::new(), |t| t < 2);
        s.route_mut(0).nodes = vec![0, 1];
        s.refresh(inst, 0);
        s.set_route(0, 0);
        s.set_route(1, 0);
        s
    }

    #[test]
    fn a_task_that_fits_only_through_a_job_opens_a_vehicle_with_that_job() {
        let p = day(20);
        let mut inst = Instance::new(&p);
        let reasons = precheck(&p, &mut inst);
        assert!(reasons.iter().all(Option::is_none), "{reasons:?}");
        let mut s = both_jobs_on_the_first_route(&inst);
        let before = s.score(&inst);
        open_detour_routes(&inst, &mut s);
        assert!(s.unassigned.is_empty());
        assert!(s.score(&inst) < before);
        let sol = to_solution(&inst, &s, &reasons);
        assert!(checker::check(&p, &sol).is_feasible());
        let steps =
            |r: usize| -> Vec<Step> { sol.routes[r].steps.iter().map(|x| x.step).collect() };
        assert_eq!(steps(0), vec![Step::Job(1)]);
        assert_eq!(
            steps(1),
            vec![Step::Pickup(0), Step::Job(0), Step::Delivery(0)]
        );
    }

    #[test]
    fn a_job_stays_where_its_route_would_break_without_it() {
        // Customer 4 is 100 from the depot but closes at 30: only through the hub in time.
        let mut p = day(100);
        p.jobs[1].place.time_windows = vec![TimeWindow { start: 0, end: 30 }];
        let mut inst = Instance::new(&p);
        let reasons = precheck(&p, &mut inst);
        let mut s = both_jobs_on_the_first_route(&inst);
        assert!(feasible(&inst, 0, &[0, 1]) && !feasible(&inst, 0, &[1]));
        open_detour_routes(&inst, &mut s);
        assert_eq!(s.unassigned, vec![2]);
        assert_eq!(s.routes[0].nodes, vec![0, 1]);
        assert!(checker::check(&p, &to_solution(&inst, &s, &reasons)).is_feasible());
    }

    #[test]
    fn a_task_left_out_that_fits_only_through_a_visit_is_not_said_to_fit_alone() {
        let mut p = day(100);
        p.jobs[1].place.time_windows = vec![TimeWindow { start: 0, end: 30 }];
        let mut inst = Instance::new(&p);
        let reasons = precheck(&p, &mut inst);
        let mut s = both_jobs_on_the_first_route(&inst);
        open_detour_routes(&inst, &mut s);
        let sol = to_solution(&inst, &s, &reasons);
        let left = sol.unassigned[0];
        assert_eq!(left.task, Step::Pickup(0));
        assert_eq!(left.reason, Reason::NotPlacedThroughAVisit);
        assert_eq!(left.reason.code(), "NOT_PLACED");
        assert!(left.reason.description().contains("through another visit"));
    }
}
