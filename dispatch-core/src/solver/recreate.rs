//! SISR recreate: greedy cheapest insertion with blinks, in one of several task orders.

use super::insertion::{apply, best_insertion, Blink, Cand};
use super::instance::{Instance, NONE};
use super::neighbours::Neighbours;
use super::rng::Rng;
use super::state::State;

/// Sorts the tasks to insert: higher priority first, then random / larger demand / farther
/// from the depot / closer to the depot (weights 4, 4, 2, 1 as in SISR). When the fleet cannot
/// carry every task, smaller demand comes first instead of larger: big tasks packed first would
/// take the room of several small ones, and the objective counts tasks.
pub(crate) fn order(inst: &Instance, nb: &Neighbours, tasks: &mut [u32], rng: &mut Rng) {
    shuffle(tasks, rng);
    let w = |t: &u32| std::cmp::Reverse(inst.tasks[*t as usize].weight);
    let demand = |t: &u32| {
        let d = inst.tasks[*t as usize].demand;
        if inst.scarce {
            d
        } else {
            -d
        }
    };
    match rng.below(11) {
        0..=3 => tasks.sort_by_key(w),
        4..=7 => tasks.sort_by_key(|t| (w(t), demand(t))),
        8..=9 => tasks.sort_by_key(|t| (w(t), std::cmp::Reverse(nb.far[*t as usize]))),
        _ => tasks.sort_by_key(|t| (w(t), nb.far[*t as usize])),
    }
}

/// The construction's order: [`order`], except that on a day the fleet cannot carry every task
/// the smallest go first (higher priorities still before lower ones). The first solution then
/// holds as many tasks as the fleet's volume allows, instead of the search having to trade big
/// tasks for small ones one ruin at a time (on a 5 000-order day it never caught up).
pub(crate) fn order_construction(
    inst: &Instance,
    nb: &Neighbours,
    tasks: &mut [u32],
    rng: &mut Rng,
) {
    if !inst.scarce {
        return order(inst, nb, tasks, rng);
    }
    shuffle(tasks, rng);
    tasks.sort_by_key(|t| {
        let task = &inst.tasks[*t as usize];
        (std::cmp::Reverse(task.weight), task.demand)
    });
}

fn shuffle(tasks: &mut [u32], rng: &mut Rng) {
    for i in (1..tasks.len()).rev() {
        tasks.swap(i, rng.below(i + 1));
    }
}

/// How a recreate runs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Recreate {
    /// Probability of skipping an otherwise-better position.
    pub blink: f64,
    /// Whether unused vehicles may be opened.
    pub allow_new: bool,
    /// Probability that a task fitting none of its neighbours' routes is tried on every route.
    /// Below 1 on big days: the tasks left out are retried at every iteration, and scanning
    /// all routes for each of them made an iteration quadratic in the size of the day.
    pub full_scan: f64,
}

/// Reusable buffers of [`recreate`].
#[derive(Debug, Clone, Default)]
pub(crate) struct RecreateScratch {
    class_seen: Vec<bool>,
    /// One unused vehicle per class: the only ones tried.
    empty: Vec<usize>,
    mark: Vec<u32>,
    stamp: u32,
    near: Vec<usize>,
}

impl RecreateScratch {
    fn find_empty(&mut self, inst: &Instance, s: &State) {
        self.class_seen.clear();
        self.class_seen.resize(inst.vehicles.len(), false);
        self.empty.clear();
        for (r, route) in s.routes.iter().enumerate() {
            let class = inst.vehicles[route.vehicle].class;
            if route.is_empty() && !self.class_seen[class] {
                self.class_seen[class] = true;
                self.empty.push(r);
            }
        }
    }
}

/// With more used routes than this, a task is first tried only on the routes of its nearest
/// neighbours (and unused vehicles); all routes are tried only when none of those fits.
const GRANULAR_ROUTES: usize = 12;
/// Neighbours whose routes are tried first.
const NEAR: usize = 30;

/// Orders `tasks` ([`order`]) and inserts them all ([`recreate`]) as a new solution is
/// completed: with a little blinking and unused vehicles opened where needed.
pub(crate) fn complete(
    inst: &Instance,
    nb: &Neighbours,
    s: &mut State,
    tasks: &mut [u32],
    rng: &mut Rng,
    scratch: &mut RecreateScratch,
) {
    order(inst, nb, tasks, rng);
    let opts = Recreate {
        blink: 0.01,
        allow_new: true,
        full_scan: 1.0,
    };
    recreate(inst, nb, s, tasks, rng, opts, scratch);
}

/// Inserts each task at its cheapest feasible place (opening at most one vehicle per class
/// of interchangeable vehicles for the comparison); tasks with no place are left out.
pub(crate) fn recreate(
    inst: &Instance,
    nb: &Neighbours,
    s: &mut State,
    tasks: &[u32],
    rng: &mut Rng,
    opts: Recreate,
    sc: &mut RecreateScratch,
) {
    let mut blink = Blink {
        rng,
        rate: opts.blink,
    };
    sc.mark.resize(s.routes.len(), 0);
    if opts.allow_new {
        sc.find_empty(inst, s);
    }
    for &t in tasks {
        let t = t as usize;
        sc.stamp = sc.stamp.wrapping_add(1);
        if sc.stamp == 0 {
            sc.mark.fill(0);
            sc.stamp = 1;
        }
        let mut best: Option<(usize, Cand)> = None;
        let mut best_total = i64::MAX;
        let mut try_route = |r: usize, best: &mut Option<(usize, Cand)>, blink: &mut Blink| {
            let route = &s.routes[r];
            if !inst.is_allowed(t, route.vehicle) {
                return;
            }
            let fixed = if route.is_empty() {
                inst.vehicle_cost
            } else {
                0
            };
            let bound = best_total.saturating_sub(fixed);
            if let Some(c) = best_insertion(inst, route, t, bound, blink) {
                best_total = c.delta.saturating_add(fixed);
                *best = Some((r, c));
            }
        };
        let granular = s.used() > GRANULAR_ROUTES;
        if granular {
            sc.near.clear();
            let task = &inst.tasks[t];
            for node in [task.first, task.second] {
                if node == NONE {
                    continue;
                }
                for &m in nb.of(node as usize).iter().take(NEAR) {
                    let r = s.route_of[inst.node_task[m as usize] as usize];
                    if r != NONE && sc.mark[r as usize] != sc.stamp {
                        sc.mark[r as usize] = sc.stamp;
                        sc.near.push(r as usize);
                    }
                }
            }
            sc.near.sort_unstable();
            for &r in &sc.near {
                try_route(r, &mut best, &mut blink);
            }
        }
        if opts.allow_new {
            for &r in &sc.empty {
                try_route(r, &mut best, &mut blink);
            }
        }
        let full = match best {
            _ if !granular => true,
            None => opts.full_scan >= 1.0 || blink.rng.unit() < opts.full_scan,
            Some(_) => false,
        };
        if full {
            for r in 0..s.routes.len() {
                if sc.mark[r] != sc.stamp && !s.routes[r].is_empty() {
                    try_route(r, &mut best, &mut blink);
                }
            }
        }
        match best {
            Some((r, c)) => {
                let opened = s.routes[r].is_empty();
                let route = s.route_mut(r);
                apply(inst, route, t, c);
                s.refresh(inst, r);
                s.set_route(t, r as u32);
                if opened {
                    sc.find_empty(inst, s);
                }
            }
            None => s.leave_out(inst, t),
        }
    }
}
