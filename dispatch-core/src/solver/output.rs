//! Turns the search state into the public [`Solution`] with timetables and reasons.

use super::constraint::schedule::simulate;
use super::instance::Instance;
use super::solution::{Reason, Route, Solution, Step, Unassigned};
use super::state::State;

/// The solution of `s`; `reasons` are the pre-check's per-task verdicts.
pub(crate) fn to_solution(inst: &Instance, s: &State, reasons: &[Option<Reason>]) -> Solution {
    let mut left_out: Vec<(usize, Reason)> = Vec::new();
    let mut routes = Vec::new();
    for r in s.routes.iter().filter(|r| !r.is_empty()) {
        let mut steps = Vec::new();
        match simulate(inst, r.vehicle, &r.nodes, Some(&mut steps)) {
            Ok(t) => routes.push(Route {
                vehicle: r.vehicle,
                start_time: t.start,
                end_time: t.end,
                steps,
            }),
            Err(broken) => {
                // The search only builds routes that simulate; never emit one that does not.
                debug_assert!(false, "search produced an infeasible route: {broken:?}");
                for &n in &r.nodes {
                    let t = inst.node_task[n as usize] as usize;
                    if inst.tasks[t].first == n {
                        left_out.push((t, Reason::NotPlaced));
                    }
                }
            }
        }
    }
    for &t in &s.unassigned {
        // Such a task fits no vehicle alone: "fits on its own" would not be true of it.
        let reason = if inst.through_a_visit[t as usize].is_empty() {
            Reason::NotPlaced
        } else {
            Reason::NotPlacedThroughAVisit
        };
        left_out.push((t as usize, reason));
    }
    for (t, r) in reasons.iter().enumerate() {
        if let Some(r) = r {
            left_out.push((t, *r));
        }
    }
    left_out.sort_by_key(|&(t, _)| t);
    let unassigned = left_out
        .into_iter()
        .map(|(t, reason)| Unassigned {
            task: task_step(inst, t),
            reason,
        })
        .collect();
    Solution { routes, unassigned }
}

/// The public step naming task `t`: `Step::Job` or, for a shipment, `Step::Pickup`.
pub(crate) fn task_step(inst: &Instance, t: usize) -> Step {
    if t < inst.n_jobs {
        Step::Job(t)
    } else {
        Step::Pickup(t - inst.n_jobs)
    }
}
