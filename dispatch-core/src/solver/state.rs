//! A working solution: one (possibly empty) route per vehicle, the tasks left out, the
//! lexicographic score as one integer, and a journal to undo a rejected move cheaply.

use super::instance::{Instance, NONE};
use super::route::Route;

/// A copy starts with an empty journal: states are copied between moves, never during one.
impl Clone for Journal {
    fn clone(&self) -> Journal {
        Journal::default()
    }
}

/// A solution under search.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub routes: Vec<Route>,
    /// Route (= vehicle) of each task, or [`NONE`].
    pub route_of: Vec<u32>,
    /// Tasks left out (only those that could be served at all).
    pub unassigned: Vec<u32>,
    unassigned_weight: i128,
    routing: i64,
    used: usize,
    journal: Journal,
}

#[derive(Debug, Default)]
struct Journal {
    active: bool,
    routes: Vec<(usize, Route)>,
    /// Saved routes no longer needed, reused as buffers (no allocation per move).
    spare: Vec<Route>,
    tasks: Vec<(usize, u32)>,
    unassigned: Vec<u32>,
    totals: (i128, i64, usize),
}

impl State {
    /// Every vehicle unused, every task in `tasks` left out.
    pub(crate) fn empty(inst: &Instance, tasks: &[u32]) -> State {
        let mut s = State {
            routes: (0..inst.vehicles.len())
                .map(|v| Route::new(inst, v))
                .collect(),
            route_of: vec![NONE; inst.tasks.len()],
            unassigned: Vec::new(),
            unassigned_weight: 0,
            routing: 0,
            used: 0,
            journal: Journal::default(),
        };
        for &t in tasks {
            s.unassigned.push(t);
            s.unassigned_weight += inst.tasks[t as usize].weight;
        }
        s
    }

    /// The lexicographic objective: unserved tasks by priority, vehicles (when counted), cost.
    pub(crate) fn score(&self, inst: &Instance) -> i128 {
        self.unassigned_weight
            + (self.used as i128) * inst.vehicle_cost as i128
            + self.routing as i128
    }

    /// Total routing cost (distance or duration).
    pub(crate) fn routing_cost(&self) -> i64 {
        self.routing
    }

    /// Number of used vehicles.
    pub(crate) fn used(&self) -> usize {
        self.used
    }

    /// Starts recording changes so that [`State::rollback`] can undo them.
    pub(crate) fn begin(&mut self) {
        let j = &mut self.journal;
        j.active = true;
        j.spare.extend(j.routes.drain(..).map(|(_, r)| r));
        j.tasks.clear();
        j.unassigned.clone_from(&self.unassigned);
        j.totals = (self.unassigned_weight, self.routing, self.used);
    }

    /// Keeps the changes since [`State::begin`].
    pub(crate) fn commit(&mut self) {
        self.journal.active = false;
    }

    /// Routes changed since the last [`State::begin`].
    pub(crate) fn touched(&self) -> Vec<usize> {
        self.journal.routes.iter().map(|(r, _)| *r).collect()
    }

    /// Undoes the changes since [`State::begin`].
    pub(crate) fn rollback(&mut self) {
        let j = &mut self.journal;
        while let Some((r, mut old)) = j.routes.pop() {
            std::mem::swap(&mut self.routes[r], &mut old);
            j.spare.push(old);
        }
        while let Some((t, old)) = j.tasks.pop() {
            self.route_of[t] = old;
        }
        std::mem::swap(&mut self.unassigned, &mut j.unassigned);
        (self.unassigned_weight, self.routing, self.used) = j.totals;
        j.active = false;
    }

    /// Gives mutable access to a route, saving it to the journal first. Call
    /// [`State::refresh`] after changing it.
    pub(crate) fn route_mut(&mut self, r: usize) -> &mut Route {
        let j = &mut self.journal;
        if j.active && !j.routes.iter().any(|(x, _)| *x == r) {
            let saved = match j.spare.pop() {
                Some(mut spare) => {
                    spare.clone_from(&self.routes[r]);
                    spare
                }
                None => self.routes[r].clone(),
            };
            j.routes.push((r, saved));
        }
        self.routing -= self.routes[r].cost;
        if !self.routes[r].is_empty() {
            self.used -= 1;
        }
        &mut self.routes[r]
    }

    /// Recomputes a route changed through [`State::route_mut`] and the totals.
    pub(crate) fn refresh(&mut self, inst: &Instance, r: usize) {
        self.routes[r].update(inst);
        self.routing += self.routes[r].cost;
        if !self.routes[r].is_empty() {
            self.used += 1;
        }
    }

    /// Records that task `t` now belongs to route `r` (or to none).
    pub(crate) fn set_route(&mut self, t: usize, r: u32) {
        if self.journal.active {
            self.journal.tasks.push((t, self.route_of[t]));
        }
        self.route_of[t] = r;
    }

    /// Adds a task to the left-out list.
    pub(crate) fn leave_out(&mut self, inst: &Instance, t: usize) {
        self.unassigned.push(t as u32);
        self.unassigned_weight += inst.tasks[t].weight;
    }

    /// Takes the left-out list (its weight is removed from the score).
    pub(crate) fn take_unassigned(&mut self, inst: &Instance) -> Vec<u32> {
        for &t in &self.unassigned {
            self.unassigned_weight -= inst.tasks[t as usize].weight;
        }
        std::mem::take(&mut self.unassigned)
    }
}
