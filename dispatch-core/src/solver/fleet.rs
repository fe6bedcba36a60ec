//! Fleet minimisation for the vehicles-first objectives (SISR's scheme): take the best solution,
//! empty its smallest route, and ruin-and-recreate without opening vehicles until every task is
//! back on a route. A candidate is kept when it leaves out fewer tasks, or tasks with a smaller
//! sum of "absence" counters (how often each task was left out), which steers the search to
//! place the hard tasks first.

use super::instance::{Instance, NONE};
use super::neighbours::Neighbours;
use super::recreate::{order, recreate, Recreate, RecreateScratch};
use super::rng::Rng;
use super::ruin::{ruin, RuinParams};
use super::state::State;

/// The fleet-minimisation search of one worker.
#[derive(Debug, Clone)]
pub(crate) struct Fleet {
    state: State,
    absences: Vec<u64>,
    /// Vehicles used by the solution this attempt started from.
    target: usize,
}

/// Scratch buffers shared with the main search.
pub(crate) struct Scratch<'a> {
    pub marks: &'a mut [bool],
    pub removed: &'a mut Vec<u32>,
    pub recreate: &'a mut RecreateScratch,
}

impl Fleet {
    /// Starts from `from` with its smallest route emptied; `None` when it uses no vehicle.
    pub(crate) fn new(inst: &Instance, from: &State, absences: Vec<u64>) -> Option<Fleet> {
        let r = (0..from.routes.len())
            .filter(|&r| !from.routes[r].is_empty())
            .min_by_key(|&r| (from.routes[r].len(), r))?;
        let mut state = from.clone();
        let route = state.route_mut(r);
        let gone = std::mem::take(&mut route.nodes);
        state.refresh(inst, r);
        for x in gone {
            let t = inst.node_task[x as usize] as usize;
            if state.route_of[t] != NONE {
                state.set_route(t, NONE);
                state.leave_out(inst, t);
            }
        }
        Some(Fleet {
            state,
            absences,
            target: from.used(),
        })
    }

    /// Vehicles used by the solution this attempt tries to beat.
    pub(crate) fn target(&self) -> usize {
        self.target
    }

    /// One ruin-and-recreate step; returns a complete solution with fewer vehicles when found.
    pub(crate) fn step(
        &mut self,
        inst: &Instance,
        nb: &Neighbours,
        p: RuinParams,
        rng: &mut Rng,
        scratch: Scratch,
    ) -> Option<State> {
        let before = (self.state.unassigned.len(), self.absence_sum());
        let s = &mut self.state;
        s.begin();
        scratch.removed.clear();
        scratch.removed.extend(s.take_unassigned(inst));
        ruin(inst, s, nb, p, rng, scratch.marks, scratch.removed);
        order(inst, nb, scratch.removed, rng);
        let opts = Recreate {
            blink: 0.01,
            allow_new: false,
            full_scan: 1.0,
        };
        recreate(inst, nb, s, scratch.removed, rng, opts, scratch.recreate);
        let after = (self.state.unassigned.len(), self.absence_sum());
        for &t in &self.state.unassigned {
            self.absences[t as usize] += 1;
        }
        if after.0 < before.0 || after.1 < before.1 {
            self.state.commit();
        } else {
            self.state.rollback();
        }
        (self.state.unassigned.is_empty() && self.state.used() < self.target)
            .then(|| self.state.clone())
    }

    /// The absence counters, to carry over to the next attempt.
    pub(crate) fn into_absences(self) -> Vec<u64> {
        self.absences
    }

    fn absence_sum(&self) -> u64 {
        self.state
            .unassigned
            .iter()
            .map(|&t| self.absences[t as usize])
            .sum()
    }
}
