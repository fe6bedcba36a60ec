//! The vehicle-routing solver: [`problem::Problem`] in, [`solution::Solution`] out.
//!
//! Everything that decides feasibility is integer: [`problem::Time`], [`problem::Distance`] and
//! [`problem::Load`]. Readers of floating-point formats scale and round conservatively once, at the
//! edge (see [`formats`]).
//!
//! # Timing rules
//! A route leaves its start (or appears at its first visit, for open starts) no earlier than
//! the shift start, and reaches its end (or finishes its last visit, for open ends) no later
//! than the shift end. At each visit the vehicle arrives after the travel time, waits until one
//! of the visit's windows opens, and starts service inside that window (a window bounds the
//! *start* of service). The visit then lasts its set-up time (only when arriving from another
//! location than the previous one, the start location included) plus its service time. A break has
//! no location: it is taken where the vehicle is, before travelling on, starting inside one of
//! its windows. A used vehicle takes all its breaks. `max_duration` bounds end minus start time;
//! `max_travel_time` the sum of travel times; `max_tasks` the number of visits (breaks excluded).
//!
//! Timetables in the solution are VROOM's: each route ends as early as possible and leaves as
//! late as still ends then, every visit at the earliest time after that departure (a vehicle
//! without a shift window leaves at time 0 plus what waiting a later departure avoids).
//!
//! # Algorithm
//! A per-task pre-check gives every task that no vehicle can serve its [`solution::Reason`].
//! The rest are placed by greedy cheapest insertion, then improved by SISR ruin-and-recreate
//! (string removals near a random visit; reinsertion with blinks in a random, demand or distance
//! order) under simulated annealing. Each new best is polished: a placed task traded for two
//! or more left-out ones where they fit (module `eject`), inter-route moves, then intra-route
//! 2-opt and or-opt. For the vehicles-first objectives, half of the iterations in the first half of the budget run fleet
//! minimisation (empty the smallest route; reinsert guided by absence counters). Insertion
//! checks are O(1) from cached forward times, latest departures and load maxima (breaks are
//! elements of the route where the simulation places them) on vehicles without a duration
//! limit, and full re-simulations otherwise. Workers (rayon)
//! share their best every 500 iterations, each taking the others' bests of its previous
//! 500 (so none waits for a slower one unless it falls a whole epoch behind). [`solve_from`] starts the same search
//! from given routes instead of the construction.
//!
//! Under [`Strategy::Population`] (chosen by [`Strategy::Auto`] for the classic time-window
//! problems) each worker also keeps a population of solutions (module `population`): every
//! 400 iterations the annealing's current solution joins it and a child takes its place, a new
//! random construction while the population is small, then a selective route exchange of two
//! parents picked by fitness and broken-pairs diversity; the population restarts from its best
//! when 150 children bring nothing better. The annealing is then the children's education.
//! Where every job has one window and the fleet has no breaks or limits (module `warp`), a
//! child may first be late or overloaded: the displaced visits go where they cost least under
//! adaptive penalties on time warp and excess load, a local search on that penalised cost
//! (O(1) per move by segment concatenation) improves it, and a repair makes it feasible before
//! the annealing takes it, at half its temperatures. That local search tries each
//! visit's moves with its nearest visits by a proximity that counts waiting and lateness
//! between their windows, not by distance alone.
//!
//! # Example
//! ```
//! use dispatch_core::solver::problem::*;
//! use dispatch_core::solver::{solve, Config, Control};
//!
//! struct Never;
//! impl Control for Never {
//!     fn should_stop(&self) -> bool { false }
//! }
//! // Depot 0 and two customers on a line; time equals distance.
//! let d = vec![0, 5, 9, 5, 0, 4, 9, 4, 0];
//! let matrix = Matrix::new(3, d.clone(), d).unwrap();
//! let place = |location| Place { location, setup: 0, service: 1, time_windows: vec![] };
//! let job = |id, location| Job {
//!     id, place: place(location), delivery: vec![1], pickup: vec![0],
//!     skills: Skills::default(), priority: 0, pinned_vehicle: None,
//! };
//! let problem = Problem {
//!     name: "line".into(), matrix, jobs: vec![job(1, 1), job(2, 2)], shipments: vec![],
//!     vehicles: vec![Vehicle {
//!         id: 1, start: Some(0), end: Some(0), capacity: vec![2], skills: Skills::default(),
//!         shift: TimeWindow::ALWAYS, breaks: vec![], max_duration: None,
//!         max_travel_time: None, max_tasks: None,
//!     }],
//!     dimensions: 1, objective: Objective::Distance,
//! };
//! let config = Config { seed: 1, threads: 1, max_iterations: Some(100) };
//! let solution = solve(&problem, &config, &Never);
//! assert_eq!(solution.routes.len(), 1);
//! assert!(solution.unassigned.is_empty());
//! ```

