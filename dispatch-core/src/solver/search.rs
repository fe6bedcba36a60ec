//! The main loop: SISR ruin-and-recreate under simulated annealing, run by several workers in
//! epochs. Workers meet only at epoch boundaries (fixed iteration counts) and ties break by
//! worker index, so an iteration budget gives the same result for a seed and thread count.

use super::eject::eject;
use super::fleet::{Fleet, Scratch};
use super::instance::{Instance, NONE};
use super::neighbours::Neighbours;
use super::operators::{improve, improve_between};
use super::population::{construct, crossover, Population};
use super::recreate::{order, order_construction, recreate, Recreate, RecreateScratch};
use super::rng::Rng;
use super::ruin::{ruin, RuinParams};
use super::split::split;
use super::state::State;
use super::warp::{self, Penalties};
use super::{Config, Control, Progress};

/// Iterations each worker runs between two meetings.
const EPOCH: u64 = 500;
/// Tasks the construction inserts between two looks at the clock.
const CONSTRUCTION_CHUNK: usize = 32;
/// Temperature schedule when the budget's length is unknown: restart every this many.
const CYCLE: u64 = 200_000;
/// Share of the budget in which vehicles-first objectives alternate fleet minimisation with
/// the main search.
const FLEET_SHARE: f64 = 0.5;
/// Up to this many left-out tasks, every iteration retries all of them. Beyond (big days with
/// hundreds that fit nowhere), an iteration retries those near the visits it removed and a
/// random sample: retrying all of them made an iteration cost O(left out x routes) (on a
/// 2 000-order day, 62 % of the samples in the insertion search; at 5 000 orders this took the
/// search from 18 to 42 iterations per second).
const RETRY_ALL: usize = 64;
/// Random left-out tasks retried per iteration beyond [`RETRY_ALL`] (on average).
const RETRY_SAMPLE: f64 = 24.0;
/// A left-out task is near a removed visit when it is among that visit's nearest this many.
const RETRY_NEAR: usize = 10;

/// Share of iterations that begin with a [`split`] (where vehicles cost nothing to open).
const SPLIT: f64 = 0.05;

/// How the workers explore (see [`super::Strategy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// One annealing trajectory per worker.
    Annealing,
    /// A population per worker; its annealing trajectory educates one child at a time.
    Population,
}

/// Annealing iterations that educate one child of the population.
const CHILD_ITERATIONS: u64 = 400;
/// The annealing's temperatures, times this, while it educates the penalised children (module
/// `warp`): the crossover and the penalised search bring the diversity, and a child educated
/// hot drifts away from what its parents gave it. A quarter, with the time-window proximity
/// lists of the penalised search, was best at 300 000 iterations (8 Gehring-Homberger R1 and
/// RC1 instances of 200 customers, 3 seeds: 0.63 -> 0.45 %), but at 1 500 000 (a 30 s run of
/// one core) it left RC1 behind; half is level there overall (2 seeds: 0.38 -> 0.35 %) and
/// trades R1 (0.28 -> 0.34 %) for RC1 (0.48 -> 0.36 %), the class that was behind PyVRP's.
const EDUCATION_TEMPERATURE: f64 = 0.5;
/// Individuals made from nothing before children are made by crossover.
const INITIAL: usize = 4;
/// Length of the time-window proximity lists (as the spatial ones).
const NEIGHBOURS: usize = 40;
/// Children without a better individual before the population restarts from its best.
const STAGNATION: u64 = 150;

/// A worker's population and its current child.
struct Hgs {
    pop: Population,
    /// Education iterations the current child still has.
    left: u64,
    best_seen: i128,
    since_best: u64,
    scratch: RecreateScratch,
    child: State,
    /// Children may cross infeasible ground under these weights (module `warp`), where the
    /// problem allows it.
    warp: Option<Penalties>,
}

