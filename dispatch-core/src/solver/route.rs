//! One vehicle's route with cached per-position data, so that inserting a visit (or a shipment
//! pair) is checked in constant time: earliest service starts (forward), latest service starts
//! that keep the rest feasible (backward), and loads with prefix and suffix maxima.
//!
//! Positions: 0 is the start, `1..=n` the visits, `n + 1` the end.

use super::instance::{Instance, INF, NONE};
use super::problem::{Load, Time};

/// A route and its caches (valid after [`Route::update`]).
#[derive(Debug, Clone)]
pub(crate) struct Route {
    pub vehicle: usize,
    pub nodes: Vec<u32>,
    /// Node at each position (`NONE` at start and end).
    pub pnode: Vec<u32>,
    pub locs: Vec<usize>,
    /// Service time at each position (0 at start and end).
    pub serv: Vec<Time>,
    /// Earliest service start (position 0: departure; `n + 1`: arrival at the end).
    pub es: Vec<Time>,
    /// Latest service start keeping the rest of the route feasible.
    pub ls: Vec<Time>,
    /// Load after each position `0..=n`, `dims` per position.
    pub loads: Vec<Load>,
    /// Maximum load over positions `0..=k`.
    pub pmax: Vec<Load>,
    /// Maximum load over positions `k..=n`.
    pub smax: Vec<Load>,
    pub travel: Time,
    pub cost: i64,
}

impl Route {
    /// An empty route of vehicle `v`.
    pub(crate) fn new(inst: &Instance, v: usize) -> Route {
        let mut r = Route {
            vehicle: v,
            nodes: Vec::new(),
            pnode: Vec::new(),
            locs: Vec::new(),
            serv: Vec::new(),
            es: Vec::new(),
            ls: Vec::new(),
            loads: Vec::new(),
            pmax: Vec::new(),
            smax: Vec::new(),
            travel: 0,
            cost: 0,
        };
        r.update(inst);
        r
    }

    /// Number of visits.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the route has no visit (the vehicle is unused).
    #[inline]
    pub(crate) fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Recomputes every cache from `nodes`.
    pub(crate) fn update(&mut self, inst: &Instance) {
        let vd = &inst.vehicles[self.vehicle];
        let n = self.nodes.len();
        let dims = inst.dims;
        self.pnode.clear();
        self.pnode.push(NONE);
        self.pnode.extend_from_slice(&self.nodes);
        self.pnode.push(NONE);
        self.locs.clear();
        self.locs.push(vd.start);
        self.locs
            .extend(self.nodes.iter().map(|&x| inst.loc[x as usize]));
        self.locs.push(vd.end);
        self.serv.clear();
        self.serv.push(0);
        self.serv
            .extend(self.nodes.iter().map(|&x| inst.service[x as usize]));
        self.serv.push(0);
        self.travel = 0;
        self.cost = 0;
        for k in 0..=n {
            self.travel += inst.tt(self.locs[k], self.locs[k + 1]);
            self.cost += inst.cost(self.locs[k], self.locs[k + 1]);
        }
        self.es.clear();
        self.es.push(vd.shift.start);
        for k in 1..=n {
            let arr = self.es[k - 1] + self.serv[k - 1] + inst.tt(self.locs[k - 1], self.locs[k]);
            self.es.push(inst.earliest(self.pnode[k] as usize, arr));
        }
        self.es
            .push(self.es[n] + self.serv[n] + inst.tt(self.locs[n], self.locs[n + 1]));
        self.ls.clear();
        self.ls.resize(n + 2, -INF);
        self.ls[n + 1] = vd.shift.end;
        for k in (1..=n).rev() {
            let bound = self.ls[k + 1] - inst.tt(self.locs[k], self.locs[k + 1]) - self.serv[k];
            self.ls[k] = inst.latest(self.pnode[k] as usize, bound);
        }
        self.ls[0] = (self.ls[1] - inst.tt(self.locs[0], self.locs[1])).min(vd.shift.end);
        self.loads.clear();
        self.loads.resize((n + 1) * dims, 0);
        for &x in &self.nodes {
            let (s, _) = inst.loads(x as usize);
            for (l, v) in self.loads[..dims].iter_mut().zip(s) {
                *l += v;
            }
        }
        for k in 1..=n {
            let (_, delta) = inst.loads(self.pnode[k] as usize);
            let (before, after) = self.loads.split_at_mut(k * dims);
            let prev = &before[(k - 1) * dims..];
            for ((l, p), v) in after[..dims].iter_mut().zip(prev).zip(delta) {
                *l = p + v;
            }
        }
        self.pmax.clone_from(&self.loads);
        for k in 1..=n {
            for d in 0..dims {
                let i = k * dims + d;
                self.pmax[i] = self.pmax[i].max(self.pmax[i - dims]);
            }
        }
        self.smax.clone_from(&self.loads);
        for k in (0..n).rev() {
            for d in 0..dims {
                let i = k * dims + d;
                self.smax[i] = self.smax[i].max(self.smax[i + dims]);
            }
        }
    }
}