pub mod bound;
pub mod checker;
mod constraint;
mod detour;
mod eject;
#[cfg(test)]
mod fixtures;
mod fleet;
pub mod formats;
mod insertion;
mod instance;
mod neighbours;
mod operators;
mod output;
mod population;
mod precheck;
pub mod probe;
pub mod problem;
mod recreate;
mod rng;
mod route;
mod ruin;
mod scarcity;
mod search;
pub mod solution;
mod split;
mod state;
pub mod travel;
mod warm;
mod warp;

pub use warm::{StartError, StartRoute};

/// How the search runs. The same problem, `seed`, `threads` and `max_iterations` give the same
/// solution as long as [`Control::should_stop`] never fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// Seed of every random choice.
    pub seed: u64,
    /// Worker threads (0 is treated as 1).
    pub threads: usize,
    /// Stop after this many search iterations in total over all threads.
    pub max_iterations: Option<u64>,
}

/// How the search explores. Both keep every rule of [`Config`] (determinism per seed and
/// thread count, iteration budgets, progress through [`Control`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Chosen per problem: the population for distance-only problems without shipments or
    /// breaks of at most 1 000 tasks (the classic time-window benchmarks), the annealing for
    /// the rest (service days, and larger problems).
    #[default]
    Auto,
    /// Each worker runs one simulated-annealing trajectory of SISR ruin-and-recreate.
    Annealing,
    /// Each worker keeps a population of educated solutions (broken-pairs diversity, parents
    /// by binary tournament on fitness and diversity, selective route exchange, restart on
    /// stagnation) and educates one child at a time with the annealing trajectory.
    Population,
}

/// Most tasks for which [`Strategy::Auto`] chooses the population: it won on 100 and 200
/// customers, and at 60 s of one thread on the first Gehring-Homberger instance of each class
/// at 400 customers (0.58 -> 0.25 % above the best known) and at 1 000 (1.50 -> 1.27 %, though
/// it runs a third of the annealing's iterations there). Larger problems were not measured.
const POPULATION_MAX_TASKS: usize = 1_000;

impl Strategy {
    /// The strategy for `problem`. [`Strategy::Auto`] takes the population for the problems it
    /// was measured better on at equal iterations: distance only (the classic time-window
    /// benchmarks: Gehring-Homberger 200, Solomon), no shipments, no breaks, up to
    /// [`POPULATION_MAX_TASKS`] tasks; everything else (the depot days: breaks, shipments,
    /// travel-time objectives, vehicles first) keeps the annealing.
    fn resolve(self, problem: &problem::Problem) -> search::Strategy {
        let suits = || {
            problem.objective == problem::Objective::Distance
                && problem.shipments.is_empty()
                && problem.vehicles.iter().all(|v| v.breaks.is_empty())
                && problem.jobs.len() <= POPULATION_MAX_TASKS
        };
        match self {
            Strategy::Annealing => search::Strategy::Annealing,
            Strategy::Population => search::Strategy::Population,
            Strategy::Auto if suits() => search::Strategy::Population,
            Strategy::Auto => search::Strategy::Annealing,
        }
    }
}

/// A snapshot of the best solution so far, reported on each improvement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    /// Search iterations run so far (all threads).
    pub iteration: u64,
    /// Vehicles used.
    pub vehicles: usize,
    /// Routing cost (distance or duration, by the objective) in matrix units.
    pub cost: i64,
    /// Visits left out, as VROOM counts them: a job one, a shipment two (its pickup and its
    /// delivery). Tasks no vehicle can serve at all are counted from the start.
    pub unassigned: usize,
}

/// Adds the visits the pre-check left out to the search's progress, so that progress counts
/// what the solution will list.
struct WithRefused<'a> {
    inner: &'a dyn Control,
    refused: usize,
}

impl WithRefused<'_> {
    fn new<'a>(
        inner: &'a dyn Control,
        problem: &problem::Problem,
        reasons: &[Option<solution::Reason>],
    ) -> WithRefused<'a> {
        let n_jobs = problem.jobs.len();
        let refused = reasons
            .iter()
            .enumerate()
            .filter(|(_, r)| r.is_some())
            .map(|(t, _)| if t < n_jobs { 1 } else { 2 })
            .sum();
        WithRefused { inner, refused }
    }
}