/// Search parameters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Params {
    pub ruin: RuinParams,
    pub blink: f64,
    pub full_scan: f64,
    pub t0: f64,
    pub tf: f64,
    /// Share of iterations that first move a run of visits to an unused vehicle ([`split`]).
    pub split: f64,
}

impl Params {
    /// Defaults scaled to the instance's typical arc cost.
    pub(crate) fn for_instance(inst: &Instance, nb: &Neighbours) -> Params {
        let n = inst.loc.len();
        let mut sum = 0f64;
        let mut count = 0f64;
        for a in 0..n {
            for &b in nb.of(a).iter().take(5) {
                sum += inst.cost(inst.loc[a], inst.loc[b as usize]) as f64;
                count += 1.0;
            }
        }
        let arc = if count > 0.0 {
            (sum / count).max(1.0)
        } else {
            1.0
        };
        Params {
            ruin: RuinParams {
                avg_removed: 10.0,
                max_string: 10.0,
                split_rate: 0.5,
            },
            blink: 0.01,
            full_scan: 0.1,
            // Tuned on Solomon R2/RC and Homberger 200 samples at 1-15 s (noisy, 2 shared cores).
            t0: 4.0 * arc,
            tf: 0.04 * arc,
            // Only where opening a vehicle costs nothing: under a vehicles-first objective the
            // annealing would reject every split.
            split: if inst.vehicle_cost == 0 { SPLIT } else { 0.0 },
        }
    }
}

struct Worker {
    state: State,
    score: i128,
    best: State,
    best_score: i128,
    rng: Rng,
    marks: Vec<bool>,
    removed: Vec<u32>,
    recreate: RecreateScratch,
    /// Per node: the iteration stamp of the last time it was near a removed visit.
    near: Vec<u32>,
    stamp: u32,
    stopped: bool,
    fleet: Option<Fleet>,
    hgs: Option<Box<Hgs>>,
}

/// Everything a worker reads while it runs.
struct Ctx<'a> {
    inst: &'a Instance<'a>,
    nb: &'a Neighbours,
    params: Params,
    control: &'a dyn Control,
    max_iterations: Option<u64>,
    threads: u64,
    /// Every task the search places (for new individuals).
    tasks: Vec<u32>,
    /// The time-window proximity lists of the penalised children's local search, where the
    /// population makes such children (module `warp`).
    timed: Option<Neighbours>,
}

impl Ctx<'_> {
    /// Fraction of the budget used after `iteration` iterations in total.
    fn fraction(&self, iteration: u64) -> f64 {
        match self.max_iterations {
            Some(max) if max > 0 => (iteration as f64 / max as f64).min(1.0),
            _ => self
                .control
                .elapsed_fraction()
                .unwrap_or((iteration % CYCLE) as f64 / CYCLE as f64)
                .clamp(0.0, 1.0),
        }
    }
}

