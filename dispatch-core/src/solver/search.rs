//! The main loop: SISR ruin-and-recreate under simulated annealing, run by several workers in
//! epochs of a fixed iteration count. After its epoch `e` a worker posts its best and takes the
//! best of the others' posts of epoch `e - 1` (ties to the lowest worker index): what it reads
//! is fixed by the seed and the thread count, so an iteration budget gives the same result,
//! and a worker waits only for one more than an epoch behind.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};

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

/// Annealing iterations that educate one child of the population, at least.
const CHILD_ITERATIONS: u64 = 400;
/// Tasks up to which a child keeps [`CHILD_ITERATIONS`].
const EDUCATION_FLAT_TASKS: u64 = 400;
/// Education iterations at [`EDUCATION_FULL_TASKS`] tasks; between the two sizes the count
/// grows linearly. Making a child (the route exchange, the penalised search over the whole
/// child, the cheapest insertion of the visits it displaced) grows with the size and a fixed
/// education does not: at 1 000 customers making children took about two thirds of the time,
/// and 2 000 iterations a child gave 1.89 % against 2.01 % on the R and RC instances at 60 s of
/// one core's CPU (3 seeds, better in each). At 400 customers the longer education lost
/// (0.47 % against 0.35 % over 5 seeds), so there it stays at 400.
const EDUCATION_FULL: u64 = 2_000;
/// See [`EDUCATION_FULL`].
const EDUCATION_FULL_TASKS: u64 = 1_000;

/// Annealing iterations that educate one child of a problem of `tasks` tasks: 400 up to 400
/// tasks, 2 000 at 1 000, linear between (and beyond, where the population is not chosen).
fn child_education(tasks: usize) -> u64 {
    let over = (tasks as u64).saturating_sub(EDUCATION_FLAT_TASKS);
    CHILD_ITERATIONS
        + over * (EDUCATION_FULL - CHILD_ITERATIONS) / (EDUCATION_FULL_TASKS - EDUCATION_FLAT_TASKS)
}

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
    /// Set when a worker stops early: the others stop too.
    halt: AtomicBool,
    /// Annealing iterations that educate one child ([`child_education`]).
    education: u64,
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
            if ctx.control.should_stop() || ctx.halt.load(Ordering::Relaxed) {
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
        h.left = ctx.education;
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
    let best_score = init.score(inst);
    report(inst, control, 0, &init);
    let threads = config.threads.max(1);
    let education = child_education(inst.tasks.len());
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
                    left: education,
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
    let posted = Arc::new(init.clone());
    let ctx = Ctx {
        inst,
        nb,
        params,
        control,
        max_iterations: config.max_iterations,
        threads: threads as u64,
        tasks,
        timed: penalised.then(|| Neighbours::timed(inst, NEIGHBOURS)),
        halt: AtomicBool::new(false),
        education,
    };
    let board = Board::new(threads, &posted, best_score);
    let mut paces: Vec<Pace> = (0..threads)
        .map(|_| Pace {
            epoch: 0,
            done: 0,
            posted: Arc::clone(&posted),
            finished: !searchable,
        })
        .collect();
    drop(posted);
    let mut reported = best_score;
    // The first worker runs on the calling thread (it reports progress), the others on a pool,
    // each on a thread of its own for the whole search: they wait for each other only when one
    // is more than an epoch ahead.
    let pool = (threads > 1)
        .then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads - 1)
                .build()
                .ok()
        })
        .flatten();
    match (&pool, workers.split_first_mut(), paces.split_first_mut()) {
        (Some(pool), Some((first, others)), Some((pace, paces))) => {
            let (ctx, board) = (&ctx, &board);
            pool.in_place_scope(|scope| {
                for (i, (w, pace)) in others.iter_mut().zip(paces).enumerate() {
                    scope.spawn(move |_| {
                        let _leave = Leave(board, i + 1, &ctx.halt);
                        while w.epoch(ctx, board, i + 1, pace, None) {}
                    });
                }
                let _leave = Leave(board, 0, &ctx.halt);
                while first.epoch(ctx, board, 0, pace, Some(&mut reported)) {}
            });
        }
        _ => {
            // One thread (or no pool): the workers take turns, epoch by epoch, which reads
            // the same posts as running them side by side.
            while paces.iter().any(|p| !p.finished) {
                for (i, (w, pace)) in workers.iter_mut().zip(&mut paces).enumerate() {
                    if !pace.finished {
                        let lead = (i == 0).then_some(&mut reported);
                        w.epoch(&ctx, &board, i, pace, lead);
                    }
                }
            }
        }
    }
    let done = board.iterations();
    let (_, w) = workers
        .iter_mut()
        .enumerate()
        .min_by_key(|(i, w)| (w.best_score, *i))
        .expect("at least one worker");
    let best = std::mem::replace(&mut w.best, State::empty(inst, &[]));
    if w.best_score < reported {
        report(inst, control, done, &best);
    }
    control.on_iterations(done);
    best
}

