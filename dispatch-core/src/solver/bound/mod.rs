//! A certified upper bound on how many tasks any feasible solution can place.
//!
//! On a capacity-bound day the search leaves tasks out, and the question is whether it had to.
//! [`placement_bound`] answers with a linear-programming relaxation of the assignment: every
//! task (a shipment with both its visits) is split fractionally over *vehicle classes* (vehicles
//! of equal capacity and skills), where a class may take it only if one of its vehicles has the
//! skills, the capacity and a shift that meets the task's windows once the shortest drives from
//! the vehicle's start and back to its end are counted. Each class pools its
//! vehicles' resources, and every feasible route respects each pooled sum:
//! - per load dimension, the jobs' deliveries (all on board when the route leaves) and the jobs'
//!   pickups (all on board when it ends) within the capacity; a shipment's load is carried
//!   between its two visits only, so it is not counted;
//! - time: each visit costs its service plus the cheapest way in (the shortest travel from any
//!   other visit's location or from one of the class's start locations, with its set-up unless
//!   that place is the visit's own location), within the shift (or `max_duration`, if shorter)
//!   minus the breaks every used vehicle takes (breaks, travel and service never overlap);
//! - visits within `max_tasks`, when every vehicle of the class has one.
//!
//! The relaxation is solved through its Lagrangian dual: for any prices `λ >= 0` on the pooled
//! resources, `Σ λ·budget + Σ_t max(0, max_k (w_t - λ·use_tk))` bounds every feasible
//! assignment from above (weak duality), so the bound holds whatever the prices and however
//! exactly they were found; the minimum over `λ` is the relaxation's optimum. The prices come
//! from a smoothed dual (log-sum-exp, shrinking smoothing) minimised by projected gradient
//! steps; a feasible fractional assignment built from the same prices bounds the optimum from
//! below, so the report shows how close the prices came.

mod dual;
mod windows;

use super::problem::{Place, Problem, Time, Vehicle};
use dual::{dual, minimise_dual, primal};
use windows::{meets_shift, pair_meets_shift, Drives};

/// What [`placement_bound`] proves about a problem.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacementBound {
    /// Tasks of the problem (a shipment counts as two).
    pub tasks: usize,
    /// No feasible solution places more tasks than this.
    pub max_placed: usize,
    /// Tasks that no vehicle class can take even alone (skills, capacity, windows).
    pub unplaceable_alone: usize,
    /// The certified value (tasks) of the dual prices found: `max_placed` is its floor.
    pub dual_value: f64,
    /// A feasible fractional assignment's value: the relaxation's optimum lies between this and
    /// `dual_value`.
    pub primal_value: f64,
}

impl PlacementBound {
    /// Tasks that every feasible solution leaves out.
    pub fn unplaceable_at_least(&self) -> usize {
        self.tasks - self.max_placed
    }
}

/// A pool of interchangeable vehicles and its resource rows.
struct Class {
    vehicles: Vec<usize>,
    /// Pooled budget per row: deliveries then pickups per dimension, time, visits.
    budget: Vec<f64>,
}

/// One class that can take a task: the rows the task uses there, each divided by the budget.
pub(super) struct Choice {
    pub(super) class: usize,
    pub(super) use_: Vec<f64>,
}

pub(super) struct Task {
    pub(super) weight: f64,
    pub(super) options: Vec<Choice>,
}

/// Computes the bound; see the module documentation.
pub fn placement_bound(p: &Problem) -> PlacementBound {
    let classes = classes(p);
    let tasks = tasks(p, &classes);
    let rows = 2 * p.dimensions + 2;
    let total: usize = p.jobs.len() + 2 * p.shipments.len();
    let unplaceable_alone = tasks
        .iter()
        .filter(|t| t.options.is_empty())
        .map(|t| t.weight as usize)
        .sum();
    let prices = minimise_dual(&tasks, classes.len() * rows, rows);
    // Zero prices are valid too and certify every task some class can take: keep the lower.
    let dual_value = dual(&tasks, &prices, rows).min(dual(&tasks, &vec![0.0; prices.len()], rows));
    let primal_value = primal(&tasks, &prices, classes.len(), rows);
    // Rounding in the sum is far below 1e-6 of a task; the slack keeps the floor on the safe side.
    let max_placed = ((dual_value + 1e-6).floor().max(0.0) as usize).min(total);
    PlacementBound {
        tasks: total,
        max_placed,
        unplaceable_alone,
        dual_value,
        primal_value,
    }
}

fn classes(p: &Problem) -> Vec<Class> {
    let rows = 2 * p.dimensions + 2;
    let mut classes: Vec<Class> = Vec::new();
    for (i, v) in p.vehicles.iter().enumerate() {
        let same = |c: &&mut Class| {
            let w = &p.vehicles[c.vehicles[0]];
            w.capacity == v.capacity && w.skills == v.skills
        };
        let at = match classes.iter_mut().find(same) {
            Some(c) => c,
            None => {
                classes.push(Class {
                    vehicles: Vec::new(),
                    budget: vec![0.0; rows],
                });
                classes.last_mut().expect("just pushed")
            }
        };
        for d in 0..p.dimensions {
            let cap = v.capacity[d].max(0) as f64;
            at.budget[d] += cap;
            at.budget[p.dimensions + d] += cap;
        }
        at.budget[rows - 2] += working_time(v).max(0) as f64;
        // One vehicle without a visit limit lifts the pooled limit.
        at.budget[rows - 1] += v.max_tasks.map_or(f64::INFINITY, |m| m as f64);
        at.vehicles.push(i);
    }
    classes
}