impl Worker {
    /// Runs `count` iterations (fewer if stopped); `done` iterations were run before, in total.
    fn run(&mut self, ctx: &Ctx, count: u64, done: u64) -> u64 {
        let inst = ctx.inst;
        let p = ctx.params;
        for it in 0..count {
            if ctx.control.should_stop() {
                self.stopped = true;
                return it;
            }
            let f = ctx.fraction(done + it * ctx.threads);
            if inst.vehicle_cost > 0 && f < FLEET_SHARE && it % 2 == 0 {
                self.fleet_step(ctx);
                continue;
            }
            if let Some(h) = self.hgs.as_deref_mut() {
                if h.left == 0 {
                    self.next_child(ctx);
                }
                if let Some(h) = self.hgs.as_deref_mut() {
                    h.left -= 1;
                }
            }
            let temp = p.t0 * (p.tf / p.t0).powf(f);
            let s = &mut self.state;
            s.begin();
            self.removed.clear();
            if p.split > 0.0 && self.rng.unit() < p.split {
                split(inst, s, &mut self.rng);
            }
            let retry_all = s.unassigned.len() <= RETRY_ALL;
            if retry_all {
                self.removed.extend(s.take_unassigned(inst));
            }
            ruin(
                inst,
                s,
                ctx.nb,
                p.ruin,
                &mut self.rng,
                &mut self.marks,
                &mut self.removed,
            );
            if !retry_all {
                self.take_some_unassigned(ctx);
            }
            let s = &mut self.state;
            order(inst, ctx.nb, &mut self.removed, &mut self.rng);
            let opts = Recreate {
                blink: p.blink,
                allow_new: true,
                full_scan: p.full_scan,
            };
            recreate(
                inst,
                ctx.nb,
                s,
                &self.removed,
                &mut self.rng,
                opts,
                &mut self.recreate,
            );
            let score = s.score(inst);
            let threshold = -temp * (1.0 - self.rng.unit()).ln();
            if ((score - self.score) as f64) < threshold {
                s.commit();
                self.score = score;
                if score < self.best_score {
                    improve(inst, s, &s.touched());
                    self.score = s.score(inst);
                    self.best_score = self.score;
                    self.best.clone_from(s);
                }
            } else {
                s.rollback();
            }
        }
        count
    }
}

impl Worker {
    /// Ends the current child's education: it joins the population, and the next child (a new
    /// individual while the population is small, else a crossover of two parents) takes the
    /// annealing's place. A population that has not improved for [`STAGNATION`] children
    /// restarts from its best.
    fn next_child(&mut self, ctx: &Ctx) {
        let inst = ctx.inst;
        let Some(h) = self.hgs.as_deref_mut() else {
            return;
        };
        h.pop.add(inst, &self.state);
        let best = h.pop.best().map_or(i128::MAX, |m| m.score);
        if best < h.best_seen {
            h.best_seen = best;
            h.since_best = 0;
        } else {
            h.since_best += 1;
        }
        if h.since_best >= STAGNATION {
            if let Some(keep) = h.pop.best().map(|m| m.state.clone()) {
                h.pop.clear();
                h.pop.add(inst, &keep);
            }
            h.since_best = 0;
        }
        if h.pop.len() < INITIAL {
            h.child = construct(inst, ctx.nb, &ctx.tasks, &mut self.rng, &mut h.scratch);
        } else {
            let (a, b) = h.pop.parents(&mut self.rng);
            if let Some(pen) = h.warp.as_mut() {
                let rng = &mut self.rng;
                warp::offspring(
                    inst,
                    ctx.nb,
                    ctx.timed.as_ref().unwrap_or(ctx.nb),
                    &ctx.tasks,
                    a,
                    b,
                    rng,
                    pen,
                    &mut h.scratch,
                    &mut h.child,
                );
            } else {
                crossover(
                    inst,
                    ctx.nb,
                    a,
                    b,
                    &mut self.rng,
                    &mut h.scratch,
                    &mut h.child,
                );
            }
        }
        std::mem::swap(&mut self.state, &mut h.child);
        self.score = self.state.score(inst);
        h.left = CHILD_ITERATIONS;
        if self.score < self.best_score {
            self.best_score = self.score;
            self.best.clone_from(&self.state);
        }
    }