/// Marks a worker run beside others stopped however it ends (a panic included), so that no other waits
/// for it.
struct Leave<'a>(&'a Board, usize, &'a AtomicBool);

impl Drop for Leave<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.2.store(true, Ordering::Relaxed);
        }
        self.0.lock()[self.1].stopped = true;
        self.0.posted.notify_all();
    }
}

/// Where a worker stands in its sequence of epochs.
struct Pace {
    /// Epochs finished.
    epoch: u64,
    /// Iterations of every worker before the next epoch, had none stopped early.
    done: u64,
    /// The best this worker last posted.
    posted: Arc<State>,
    finished: bool,
}

impl Pace {
    /// What this worker posts after its current epoch, with its best's `score`.
    fn post(&self, score: i128) -> Post {
        Post {
            epoch: self.epoch,
            best: Arc::clone(&self.posted),
            score,
        }
    }
}

/// A worker's best after one of its epochs.
struct Post {
    epoch: u64,
    best: Arc<State>,
    score: i128,
}

/// Posts kept per worker: a worker reads the others' posts of its previous epoch, and no
/// worker is more than two epochs past another's read.
const POSTS_KEPT: usize = 4;

/// What one worker has posted.
struct Slot {
    posts: VecDeque<Post>,
    /// Epochs finished.
    epochs: u64,
    iterations: u64,
    stopped: bool,
}

/// Where the workers meet: after its epoch `e` a worker posts its best and takes the best of
/// the others' posts of epoch `e - 1`. What it reads is fixed by the seed and the thread count
/// (their posts of that epoch, not whatever they hold at the time), so an iteration budget stays
/// deterministic, and a worker waits only for one that is more than an epoch behind, not for
/// the slower one at every meeting.
struct Board {
    slots: Mutex<Vec<Slot>>,
    posted: Condvar,
}

