//! Ejection for capacity-bound days: one placed task out of its route, two or more left-out
//! tasks in.
//!
//! When the fleet cannot carry every task, which tasks ride matters as much as where. On the
//! 5 000-order sample day the tail-lift vehicles are full of tasks up to 600 kg while tasks of
//! 260-300 kg that need a tail lift are left out: taking one heavy task off makes room for two
//! light ones. Ruin-and-recreate rarely finds that trade, as one iteration would have to remove
//! the heavy task and retry the right two of hundreds of left-out tasks. This pass tries it
//! directly: for each placed task of a route, the route without it takes as many left-out tasks
//! as fit (cheapest position each, highest priority first, then the lightest or the cheapest
//! detour, whichever fills better), and the trade is kept when the solution's score improves.
//!
//! Priority-aware through that score: leaving out a task of a priority level costs more than
//! leaving out every task of the lower levels ([`Instance`]'s weights), so a trade never gives up
//! a higher priority for lower ones. The task taken out is then placed elsewhere if it fits.
//! Deterministic: routes, tasks and candidates in a fixed order, no random choice.

use super::constraint::feasible;
use super::insertion::{apply, best_insertion, Blink};
use super::instance::{Instance, NONE};
use super::rng::Rng;
use super::route::Route;
use super::state::State;

/// Runs the pass over every used route until `stop` fires; returns the routes changed.
pub(crate) fn eject(inst: &Instance, s: &mut State, stop: &dyn Fn() -> bool) -> Vec<usize> {
    let mut changed = Vec::new();
    let mut trial = Route::default();
    for r in 0..s.routes.len() {
        if s.unassigned.is_empty() || stop() {
            break;
        }
        let v = s.routes[r].vehicle;
        let mut candidates = left_out_for(inst, s, v);
        // A route changes at most once per task it held: each trade strictly improves the
        // score, and the scan restarts on the changed route.
        let mut k = 0;
        while k < s.routes[r].len() && !candidates.is_empty() {
            let node = s.routes[r].nodes[k];
            let p = inst.node_task[node as usize] as usize;
            k += 1;
            if inst.tasks[p].first != node || !trade(inst, s, r, p, &candidates, &mut trial) {
                continue;
            }
            note(&mut changed, r);
            if let Some(other) = replace(inst, s, p) {
                note(&mut changed, other);
            }
            candidates = left_out_for(inst, s, v);
            k = 0;
        }
    }
    changed
}

fn note(changed: &mut Vec<usize>, r: usize) {
    if !changed.contains(&r) {
        changed.push(r);
    }
}

/// Left-out tasks allowed on vehicle `v`: highest weight first, then the lightest, then index.
fn left_out_for(inst: &Instance, s: &State, v: usize) -> Vec<u32> {
    let mut out: Vec<u32> = s
        .unassigned
        .iter()
        .copied()
        .filter(|&t| inst.is_allowed(t as usize, v))
        .collect();
    out.sort_unstable_by_key(|&t| {
        let task = &inst.tasks[t as usize];
        (std::cmp::Reverse(task.weight), task.demand, t)
    });
    out
}