    /// Adds to the removed tasks the left-out ones near them and a random sample of the rest.
    fn take_some_unassigned(&mut self, ctx: &Ctx) {
        let inst = ctx.inst;
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.near.fill(0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        for &t in &self.removed {
            let task = &inst.tasks[t as usize];
            for node in [task.first, task.second] {
                if node == NONE {
                    continue;
                }
                for &m in ctx.nb.of(node as usize).iter().take(RETRY_NEAR) {
                    self.near[m as usize] = stamp;
                }
            }
        }
        let rate = RETRY_SAMPLE / self.state.unassigned.len() as f64;
        let (near, rng) = (&self.near, &mut self.rng);
        self.state
            .take_unassigned_where(inst, &mut self.removed, |t| {
                let task = &inst.tasks[t as usize];
                let close = near[task.first as usize] == stamp
                    || (task.second != NONE && near[task.second as usize] == stamp);
                close || rng.unit() < rate
            });
    }

    /// One step of fleet minimisation; adopts its solution when it saves a vehicle.
    fn fleet_step(&mut self, ctx: &Ctx) {
        let inst = ctx.inst;
        if self
            .fleet
            .as_ref()
            .is_none_or(|fl| fl.target() > self.state.used())
        {
            let absences = self
                .fleet
                .take()
                .map_or_else(|| vec![0; inst.tasks.len()], Fleet::into_absences);
            self.fleet = Fleet::new(inst, &self.state, absences);
        }
        let Some(fleet) = self.fleet.as_mut() else {
            return;
        };
        let scratch = Scratch {
            marks: &mut self.marks,
            removed: &mut self.removed,
            recreate: &mut self.recreate,
        };
        if let Some(better) = fleet.step(inst, ctx.nb, ctx.params.ruin, &mut self.rng, scratch) {
            self.state = better;
            self.score = self.state.score(inst);
            if self.score < self.best_score {
                self.best_score = self.score;
                self.best.clone_from(&self.state);
            }
        }
    }
}

/// Completes `init` (its left-out tasks inserted by cheapest insertion) and improves it until
/// the budget is spent. The best solution is never worse than the completed `init`.
pub(crate) fn run(
    inst: &Instance,
    nb: &Neighbours,
    mut init: State,
    config: &Config,
    strategy: Strategy,
    control: &dyn Control,
) -> State {
    let penalised = strategy == Strategy::Population && warp::applies(inst);
    let mut params = Params::for_instance(inst, nb);
    if penalised {
        params.t0 *= EDUCATION_TEMPERATURE;
        params.tf *= EDUCATION_TEMPERATURE;
    }
    let mut rng = Rng::new(config.seed, 0);
    let mut all = init.take_unassigned(inst);
    let searchable = !all.is_empty() || init.routes.iter().any(|r| !r.is_empty());
    order_construction(inst, nb, &mut all, &mut rng);
    let opts = Recreate {
        blink: 0.0,
        allow_new: true,
        full_scan: 1.0,
    };
    // In chunks, so that a time limit shorter than the construction still holds: the tasks
    // not reached are left out.
    let mut scratch = RecreateScratch::default();
    for (k, chunk) in all.chunks(CONSTRUCTION_CHUNK).enumerate() {
        if k > 0 && control.should_stop() {
            for &t in chunk {
                init.leave_out(inst, t as usize);
            }
            continue;
        }
        recreate(inst, nb, &mut init, chunk, &mut rng, opts, &mut scratch);
    }
    let mut best_score = init.score(inst);
    report(inst, control, 0, &init);
    let threads = config.threads.max(1);
    let mut workers: Vec<Worker> = (0..threads)
        .map(|i| Worker {
            state: init.clone(),
            score: best_score,
            best: init.clone(),
            best_score,
            rng: Rng::new(config.seed, i as u64 + 1),
            marks: vec![false; inst.loc.len()],
            removed: Vec::new(),
            recreate: RecreateScratch::default(),
            near: vec![0; inst.loc.len()],
            stamp: 0,
            stopped: false,
            fleet: None,
            hgs: (strategy == Strategy::Population).then(|| {
                Box::new(Hgs {
                    pop: Population::default(),
                    left: CHILD_ITERATIONS,
                    best_seen: i128::MAX,
                    since_best: 0,
                    scratch: RecreateScratch::default(),
                    child: init.clone(),
                    warp: warp::applies(inst).then(|| Penalties::new(inst, nb)),
                })
            }),
        })
        .collect();
    let mut tasks: Vec<u32> = init.unassigned.clone();
    for r in &init.routes {
        for &x in &r.nodes {
            let t = inst.node_task[x as usize];
            if inst.tasks[t as usize].first == x {
                tasks.push(t);
            }
        }
    }
    tasks.sort_unstable();
    let mut best = init;
    let ctx = Ctx {
        inst,
        nb,
        params,
        control,
        max_iterations: config.max_iterations,
        threads: threads as u64,
        tasks,
        timed: penalised.then(|| Neighbours::timed(inst, NEIGHBOURS)),
    };
    // The first worker runs on the calling thread, the others on a pool: a meeting then wakes
    // one thread fewer, and nothing waits for a thread to be scheduled just to hand the
    // first worker its epoch.
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads - 1)
                .build()
                .ok()
        })
        .flatten();
    let mut done = 0u64;
    loop {
        let per = match config.max_iterations {
            Some(max) if done >= max => break,
            Some(max) => EPOCH.min((max - done).div_ceil(threads as u64)),
            None => EPOCH,
        };
        if !searchable {
            break;
        }
        let run = |w: &mut Worker| w.run(&ctx, per, done);
        let mut counts = vec![0u64; threads];
        match (&pool, workers.split_first_mut()) {
            (Some(pool), Some((first, others))) => {
                let (count, rest) = counts.split_first_mut().expect("a worker");
                let run = &run;
                pool.in_place_scope(|scope| {
                    for (w, c) in others.iter_mut().zip(rest) {
                        scope.spawn(move |_| *c = run(w));
                    }
                    *count = run(first);
                });
            }
            _ => {
                for (w, c) in workers.iter_mut().zip(&mut counts) {
                    *c = run(w);
                }
            }
        }
        done += counts.iter().sum::<u64>();
        control.on_iterations(done);
        let (idx, w) = workers
            .iter()
            .enumerate()
            .min_by_key(|(i, w)| (w.best_score, *i))
            .expect("at least one worker");
        if w.best_score < best_score {
            best = w.best.clone();
            polish(inst, nb, &mut best, control);
            best_score = best.score(inst);
            report(inst, control, done, &best);
        }
        let _ = idx;
        let stopped = workers.iter().any(|w| w.stopped);
        for w in &mut workers {
            if w.best_score > best_score {
                w.state.clone_from(&best);
                w.score = best_score;
                w.best.clone_from(&best);
                w.best_score = best_score;
                w.fleet = None;
            }
        }
        if stopped {
            break;
        }
    }
    control.on_iterations(done);
    best
}