impl Control for WithRefused<'_> {
    fn should_stop(&self) -> bool {
        self.inner.should_stop()
    }
    fn on_improvement(&self, p: &Progress) {
        self.inner.on_improvement(&Progress {
            unassigned: p.unassigned + self.refused,
            ..p.clone()
        });
    }
    fn elapsed_fraction(&self) -> Option<f64> {
        self.inner.elapsed_fraction()
    }
    fn on_iterations(&self, total: u64) {
        self.inner.on_iterations(total);
    }
}

/// Time limits, cancellation and progress reporting come from outside (the core reads no clock).
pub trait Control: Sync {
    /// Polled often by every worker; once true the search ends and returns its best solution.
    fn should_stop(&self) -> bool;
    /// Called (from the calling thread) whenever the best solution improves.
    fn on_improvement(&self, _p: &Progress) {}
    /// The fraction in `[0, 1]` of a wall-clock budget already used, when the caller knows it;
    /// the search cools its acceptance over the budget. Ignored under an iteration budget.
    fn elapsed_fraction(&self) -> Option<f64> {
        None
    }
    /// Called (from the calling thread) with the search iterations run so far, over all
    /// threads, each time the workers meet and once at the end: for iterations-per-second
    /// figures.
    fn on_iterations(&self, _total: u64) {}
}

/// Solves `problem`: every task ends up on a route or in `unassigned` with its reason.
pub fn solve(
    problem: &problem::Problem,
    config: &Config,
    control: &dyn Control,
) -> solution::Solution {
    solve_with(problem, config, Strategy::Auto, control)
}

/// [`solve`] with the search strategy chosen by the caller.
pub fn solve_with(
    problem: &problem::Problem,
    config: &Config,
    strategy: Strategy,
    control: &dyn Control,
) -> solution::Solution {
    let (inst, reasons, tasks) = prepare(problem);
    let init = state::State::empty(&inst, &tasks);
    let nb = neighbours::Neighbours::new(&inst, 40);
    let control = WithRefused::new(control, problem, &reasons);
    let mut best = search::run(
        &inst,
        &nb,
        init,
        config,
        strategy.resolve(problem),
        &control,
    );
    detour::open_detour_routes(&inst, &mut best);
    output::to_solution(&inst, &best, &reasons)
}

/// A solution found from a given start, and what the start could not keep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmSolution {
    /// The best solution found; never worse (by the objective) than the start after repair.
    pub solution: solution::Solution,
    /// Tasks the start had on a route that could not keep them (the task cannot be served at
    /// all, is not allowed on that vehicle, or broke a constraint of the route), as
    /// `Step::Job` or `Step::Pickup`: the search tried to place them elsewhere.
    pub displaced: Vec<solution::Step>,
}

/// Solves `problem` warm-started from `start`: its routes are the first incumbent, the tasks it
/// leaves out are inserted by the construction, and the search goes on from there. Routes that
/// break a constraint are repaired (see [`WarmSolution::displaced`]); a malformed start is an
/// error. Deterministic per seed like [`solve`].
pub fn solve_from(
    problem: &problem::Problem,
    start: &[StartRoute],
    config: &Config,
    control: &dyn Control,
) -> Result<WarmSolution, StartError> {
    let (inst, reasons, tasks) = prepare(problem);
    let plan = warm::validate(&inst, start)?;
    let (init, displaced) = warm::initial(&inst, &tasks, &plan);
    let nb = neighbours::Neighbours::new(&inst, 40);
    let control = WithRefused::new(control, problem, &reasons);
    let strategy = Strategy::Auto.resolve(problem);
    let mut best = search::run(&inst, &nb, init, config, strategy, &control);
    detour::open_detour_routes(&inst, &mut best);
    let displaced = displaced
        .into_iter()
        .map(|t| output::task_step(&inst, t as usize))
        .collect();
    Ok(WarmSolution {
        solution: output::to_solution(&inst, &best, &reasons),
        displaced,
    })
}

/// The search's view of `problem`, the pre-check's verdicts and the tasks worth searching.
fn prepare(
    problem: &problem::Problem,
) -> (
    instance::Instance<'_>,
    Vec<Option<solution::Reason>>,
    Vec<u32>,
) {
    let mut inst = instance::Instance::new(problem);
    let reasons = precheck::precheck(problem, &mut inst);
    let tasks: Vec<u32> = (0..reasons.len())
        .filter(|&t| reasons[t].is_none())
        .map(|t| t as u32)
        .collect();
    (inst, reasons, tasks)
}
