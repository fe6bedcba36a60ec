//! A window into the engine's inner loop for micro-benchmarks (`benches/solver_moves.rs`):
//! times the constant-time insertion checks and 2-opt* verdicts on a constructed solution.

use super::insertion::{best_insertion, Blink};
use super::instance::Instance;
use super::neighbours::Neighbours;
use super::operators::decide_all;
use super::precheck::precheck;
use super::problem::Problem;
use super::recreate::{order, recreate, Recreate, RecreateScratch};
use super::rng::Rng;
use super::state::State;

/// A constructed solution over which insertion evaluations can be timed.
pub struct InsertionProbe<'p> {
    inst: Instance<'p>,
    state: State,
    tasks: Vec<u32>,
}

impl<'p> InsertionProbe<'p> {
    /// Pre-checks `problem` and builds a first solution by greedy insertion.
    pub fn new(problem: &'p Problem, seed: u64) -> InsertionProbe<'p> {
        let mut inst = Instance::new(problem);
        let reasons = precheck(problem, &mut inst);
        let mut tasks: Vec<u32> = (0..reasons.len())
            .filter(|&t| reasons[t].is_none())
            .map(|t| t as u32)
            .collect();
        let nb = Neighbours::new(&inst, 40);
        let mut rng = Rng::new(seed, 0);
        let mut state = State::empty(&inst, &tasks);
        let mut all = state.take_unassigned(&inst);
        order(&inst, &nb, &mut all, &mut rng);
        let opts = Recreate {
            blink: 0.0,
            allow_new: true,
            full_scan: 1.0,
        };
        let mut scratch = RecreateScratch::default();
        recreate(&inst, &nb, &mut state, &all, &mut rng, opts, &mut scratch);
        tasks.sort_unstable();
        InsertionProbe { inst, state, tasks }
    }

    /// Decides every 2-opt* exchange (every cut of every pair of used routes), from the
    /// routes' caches or by re-simulating both new routes; returns the number decided.
    pub fn decide_exchanges(&self, cached: bool) -> u64 {
        decide_all(&self.inst, &self.state, cached).0
    }

    /// Evaluates the cheapest insertion of every task into every used route and returns the
    /// number of insertion positions examined (a shipment counts each pickup and delivery pair).
    pub fn evaluate_all(&self) -> u64 {
        let mut rng = Rng::new(0, 0);
        let mut blink = Blink {
            rng: &mut rng,
            rate: 0.0,
        };
        let mut positions = 0u64;
        for &t in &self.tasks {
            let two = self.inst.tasks[t as usize].second != super::instance::NONE;
            for r in self.state.routes.iter().filter(|r| !r.is_empty()) {
                let gaps = r.len() as u64 + 1;
                positions += if two { gaps * (gaps + 1) / 2 } else { gaps };
                std::hint::black_box(best_insertion(
                    &self.inst,
                    r,
                    t as usize,
                    i64::MAX,
                    &mut blink,
                ));
            }
        }
        positions
    }
}