impl Board {
    fn new(threads: usize, init: &Arc<State>, score: i128) -> Board {
        let slot = || Slot {
            posts: VecDeque::from([Post {
                epoch: u64::MAX,
                best: Arc::clone(init),
                score,
            }]),
            epochs: 0,
            iterations: 0,
            stopped: false,
        };
        Board {
            slots: Mutex::new((0..threads).map(|_| slot()).collect()),
            posted: Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Slot>> {
        self.slots.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Worker `i` finished epoch `post.epoch` after `count` more iterations.
    fn post(&self, i: usize, post: Post, count: u64, stopped: bool) {
        let mut slots = self.lock();
        let slot = &mut slots[i];
        slot.epochs = post.epoch + 1;
        slot.posts.push_back(post);
        if slot.posts.len() > POSTS_KEPT {
            slot.posts.pop_front();
        }
        slot.iterations += count;
        slot.stopped |= stopped;
        drop(slots);
        self.posted.notify_all();
    }

    /// The best (lowest score, then lowest worker) of the other workers' posts of `epoch`,
    /// once they are all there, and the iterations posted so far. A worker that stopped early
    /// gives its last post instead; `halt` ends the wait.
    fn others(&self, i: usize, epoch: u64, halt: &AtomicBool) -> (Option<(i128, Arc<State>)>, u64) {
        let mut slots = self.lock();
        loop {
            let ready = slots
                .iter()
                .enumerate()
                .all(|(j, s)| j == i || s.epochs > epoch || s.stopped);
            if ready || halt.load(Ordering::Relaxed) {
                break;
            }
            slots = self.posted.wait(slots).unwrap_or_else(|e| e.into_inner());
        }
        let mut best: Option<(i128, Arc<State>)> = None;
        for (j, s) in slots.iter().enumerate() {
            if j == i {
                continue;
            }
            let post = s
                .posts
                .iter()
                .find(|p| p.epoch == epoch)
                .or(s.posts.back())
                .expect("a post");
            if best.as_ref().is_none_or(|(b, _)| post.score < *b) {
                best = Some((post.score, Arc::clone(&post.best)));
            }
        }
        (best, slots.iter().map(|s| s.iterations).sum())
    }

    fn iterations(&self) -> u64 {
        self.lock().iter().map(|s| s.iterations).sum()
    }
}

impl Worker {
    /// Worker `i`'s next epoch: its iterations, the polish of a new best (ejections and local
    /// search on a copy: the trajectory goes on from the polished copy only when it is
    /// better), its post, and the others' best of the previous epoch taken when better. `lead`
    /// (the calling thread's worker) reports progress. False once the search is over.
    fn epoch(
        &mut self,
        ctx: &Ctx,
        board: &Board,
        i: usize,
        pace: &mut Pace,
        lead: Option<&mut i128>,
    ) -> bool {
        if pace.finished {
            return false;
        }
        let inst = ctx.inst;
        let per = match ctx.max_iterations {
            Some(max) if pace.done >= max => 0,
            Some(max) => EPOCH.min((max - pace.done).div_ceil(ctx.threads)),
            None => EPOCH,
        };
        if per == 0 {
            pace.finished = true;
            board.post(i, pace.post(self.best_score), 0, true);
            return false;
        }
        let before = self.best_score;
        let count = self.run(ctx, per, pace.done);
        pace.done += per * ctx.threads;
        if self.best_score < before {
            let mut best = self.best.clone();
            polish(inst, ctx.nb, &mut best, ctx.control);
            let score = best.score(inst);
            if score < self.best_score {
                self.adopt(&best, score);
            }
            pace.posted = Arc::new(best);
        }
        let stopped = self.stopped || ctx.halt.load(Ordering::Relaxed);
        if stopped {
            ctx.halt.store(true, Ordering::Relaxed);
        }
        let post = pace.post(self.best_score);
        board.post(i, post, count, stopped);
        let mut total = None;
        if !stopped && ctx.threads > 1 && pace.epoch > 0 {
            let (other, iterations) = board.others(i, pace.epoch - 1, &ctx.halt);
            if let Some((score, best)) = other.filter(|(s, _)| *s < self.best_score) {
                self.adopt(&best, score);
                pace.posted = best;
            }
            total = Some(iterations);
        }
        pace.epoch += 1;
        if let Some(reported) = lead {
            let total = total.unwrap_or_else(|| board.iterations());
            if self.best_score < *reported {
                *reported = self.best_score;
                report(inst, ctx.control, total, &self.best);
            }
            ctx.control.on_iterations(total);
        }
        if stopped || ctx.halt.load(Ordering::Relaxed) {
            pace.finished = true;
            if !stopped {
                board.post(i, pace.post(self.best_score), 0, true);
            }
        }
        !pace.finished
    }

    /// The search goes on from `best`.
    fn adopt(&mut self, best: &State, score: i128) {
        self.state.clone_from(best);
        self.score = score;
        self.best.clone_from(best);
        self.best_score = score;
        self.fleet = None;
    }
}

/// Ejections (left-out tasks traded in), then inter-route and intra-route local search on a
/// worker's new best, on a copy at the end of its epoch: the annealing's own trajectory stays as
/// it was (on 12 Homberger 200 instances, searching every worker's new best in the trajectory
/// made the mean gap worse, 0.63 -> 0.79 %), and it goes on from the polished copy only when
/// that is better, like from any better best.
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

#[cfg(test)]
mod education_tests {
    use super::child_education;

    #[test]
    fn a_child_is_educated_400_iterations_up_to_400_tasks_and_2000_at_1000() {
        assert_eq!(child_education(100), 400);
        assert_eq!(child_education(400), 400);
        assert_eq!(child_education(700), 1_200);
        assert_eq!(child_education(1_000), 2_000);
    }
}