/// The time a used vehicle can spend travelling, setting up and serving.
fn working_time(v: &Vehicle) -> Time {
    let span = v.shift.end - v.shift.start;
    let span = v.max_duration.map_or(span, |d| d.min(span));
    span - v.breaks.iter().map(|b| b.service).sum::<Time>()
}

/// Every task's options, with the cheapest way into each visit precomputed.
fn tasks(p: &Problem, classes: &[Class]) -> Vec<Task> {
    let places: Vec<&Place> = p
        .jobs
        .iter()
        .map(|j| &j.place)
        .chain(p.shipments.iter().flat_map(|s| [&s.pickup, &s.delivery]))
        .collect();
    let from_visits = cheapest_from_other_visits(p, &places);
    let drives = Drives::new(p, &places);
    let dims = p.dimensions;
    let mut out = Vec::with_capacity(p.jobs.len() + p.shipments.len());
    for (j, job) in p.jobs.iter().enumerate() {
        let mut load = vec![0; 2 * dims];
        load[..dims].copy_from_slice(&job.delivery);
        load[dims..].copy_from_slice(&job.pickup);
        let claim = Claim {
            visits: &[(j, &job.place)],
            load: &load,
            skills: &job.skills,
            pinned: job.pinned_vehicle,
        };
        let mut reachable = |v: &Vehicle| meets_shift(&job.place, v, &drives);
        out.push(task(p, classes, &from_visits, 1.0, &claim, &mut reachable));
    }
    let zero = vec![0; 2 * dims];
    for (s, sh) in p.shipments.iter().enumerate() {
        let first = p.jobs.len() + 2 * s;
        let visits = [(first, &sh.pickup), (first + 1, &sh.delivery)];
        let claim = Claim {
            visits: &visits,
            load: &zero,
            skills: &sh.skills,
            pinned: sh.pinned_vehicle,
        };
        // The delivery follows the pickup: their windows must allow it, at least the shortest
        // travel between them apart (found only when the direct travel does not settle it).
        let direct = p.matrix.duration(sh.pickup.location, sh.delivery.location);
        let mut shortest = None;
        let mut reachable = |v: &Vehicle| {
            let pair = |travel| pair_meets_shift(&sh.pickup, &sh.delivery, travel, v, &drives);
            pair(0)
                && (pair(direct)
                    || pair(*shortest.get_or_insert_with(|| {
                        drives.between(sh.pickup.location, sh.delivery.location)
                    })))
        };
        let mut t = task(p, classes, &from_visits, 2.0, &claim, &mut reachable);
        let carried = |c: &Class| {
            let v = &p.vehicles[c.vehicles[0]];
            sh.amount.iter().zip(&v.capacity).all(|(a, c)| a <= c)
        };
        t.options.retain(|o| carried(&classes[o.class]));
        out.push(t);
    }
    out
}

struct Claim<'a> {
    visits: &'a [(usize, &'a Place)],
    load: &'a [i64],
    skills: &'a super::problem::Skills,
    pinned: Option<usize>,
}

fn task(
    p: &Problem,
    classes: &[Class],
    from_visits: &[Time],
    weight: f64,
    c: &Claim,
    reachable: &mut dyn FnMut(&Vehicle) -> bool,
) -> Task {
    let dims = p.dimensions;
    let rows = 2 * dims + 2;
    let mut options = Vec::new();
    for (k, class) in classes.iter().enumerate() {
        let first = &p.vehicles[class.vehicles[0]];
        let capacity_ok = (0..2 * dims).all(|r| c.load[r] <= first.capacity[r % dims]);
        let pinned_ok = c.pinned.is_none_or(|v| class.vehicles.contains(&v));
        if !capacity_ok || !pinned_ok || !c.skills.is_subset_of(&first.skills) {
            continue;
        }
        if !class.vehicles.iter().any(|&v| reachable(&p.vehicles[v])) {
            continue;
        }
        let mut used: Vec<f64> = c.load.iter().map(|&l| l as f64).collect();
        used.extend([0.0, 0.0]);
        used[rows - 2] = c
            .visits
            .iter()
            .map(|&(i, place)| {
                let from_start = class
                    .vehicles
                    .iter()
                    .map(|&v| match p.vehicles[v].start {
                        Some(s) => way_in(p, s, place),
                        None => 0,
                    })
                    .min()
                    .unwrap_or(0);
                (place.service + from_start.min(from_visits[i])) as f64
            })
            .sum();
        used[rows - 1] = c.visits.len() as f64;
        let mut fits = true;
        for (u, &b) in used.iter_mut().zip(&class.budget) {
            if *u > 0.0 {
                fits &= b > 0.0;
                *u /= b;
            }
        }
        if fits {
            options.push(Choice {
                class: k,
                use_: used,
            });
        }
    }
    Task { weight, options }
}

/// Travel from `from` into `place`, with its set-up unless already there.
fn way_in(p: &Problem, from: usize, place: &Place) -> Time {
    let setup = if from == place.location {
        0
    } else {
        place.setup
    };
    p.matrix.duration(from, place.location) + setup
}

/// For every visit, the cheapest way in from any other visit's location (row-major sweep).
fn cheapest_from_other_visits(p: &Problem, places: &[&Place]) -> Vec<Time> {
    let mut best = vec![Time::MAX; places.len()];
    for (q, from) in places.iter().enumerate() {
        for (i, place) in places.iter().enumerate() {
            if i != q {
                best[i] = best[i].min(way_in(p, from.location, place));
            }
        }
    }
    best
}
