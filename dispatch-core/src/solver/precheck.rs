//! Per-task pre-check: which vehicles could serve a task on its own, and why none can.
//!
//! A travel matrix need not obey the triangle inequality (depot days add per-direction noise),
//! so a task that fails alone on the direct arcs may still fit once a route passes another
//! visit on the way: such a task is kept (no reason given) with the vehicles where it does
//! (see [`through_a_stop`]) for [`super::detour`], else nothing would ever try it. It stays
//! allowed nowhere: the search's moves rely on every allowed task fitting its vehicle alone.

use std::collections::HashMap;

use super::constraint::schedule::simulate;
use super::constraint::windows::earliest;
use super::constraint::{capacity, eligibility};
use super::instance::{Instance, INF};
use super::problem::{Problem, Time};
use super::solution::Reason;

/// Fills `inst.allowed` and `inst.through_a_visit` and returns, per task, the reason it can never be served (if any).
pub(crate) fn precheck(p: &Problem, inst: &mut Instance) -> Vec<Option<Reason>> {
    let nv = p.vehicles.len();
    let classes = inst.vehicles.iter().map(|v| v.class + 1).max().unwrap_or(0);
    // Interchangeable vehicles give the same verdict: one simulation per class and task.
    let mut verdict: Vec<Option<bool>> = vec![None; classes];
    let mut reasons = Vec::with_capacity(inst.tasks.len());
    let mut legs = HashMap::new();
    for t in 0..inst.tasks.len() {
        let (skills, pinned) = if t < p.jobs.len() {
            (&p.jobs[t].skills, p.jobs[t].pinned_vehicle)
        } else {
            let s = &p.shipments[t - p.jobs.len()];
            (&s.skills, s.pinned_vehicle)
        };
        if nv == 0 || pinned.is_some_and(|v| v >= nv) {
            reasons.push(Some(Reason::NoVehicle));
            continue;
        }
        let skilled: Vec<usize> = (0..nv)
            .filter(|&v| eligibility::serves(v, &p.vehicles[v], skills, pinned))
            .collect();
        if skilled.is_empty() {
            reasons.push(Some(Reason::Skills));
            continue;
        }
        let fits: Vec<usize> = skilled
            .into_iter()
            .filter(|&v| capacity::fits_alone(inst, inst.tasks[t].first as usize, v))
            .collect();
        if fits.is_empty() {
            reasons.push(Some(Reason::Capacity));
            continue;
        }
        let task = inst.tasks[t].clone();
        let nodes: Vec<u32> = if task.second == super::instance::NONE {
            vec![task.first]
        } else {
            vec![task.first, task.second]
        };
        let mut any = false;
        verdict.fill(None);
        for &v in &fits {
            let class = inst.vehicles[v].class;
            let ok = *verdict[class].get_or_insert_with(|| simulate(inst, v, &nodes, None).is_ok());
            if ok {
                inst.allowed[t * nv + v] = true;
                any = true;
            }
        }
        if !any {
            verdict.fill(None);
            for &v in &fits {
                let class = inst.vehicles[v].class;
                let ok = *verdict[class]
                    .get_or_insert_with(|| through_a_stop(inst, v, &nodes, &mut legs));
                if ok {
                    inst.through_a_visit[t].push(v);
                    any = true;
                }
            }
        }
        if any {
            reasons.push(None);
        } else if fits.iter().any(|&v| windows_reachable(inst, v, &nodes)) {
            reasons.push(Some(Reason::Shift));
        } else {
            reasons.push(Some(Reason::TimeWindow));
        }
    }
    reasons
}

/// The visits can start inside their windows when driving straight from the vehicle's start
/// at the start of its shift (ignoring the shift's end and the route limits).
fn windows_reachable(inst: &Instance, v: usize, nodes: &[u32]) -> bool {
    let vd = &inst.vehicles[v];
    let mut t = vd.shift.start;
    let mut prev = vd.start;
    for &n in nodes {
        let n = n as usize;
        let s = earliest(inst, n, t + inst.tt(prev, inst.loc[n]));
        if s >= INF {
            return false;
        }
        t = s + inst.setup[n] + inst.service[n];
        prev = inst.loc[n];
    }
    true
}

/// The visits fit their windows and the shift when each leg (from the vehicle's start, between
/// the visits, to its end) takes the quicker of its direct arc and a detour through any one
/// other visit, paying that visit's set-up and service but not its windows, breaks or the
/// route limits: a loose test, as it only keeps the search from ruling a task out too early.
fn through_a_stop(
    inst: &Instance,
    v: usize,
    nodes: &[u32],
    legs: &mut HashMap<(usize, usize), Time>,
) -> bool {
    let vd = &inst.vehicles[v];
    let mut leg = |a: usize, b: usize| {
        *legs.entry((a, b)).or_insert_with(|| {
            (0..inst.loc.len())
                .map(|y| {
                    inst.tt(a, inst.loc[y])
                        + inst.setup[y]
                        + inst.service[y]
                        + inst.tt(inst.loc[y], b)
                })
                .fold(inst.tt(a, b), Time::min)
        })
    };
    let mut t = vd.shift.start;
    let mut prev = vd.start;
    for &n in nodes {
        let n = n as usize;
        let s = earliest(inst, n, t + leg(prev, inst.loc[n]));
        if s >= INF {
            return false;
        }
        t = s + inst.setup[n] + inst.service[n];
        prev = inst.loc[n];
    }
    t + leg(prev, vd.end) <= vd.shift.end
}