/// Ejections (left-out tasks traded in), then inter-route and intra-route local search on a
/// new best solution, at the workers' meeting: the annealing's own trajectory stays as it was
/// (on 12 Homberger 200 instances, searching every worker's new best this way made the mean
/// gap worse, 0.63 -> 0.79 %), and the workers restart from the polished best like from any
/// better one.
fn polish(inst: &Instance, nb: &Neighbours, best: &mut State, control: &dyn Control) {
    let stop = || control.should_stop();
    let ejected = eject(inst, best, &stop);
    let used: Vec<usize> = (0..best.routes.len())
        .filter(|&r| !best.routes[r].is_empty())
        .collect();
    let mut routes = improve_between(inst, nb, best, &used, &stop);
    for r in ejected {
        if !routes.contains(&r) {
            routes.push(r);
        }
    }
    // The intra-route passes do not look at the clock: past the deadline, stop here.
    if control.should_stop() {
        return;
    }
    routes.retain(|&r| !best.routes[r].is_empty());
    improve(inst, best, &routes);
}

fn report(inst: &Instance, control: &dyn Control, iteration: u64, s: &State) {
    let visits = |t: &u32| {
        if inst.tasks[*t as usize].second == NONE {
            1
        } else {
            2
        }
    };
    control.on_improvement(&Progress {
        iteration,
        vehicles: s.used(),
        cost: s.routing_cost(),
        unassigned: s.unassigned.iter().map(visits).sum(),
    });
}
