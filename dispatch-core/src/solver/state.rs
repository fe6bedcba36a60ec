//! A working solution: one (possibly empty) route per vehicle, the tasks left out, the
//! lexicographic score as one integer, and a journal to undo a rejected move cheaply.

use super::instance::{Instance, NONE};
use super::route::Route;

/// A solution under search.
#[derive(Debug)]
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

/// A copy starts with an empty journal: states are copied between moves, never during one.
/// [`State::clone_from`] reuses every buffer of the target (routes, lists, the journal's spare
/// routes): a worker copies a better best into its state when the workers meet.
impl Clone for State {
    fn clone(&self) -> State {
        State {
            routes: self.routes.clone(),
            route_of: self.route_of.clone(),
            unassigned: self.unassigned.clone(),
            unassigned_weight: self.unassigned_weight,
            routing: self.routing,
            used: self.used,
            journal: Journal::default(),
        }
    }

    fn clone_from(&mut self, o: &State) {
        // Element-wise: each route copies into the buffers of the one it replaces.
        self.routes.clone_from(&o.routes);
        self.route_of.clone_from(&o.route_of);
        self.unassigned.clone_from(&o.unassigned);
        self.unassigned_weight = o.unassigned_weight;
        self.routing = o.routing;
        self.used = o.used;
        let j = &mut self.journal;
        j.active = false;
        j.spare.extend(j.routes.drain(..).map(|(_, r)| r));
        j.tasks.clear();
    }
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

    /// Gives route `r` the visits `nodes` (their tasks recorded as on it) and recomputes it.
    pub(crate) fn set_nodes(&mut self, inst: &Instance, r: usize, nodes: &[u32]) {
        let route = self.route_mut(r);
        route.nodes.clear();
        route.nodes.extend_from_slice(nodes);
        self.refresh(inst, r);
        for &x in nodes {
            self.set_route(inst.node_task[x as usize] as usize, r as u32);
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

    /// Moves the left-out tasks `pick` selects to `out`, keeping the others' order (their
    /// weight is removed from the score).
    pub(crate) fn take_unassigned_where(
        &mut self,
        inst: &Instance,
        out: &mut Vec<u32>,
        mut pick: impl FnMut(u32) -> bool,
    ) {
        let mut weight = 0;
        self.unassigned.retain(|&t| {
            let take = pick(t);
            if take {
                weight += inst.tasks[t as usize].weight;
                out.push(t);
            }
            !take
        });
        self.unassigned_weight -= weight;
    }

    /// Takes the left-out list (its weight is removed from the score).
    pub(crate) fn take_unassigned(&mut self, inst: &Instance) -> Vec<u32> {
        for &t in &self.unassigned {
            self.unassigned_weight -= inst.tasks[t as usize].weight;
        }
        std::mem::take(&mut self.unassigned)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;

    fn problem() -> Problem {
        Problem {
            name: "clone".into(),
            matrix: plane(&[(0, 0), (3, 0), (0, 4)]),
            jobs: vec![job(1, 1), job(2, 2)],
            shipments: vec![],
            vehicles: vec![vehicle(1, 5), vehicle(2, 5)],
            dimensions: 1,
            objective: Objective::Distance,
        }
    }

    /// Puts task `t` on route `r` (at its end).
    fn place(inst: &Instance, s: &mut State, t: usize, r: usize) {
        s.unassigned.retain(|&x| x as usize != t);
        s.unassigned_weight -= inst.tasks[t].weight;
        s.route_mut(r).nodes.push(inst.tasks[t].first);
        s.refresh(inst, r);
        s.set_route(t, r as u32);
    }

    #[test]
    fn clone_from_copies_the_solution_into_the_targets_buffers() {
        let p = problem();
        let inst = Instance::new(&p);
        let mut source = State::empty(&inst, &[0, 1]);
        place(&inst, &mut source, 0, 0);
        place(&inst, &mut source, 1, 0);
        let mut target = State::empty(&inst, &[0, 1]);
        place(&inst, &mut target, 0, 1);
        place(&inst, &mut target, 1, 1);
        target.begin();
        place(&inst, &mut target, 0, 0);
        let buffers: Vec<*const u32> = target.routes.iter().map(|r| r.es.as_ptr().cast()).collect();
        target.clone_from(&source);
        let after: Vec<*const u32> = target.routes.iter().map(|r| r.es.as_ptr().cast()).collect();
        assert_eq!(buffers, after, "the routes' arrays are reused");
        assert_eq!(target.routes[0].nodes, source.routes[0].nodes);
        assert!(target.routes[1].is_empty());
        assert_eq!(target.route_of, source.route_of);
        assert_eq!(target.score(&inst), source.score(&inst));
        assert_eq!(
            (target.used(), target.routing_cost()),
            (1, source.routing_cost())
        );
        // The journal was reset: what the target recorded before is not undone onto the copy.
        target.begin();
        target.rollback();
        assert_eq!(target.routes[0].nodes, source.routes[0].nodes);
    }
}
