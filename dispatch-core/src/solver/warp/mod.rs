//! Children of the population that may cross infeasible ground, as in hybrid genetic search
//! with time windows: the selective route exchange keeps both parents' routes, the visits it
//! displaced go where they cost least even if they arrive late or overload the vehicle, and a
//! local search on the penalised cost (travel cost plus weighted time warp and excess load,
//! evaluated in O(1) per move by [`segment`] concatenation) pulls the child back towards
//! feasibility while it improves it. The weights adapt so that about [`TARGET_PERCENT`] % of
//! the children come out of that search feasible; the others are repaired (the search again
//! under heavier weights, then the routes still infeasible rebuilt by feasible cheapest
//! insertion) before they can join the population or become a best solution.
//!
//! Only for problems the segments describe exactly ([`applies`]): jobs with one window each and
//! no set-up times, one load dimension, vehicles without breaks or limits that accept every
//! task. Elsewhere the population keeps its feasible crossover.

mod local;
mod repair;
mod route;
mod segment;

use super::constraint::{limits, Kind};
use super::instance::{Instance, NONE};
use super::neighbours::Neighbours;
use super::population::exchanged_routes;
use super::recreate::RecreateScratch;
use super::rng::Rng;
use super::state::State;
use route::WRoute;
use segment::Segment;

/// Share of children, in percent, meant to leave the penalised search feasible.
const TARGET_PERCENT: u32 = 43;
/// Children between two adjustments of the weights.
const UPDATE: u32 = 20;
/// Weights are in 1/`SCALE` of a cost unit per time unit (or load unit).
const SCALE: i64 = 64;
/// How much heavier the weights of the repair's searches are, in turn.
const REPAIR: [i64; 2] = [10, 100];

/// Whether [`offspring`] describes the problem exactly (see the module's documentation).
pub(crate) fn applies(inst: &Instance) -> bool {
    let nodes = inst.loc.len();
    inst.dims == 1
        && inst.vehicle_cost == 0
        && inst.tasks.iter().all(|t| t.second == NONE)
        && inst
            .vehicles
            .iter()
            .all(|v| limits::unlimited(v) && v.breaks.is_empty())
        && (0..nodes).all(|x| inst.windows(x).len() == 1 && inst.setup[x] == 0)
        && inst.allowed.iter().all(|&a| a)
}

/// The weights of time warp and excess load in the penalised cost, and the feasibility record
/// that adapts them.
#[derive(Debug, Clone)]
pub(crate) struct Penalties {
    warp: i64,
    load: i64,
    seen: u32,
    warp_free: u32,
    load_free: u32,
}

impl Penalties {
    /// Starting weights: one time unit late costs what one time unit of travel costs, one unit
    /// of load over capacity what the typical arc costs per unit of typical demand.
    pub(crate) fn new(inst: &Instance, nb: &Neighbours) -> Penalties {
        let (mut cost, mut time) = (0i128, 0i128);
        for x in 0..inst.loc.len() {
            for &y in nb.of(x).iter().take(5) {
                let (a, b) = (inst.loc[x], inst.loc[y as usize]);
                cost += inst.cost(a, b) as i128;
                time += inst.tt(a, b) as i128;
            }
        }
        let demand: i128 = inst.tasks.iter().map(|t| t.demand.max(0) as i128).sum();
        let tasks = inst.tasks.len().max(1) as i128;
        let arc = cost / (inst.loc.len().max(1) as i128 * 5);
        let per =
            |num: i128, den: i128| (SCALE as i128 * num / den.max(1)).clamp(1, 1 << 40) as i64;
        Penalties {
            warp: per(cost, time),
            load: per(arc * tasks, demand),
            seen: 0,
            warp_free: 0,
            load_free: 0,
        }
    }

    /// The same weights times `k`.
    fn heavier(&self, k: i64) -> Penalties {
        Penalties {
            warp: self.warp.saturating_mul(k),
            load: self.load.saturating_mul(k),
            ..self.clone()
        }
    }

    /// The weight of one unit of a violation of `kind`.
    #[inline]
    fn weight(&self, kind: Kind) -> i64 {
        match kind {
            Kind::TimeWarp => self.warp,
            Kind::ExcessLoad(_) => self.load,
            // Never measured by segments: the problems they describe have no breaks, no limits
            // and no shipments.
            Kind::Break(_)
            | Kind::ExcessTasks
            | Kind::ExcessTravel
            | Kind::ExcessDuration
            | Kind::DeliveryBeforePickup => 0,
        }
    }

    /// Penalised cost of a whole route of vehicle capacity `capacity`: its travel cost plus its
    /// violations, each at its weight.
    #[inline]
    pub(crate) fn cost(&self, s: &Segment, capacity: i64) -> i64 {
        let penalty: i128 = s
            .violations(capacity)
            .iter()
            .map(|v| self.weight(v.kind) as i128 * v.amount as i128)
            .sum();
        s.cost
            .saturating_add((penalty / SCALE as i128).min(i64::MAX as i128 / 4) as i64)
    }

    /// Counts one child's feasibility after the penalised search; every [`UPDATE`] children,
    /// each weight grows when too few children kept that constraint and shrinks when too many
    /// did.
    fn record(&mut self, warp_free: bool, load_free: bool) {
        self.seen += 1;
        self.warp_free += u32::from(warp_free);
        self.load_free += u32::from(load_free);
        if self.seen < UPDATE {
            return;
        }
        let adjust = |w: i64, free: u32, seen: u32| {
            let percent = free * 100 / seen;
            if percent + 5 < TARGET_PERCENT {
                w.saturating_mul(6) / 5 + 1
            } else if percent > TARGET_PERCENT + 5 {
                (w * 17 / 20).max(1)
            } else {
                w
            }
        };
        self.warp = adjust(self.warp, self.warp_free, self.seen);
        self.load = adjust(self.load, self.load_free, self.seen);
        (self.seen, self.warp_free, self.load_free) = (0, 0, 0);
    }
}

