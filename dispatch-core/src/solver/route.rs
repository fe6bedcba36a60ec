//! One vehicle's route with cached per-position data, so that inserting a visit (or a shipment
//! pair) is checked in constant time: earliest service starts (forward), latest departures that
//! keep the rest feasible (backward), and loads with prefix and suffix maxima.
//!
//! The vehicle's breaks are elements of the route where the full simulation takes them
//! ([`arrange`]): a break has no location (it is taken where the vehicle is), so the leg into
//! it is zero and the leg after it starts from the visit before it.
//!
//! Positions: 0 is the start, `1..=m` the elements (visits and breaks), `m + 1` the end.

use super::constraint::breaks::arrange;
use super::constraint::capacity::Loads;
use super::constraint::windows::{earliest, earliest_in, latest_in};
use super::instance::{Instance, BREAK, INF, NONE};
use super::problem::{Load, Time, TimeWindow};

mod plain;

/// A route and its caches (valid after [`Route::update`]).
#[derive(Debug, Default)]
pub(crate) struct Route {
    pub vehicle: usize,
    /// The visits in order (breaks excluded): what the search changes.
    pub nodes: Vec<u32>,
    /// Element at each position: a node, `BREAK | b`, or `NONE` at start and end.
    pub pnode: Vec<u32>,
    /// Location at each position (a break's is the location before it).
    pub locs: Vec<usize>,
    /// Location of the first visit (or the end) at or after each position.
    pub nloc: Vec<usize>,
    /// Visits at positions `1..=k`: where a visit inserted after position `k` goes in `nodes`.
    pub nidx: Vec<usize>,
    /// Travel time and cost of the arc across the gap after each position (`locs[k]` to
    /// `nloc[k + 1]`): what an insertion there replaces.
    pub gap_tt: Vec<Time>,
    pub gap_cost: Vec<i64>,
    /// Set-up plus service time at each position (a break's length; 0 at start and end).
    pub busy: Vec<Time>,
    /// Earliest service start (position 0: departure; `m + 1`: arrival at the end).
    pub es: Vec<Time>,
    /// Latest service start at each position `1..=m` keeping the rest feasible.
    pub ls: Vec<Time>,
    /// Latest departure from each position keeping the rest of the route feasible (`m + 1`:
    /// latest arrival).
    pub ld: Vec<Time>,
    /// Load after each position `0..=m`, `dims` per position.
    pub loads: Vec<Load>,
    /// Maximum load over positions `0..=k`.
    pub pmax: Vec<Load>,
    /// Maximum load over positions `k..=m`.
    pub smax: Vec<Load>,
    /// Start loads of the visits at positions `1..=k`, `dims` per position `0..=m`: what
    /// leaves the depot for the route's head, so that a tail moved to another route takes its
    /// own share of the start load with it (2-opt*).
    pub starts: Vec<Load>,
    pub travel: Time,
    pub cost: i64,
}

impl Clone for Route {
    fn clone(&self) -> Route {
        let mut r = Route::default();
        r.clone_from(self);
        r
    }

    /// Reuses this route's buffers: the search's journal saves routes into recycled ones.
    fn clone_from(&mut self, o: &Route) {
        self.vehicle = o.vehicle;
        self.nodes.clone_from(&o.nodes);
        self.pnode.clone_from(&o.pnode);
        self.locs.clone_from(&o.locs);
        self.nloc.clone_from(&o.nloc);
        self.nidx.clone_from(&o.nidx);
        self.gap_tt.clone_from(&o.gap_tt);
        self.gap_cost.clone_from(&o.gap_cost);
        self.busy.clone_from(&o.busy);
        self.es.clone_from(&o.es);
        self.ls.clone_from(&o.ls);
        self.ld.clone_from(&o.ld);
        self.loads.clone_from(&o.loads);
        self.pmax.clone_from(&o.pmax);
        self.smax.clone_from(&o.smax);
        self.starts.clone_from(&o.starts);
        self.travel = o.travel;
        self.cost = o.cost;
    }
}

/// True for a break element.
#[inline]
pub(crate) fn is_break(x: u32) -> bool {
    x != NONE && x & BREAK != 0
}

impl Route {
    /// An empty route of vehicle `v`.
    pub(crate) fn new(inst: &Instance, v: usize) -> Route {
        let mut r = Route {
            vehicle: v,
            ..Route::default()
        };
        r.update(inst);
        r
    }