/// Route `r` without task `p`, filled with as many `candidates` as fit: when that improves
/// the score, it replaces `r` and `p` is left out (true). Two fillings are tried, the better
/// kept: the lightest tasks first pack the most weight, the cheapest detours first leave the
/// most time, and a route short of both takes two tasks in one order only.
fn trade(
    inst: &Instance,
    s: &mut State,
    r: usize,
    p: usize,
    candidates: &[u32],
    trial: &mut Route,
) -> bool {
    let task = &inst.tasks[p];
    let stripped: Vec<u32> = s.routes[r]
        .nodes
        .iter()
        .copied()
        .filter(|&x| x != task.first && x != task.second)
        .collect();
    // Taking a visit out can break the rest (travel times need not obey the triangle
    // inequality, and breaks move), and the insertion checks trust a route's arrays only
    // while it is feasible.
    if !feasible(inst, s.routes[r].vehicle, &stripped) {
        return false;
    }
    reset(inst, trial, s.routes[r].vehicle, &stripped);
    let mut rng = Rng::new(0, 0);
    let mut blink = Blink {
        rng: &mut rng,
        rate: 0.0,
    };
    // Candidates that fit the route alone, in the lightest-first order, with their detours.
    let fit: Vec<(i64, u32)> = candidates
        .iter()
        .filter(|&&u| room_for(inst, trial, u as usize))
        .filter_map(|&u| {
            best_insertion(inst, trial, u as usize, i64::MAX, &mut blink).map(|c| (c.delta, u))
        })
        .collect();
    if fit.is_empty() {
        return false;
    }
    let lightest: Vec<u32> = fit.iter().map(|&(_, u)| u).collect();
    let mut cheapest = fit;
    cheapest
        .sort_by_key(|&(delta, u)| (std::cmp::Reverse(inst.tasks[u as usize].weight), delta, u));
    let cheapest: Vec<u32> = cheapest.into_iter().map(|(_, u)| u).collect();
    let mut best: Option<(i128, Vec<u32>, Vec<u32>)> = None;
    for order in [&lightest, &cheapest] {
        reset(inst, trial, s.routes[r].vehicle, &stripped);
        let mut placed = Vec::new();
        let mut gained: i128 = 0;
        for &u in order {
            if !room_for(inst, trial, u as usize) {
                continue;
            }
            if let Some(c) = best_insertion(inst, trial, u as usize, i64::MAX, &mut blink) {
                apply(inst, trial, u as usize, c);
                trial.update(inst);
                gained += inst.tasks[u as usize].weight;
                placed.push(u);
            }
        }
        let delta = task.weight - gained + (trial.cost - s.routes[r].cost) as i128;
        if delta < 0 && best.as_ref().is_none_or(|b| delta < b.0) {
            best = Some((delta, placed, trial.nodes.clone()));
        }
    }
    let Some((_, placed, nodes)) = best else {
        return false;
    };
    let mut taken = Vec::new();
    s.take_unassigned_where(inst, &mut taken, |t| placed.contains(&t));
    s.route_mut(r).nodes = nodes;
    s.refresh(inst, r);
    for &u in &placed {
        s.set_route(u as usize, r as u32);
    }
    s.set_route(p, NONE);
    s.leave_out(inst, p);
    true
}

/// Makes `trial` vehicle `v`'s route through `nodes`, caches included.
fn reset(inst: &Instance, trial: &mut Route, v: usize, nodes: &[u32]) {
    trial.vehicle = v;
    trial.nodes.clear();
    trial.nodes.extend_from_slice(nodes);
    trial.update(inst);
}

/// Whether the route's load at its start and at its end leaves room for task `t`'s own: a
/// job's delivery is on board from the start and its pickup until the end, on every route.
fn room_for(inst: &Instance, r: &Route, t: usize) -> bool {
    let (start, delta) = inst.loads(inst.tasks[t].first as usize);
    r.load_caches(inst).room_at_ends(start, delta)
}

/// Puts the left-out task `p` back at its cheapest place on another used route, if any;
/// returns that route.
fn replace(inst: &Instance, s: &mut State, p: usize) -> Option<usize> {
    let mut rng = Rng::new(0, 0);
    let mut blink = Blink {
        rng: &mut rng,
        rate: 0.0,
    };
    let mut best = None;
    let mut bound = i64::MAX;
    for (r, route) in s.routes.iter().enumerate() {
        if route.is_empty() || !inst.is_allowed(p, route.vehicle) || !room_for(inst, route, p) {
            continue;
        }
        if let Some(c) = best_insertion(inst, route, p, bound, &mut blink) {
            bound = c.delta;
            best = Some((r, c));
        }
    }
    let (r, c) = best?;
    s.take_unassigned_where(inst, &mut Vec::new(), |t| t as usize == p);
    apply(inst, s.route_mut(r), p, c);
    s.refresh(inst, r);
    s.set_route(p, r as u32);
    Some(r)
}

#[cfg(test)]
mod tests;