/// A child of `a` and `b` into `out` (feasible: see the module's documentation); `tasks` are
/// every task the search places. The route exchange picks nearby routes by `nb`; the
/// penalised local search tries the moves of each visit with its first neighbours in `ls_nb`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn offspring(
    inst: &Instance,
    nb: &Neighbours,
    ls_nb: &Neighbours,
    tasks: &[u32],
    a: &State,
    b: &State,
    rng: &mut Rng,
    pen: &mut Penalties,
    scratch: &mut RecreateScratch,
    out: &mut State,
) {
    let chosen = exchanged_routes(inst, nb, b, rng);
    let mut from_b = vec![false; inst.tasks.len()];
    for &r in &chosen {
        for &x in &b.routes[r].nodes {
            from_b[inst.node_task[x as usize] as usize] = true;
        }
    }
    let mut placed = vec![false; inst.tasks.len()];
    let mut routes: Vec<WRoute> = (0..a.routes.len())
        .map(|r| {
            let mine = chosen.contains(&r);
            let nodes: Vec<u32> = if mine { &b.routes[r] } else { &a.routes[r] }
                .nodes
                .iter()
                .copied()
                .filter(|&x| mine || !from_b[inst.node_task[x as usize] as usize])
                .collect();
            for &x in &nodes {
                placed[inst.node_task[x as usize] as usize] = true;
            }
            WRoute::new(inst, a.routes[r].vehicle, nodes, pen)
        })
        .collect();
    let mut pending: Vec<u32> = tasks
        .iter()
        .copied()
        .filter(|&t| !placed[t as usize])
        .collect();
    for i in (1..pending.len()).rev() {
        pending.swap(i, rng.below(i + 1));
    }
    for &t in &pending {
        local::insert_cheapest(inst, &mut routes, inst.tasks[t as usize].first, pen);
    }
    let mut ls = local::Search::new(inst, &routes);
    ls.run(inst, ls_nb, &mut routes, pen, rng);
    let (warp_free, load_free) = (
        routes.iter().all(|r| r.whole().warp == 0),
        routes.iter().all(|r| r.excess() == 0),
    );
    pen.record(warp_free, load_free);
    for k in REPAIR {
        if routes.iter().all(|r| r.feasible()) {
            break;
        }
        let heavy = pen.heavier(k);
        for r in &mut routes {
            r.reprice(&heavy);
        }
        ls.run(inst, ls_nb, &mut routes, &heavy, rng);
    }
    let heaviest = pen.heavier(REPAIR[REPAIR.len() - 1]);
    repair::into_state(inst, nb, &routes, &heaviest, rng, scratch, out);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights() -> Penalties {
        Penalties {
            warp: 640,
            load: 64,
            seen: 0,
            warp_free: 0,
            load_free: 0,
        }
    }

    #[test]
    fn weights_grow_while_too_few_children_keep_a_constraint_and_shrink_when_most_do() {
        let mut p = weights();
        for k in 0..UPDATE {
            // Windows kept by none, capacity by all.
            p.record(false, k < UPDATE);
        }
        assert!(p.warp > 640, "{}", p.warp);
        assert!(p.load < 64, "{}", p.load);
        let mut q = weights();
        for k in 0..UPDATE {
            // Both kept by 40 % of the children: near the target, unchanged.
            p.record(k % 5 < 2, k % 5 < 2);
            q.record(k % 5 < 2, k % 5 < 2);
        }
        assert_eq!((q.warp, q.load), (640, 64));
    }

    #[test]
    fn only_problems_the_segments_describe_exactly_take_the_penalised_children() {
        use crate::solver::fixtures::{job, plane, vehicle};
        use crate::solver::precheck::precheck;
        use crate::solver::problem::*;
        let windowed = |k: u64| {
            let mut j = job(k, k as usize);
            j.place.time_windows = vec![TimeWindow { start: 0, end: 100 }];
            j
        };
        let base = Problem {
            name: "plain".into(),
            matrix: plane(&[(0, 0), (0, 10), (10, 0)]),
            jobs: vec![windowed(1), windowed(2)],
            shipments: vec![],
            vehicles: vec![vehicle(1, 5), vehicle(2, 5)],
            dimensions: 1,
            objective: Objective::Distance,
        };
        let judged = |p: &Problem| {
            let mut inst = Instance::new(p);
            precheck(p, &mut inst);
            applies(&inst)
        };
        assert!(judged(&base));
        let mut two_windows = base.clone();
        two_windows.jobs[0].place.time_windows = vec![
            TimeWindow { start: 0, end: 10 },
            TimeWindow { start: 50, end: 60 },
        ];
        assert!(!judged(&two_windows));
        let mut setup = base.clone();
        setup.jobs[1].place.setup = 3;
        assert!(!judged(&setup));
        let mut limited = base.clone();
        limited.vehicles[0].max_tasks = Some(4);
        assert!(!judged(&limited));
        let mut skills = base.clone();
        skills.jobs[0].skills = Skills::from_indices([1]);
        assert!(!judged(&skills));
    }

    #[test]
    fn a_weight_never_falls_to_zero() {
        let mut p = weights();
        for _ in 0..100 * UPDATE {
            p.record(true, true);
        }
        assert_eq!((p.warp, p.load), (1, 1));
    }
}