    /// Number of visits.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Number of elements (visits and breaks): positions are `0..=elements() + 1`.
    #[inline]
    pub(crate) fn elements(&self) -> usize {
        self.pnode.len() - 2
    }

    /// True when the route has no visit (the vehicle is unused).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The route's cached loads, for the capacity questions.
    #[inline]
    pub(crate) fn load_caches<'a>(&'a self, inst: &'a Instance) -> Loads<'a> {
        Loads {
            capacity: &inst.vehicles[self.vehicle].capacity,
            dims: inst.dims,
            visits: self.len(),
            loads: &self.loads,
            pmax: &self.pmax,
            smax: &self.smax,
            starts: &self.starts,
        }
    }

    /// Departure from the break at position `k` when the vehicle is free from `t` (the break
    /// starts in its first window still open), or `None` when its windows have closed.
    #[inline]
    pub(crate) fn leave_break(&self, inst: &Instance, k: usize, t: Time) -> Option<Time> {
        let s = earliest_in(self.windows(inst, k), t);
        (s < INF).then(|| s + self.busy[k])
    }

    /// The windows of the element at position `k` (`1..=m`).
    #[inline]
    pub(crate) fn windows<'a>(&self, inst: &'a Instance, k: usize) -> &'a [TimeWindow] {
        let x = self.pnode[k];
        if is_break(x) {
            &inst.vehicles[self.vehicle].breaks[(x & !BREAK) as usize].windows
        } else {
            inst.windows(x as usize)
        }
    }

    /// Recomputes every cache from `nodes`: one forward and one backward pass, each matrix arc
    /// looked up once.
    pub(crate) fn update(&mut self, inst: &Instance) {
        let vd = &inst.vehicles[self.vehicle];
        if vd.breaks.is_empty() {
            self.update_plain(inst);
        } else {
            self.update_general(inst);
        }
    }

    /// [`Route::update`] for vehicles with breaks: they are placed by the simulation.
    fn update_general(&mut self, inst: &Instance) {
        let vd = &inst.vehicles[self.vehicle];
        let mut pnode = std::mem::take(&mut self.pnode);
        arrange(inst, self.vehicle, &self.nodes, &mut pnode);
        pnode.insert(0, NONE);
        pnode.push(NONE);
        self.pnode = pnode;
        let m = self.elements();
        for v in [&mut self.locs, &mut self.nidx, &mut self.nloc] {
            v.clear();
        }
        for v in [&mut self.busy, &mut self.es, &mut self.gap_tt] {
            v.clear();
        }
        self.gap_cost.clear();
        self.locs.push(vd.start);
        self.busy.push(0);
        self.nidx.push(0);
        self.es.push(vd.shift.start);
        // Forward: locations, busy times, earliest starts; `gap_tt`/`gap_cost` hold the arc into
        // each position for now (zero into a break).
        self.gap_tt.push(0);
        self.gap_cost.push(0);
        self.travel = 0;
        self.cost = 0;
        for k in 1..=m + 1 {
            let x = self.pnode[k];
            let prev = self.locs[k - 1];
            let depart = self.es[k - 1] + self.busy[k - 1];
            if is_break(x) {
                let b = &vd.breaks[(x & !BREAK) as usize];
                self.locs.push(prev);
                self.busy.push(b.service);
                self.nidx.push(self.nidx[k - 1]);
                self.es.push(earliest_in(&b.windows, depart));
                self.gap_tt.push(0);
                self.gap_cost.push(0);
                continue;
            }
            let (l, busy) = if x == NONE {
                (vd.end, 0)
            } else {
                let x = x as usize;
                let l = inst.loc[x];
                let setup = if l != prev { inst.setup[x] } else { 0 };
                (l, setup + inst.service[x])
            };
            let (tt, cost) = (inst.tt(prev, l), inst.cost(prev, l));
            self.travel += tt;
            self.cost += cost;
            self.locs.push(l);
            self.busy.push(busy);
            self.nidx.push(self.nidx[k - 1] + usize::from(x != NONE));
            self.es.push(if x == NONE {
                depart + tt
            } else {
                earliest(inst, x as usize, depart + tt)
            });
            self.gap_tt.push(tt);
            self.gap_cost.push(cost);
        }
        // Backward: next visit's location, the arc across each gap, latest departures.
        self.nloc.resize(m + 2, vd.end);
        self.ld.clear();
        self.ld.resize(m + 2, -INF);
        self.ld[m + 1] = vd.shift.end;
        self.ls.clear();
        self.ls.resize(m + 2, -INF);
        self.ls[m + 1] = vd.shift.end;
        let (mut tt_next, mut cost_next) = (self.gap_tt[m + 1], self.gap_cost[m + 1]);
        let mut latest_next = vd.shift.end;
        for k in (0..=m).rev() {
            let leg_next = self.gap_tt[k + 1];
            if !is_break(self.pnode[k + 1]) {
                tt_next = self.gap_tt[k + 1];
                cost_next = self.gap_cost[k + 1];
            }
            self.ld[k] = latest_next - leg_next;
            if k > 0 {
                latest_next = latest_in(self.windows(inst, k), self.ld[k] - self.busy[k]);
                self.ls[k] = latest_next;
                self.nloc[k] = if is_break(self.pnode[k]) {
                    self.nloc[k + 1]
                } else {
                    self.locs[k]
                };
            }
            self.gap_tt[k + 1] = tt_next;
            self.gap_cost[k + 1] = cost_next;
        }
        self.nloc[0] = vd.start;
        self.gap_tt.remove(0);
        self.gap_cost.remove(0);
        self.ld[0] = self.ld[0].min(vd.shift.end);
        self.update_loads(inst);
    }

    fn update_loads(&mut self, inst: &Instance) {
        let dims = inst.dims;
        if dims == 1 {
            self.update_loads_1(inst);
        } else {
            self.update_loads_n(inst);
        }
    }

    fn update_loads_n(&mut self, inst: &Instance) {
        let dims = inst.dims;
        let m = self.elements();
        self.loads.clear();
        self.loads.resize((m + 1) * dims, 0);
        for &x in &self.nodes {
            let (s, _) = inst.loads(x as usize);
            for (l, v) in self.loads[..dims].iter_mut().zip(s) {
                *l += v;
            }
        }
        self.starts.clear();
        self.starts.resize((m + 1) * dims, 0);
        for k in 1..=m {
            let (before, after) = self.starts.split_at_mut(k * dims);
            after[..dims].copy_from_slice(&before[(k - 1) * dims..]);
            let x = self.pnode[k];
            if !is_break(x) {
                let (s, _) = inst.loads(x as usize);
                for (a, v) in after[..dims].iter_mut().zip(s) {
                    *a += v;
                }
            }
        }
        for k in 1..=m {
            let (before, after) = self.loads.split_at_mut(k * dims);
            let prev = &before[(k - 1) * dims..];
            let x = self.pnode[k];
            if is_break(x) {
                after[..dims].copy_from_slice(prev);
                continue;
            }
            let (_, delta) = inst.loads(x as usize);
            for ((l, p), v) in after[..dims].iter_mut().zip(prev).zip(delta) {
                *l = p + v;
            }
        }
        self.pmax.clone_from(&self.loads);
        for k in 1..=m {
            for d in 0..dims {
                let i = k * dims + d;
                self.pmax[i] = self.pmax[i].max(self.pmax[i - dims]);
            }
        }
        self.smax.clone_from(&self.loads);
        for k in (0..m).rev() {
            for d in 0..dims {
                let i = k * dims + d;
                self.smax[i] = self.smax[i].max(self.smax[i + dims]);
            }
        }
    }

    /// Whether the elements from position `k` on stay feasible when the vehicle leaves the
    /// previous one at `t` from location `from` (a changed predecessor). Walks over breaks
    /// (zero legs) to the next visit, whose set-up and leg depend on `from`: O(breaks).
    #[inline]
    pub(crate) fn fits_from(
        &self,
        inst: &Instance,
        mut k: usize,
        mut t: Time,
        from: usize,
    ) -> bool {
        let m = self.elements();
        loop {
            if k == m + 1 {
                return t + inst.tt(from, self.locs[k]) <= self.ld[k];
            }
            let x = self.pnode[k];
            if is_break(x) {
                let Some(next) = self.leave_break(inst, k, t) else {
                    return false;
                };
                t = next;
                k += 1;
                continue;
            }
            let x = x as usize;
            let l = self.locs[k];
            let arrive = t + inst.tt(from, l);
            if inst.setup[x] == 0 || (l != from) == (l != self.locs[k - 1]) {
                // Same busy time as before: the cached latest start decides.
                return arrive <= self.ls[k];
            }
            let s = earliest(inst, x, arrive);
            let setup = if l != from { inst.setup[x] } else { 0 };
            return s < INF && s + setup + inst.service[x] <= self.ld[k];
        }
    }
}

#[cfg(test)]
mod tests;
