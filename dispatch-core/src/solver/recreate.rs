//! SISR recreate: greedy cheapest insertion with blinks, in one of several task orders.

use super::insertion::{apply, best_insertion, Blink};
use super::instance::Instance;
use super::neighbours::Neighbours;
use super::rng::Rng;
use super::state::State;

/// Sorts the tasks to insert: higher priority first, then random / larger demand / farther
/// from the depot / closer to the depot (weights 4, 4, 2, 1 as in SISR).
pub(crate) fn order(inst: &Instance, nb: &Neighbours, tasks: &mut [u32], rng: &mut Rng) {
    for i in (1..tasks.len()).rev() {
        tasks.swap(i, rng.below(i + 1));
    }
    let w = |t: &u32| std::cmp::Reverse(inst.tasks[*t as usize].weight);
    match rng.below(11) {
        0..=3 => tasks.sort_by_key(w),
        4..=7 => tasks.sort_by_key(|t| (w(t), std::cmp::Reverse(inst.tasks[*t as usize].demand))),
        8..=9 => tasks.sort_by_key(|t| (w(t), std::cmp::Reverse(nb.far[*t as usize]))),
        _ => tasks.sort_by_key(|t| (w(t), nb.far[*t as usize])),
    }
}

/// Inserts each task at its cheapest feasible place (opening at most one vehicle per class
/// of interchangeable vehicles for the comparison); tasks with no place are left out.
/// With `allow_new` false, unused vehicles stay unused.
pub(crate) fn recreate(
    inst: &Instance,
    s: &mut State,
    tasks: &[u32],
    rng: &mut Rng,
    blink_rate: f64,
    allow_new: bool,
    seen: &mut Vec<bool>,
) {
    let mut blink = Blink {
        rng,
        rate: blink_rate,
    };
    for &t in tasks {
        let t = t as usize;
        seen.clear();
        seen.resize(inst.vehicles.len(), false);
        let mut best: Option<(usize, super::insertion::Cand)> = None;
        let mut best_total = i64::MAX;
        for (r, route) in s.routes.iter().enumerate() {
            if !inst.is_allowed(t, route.vehicle) {
                continue;
            }
            let fixed = if route.is_empty() {
                let class = inst.vehicles[route.vehicle].class;
                if !allow_new || seen[class] {
                    continue;
                }
                seen[class] = true;
                inst.vehicle_cost
            } else {
                0
            };
            let bound = best_total.saturating_sub(fixed);
            if let Some(c) = best_insertion(inst, route, t, bound, &mut blink) {
                best_total = c.delta + fixed;
                best = Some((r, c));
            }
        }
        match best {
            Some((r, c)) => {
                let route = s.route_mut(r);
                apply(inst, route, t, c);
                s.refresh(inst, r);
                s.set_route(t, r as u32);
            }
            None => s.leave_out(inst, t),
        }
    }
}
