//! A route that may be infeasible, with the segments of every prefix and suffix so that a move's
//! penalised cost comes in O(1) (moves within one route walk the part between their ends).

use super::segment::Segment;
use super::Penalties;
use crate::solver::instance::Instance;

/// One vehicle's visits and their segments. Positions: 0 is the start, `1..=n` the visits,
/// `n + 1` the end.
#[derive(Debug, Clone)]
pub(crate) struct WRoute {
    pub vehicle: usize,
    pub nodes: Vec<u32>,
    capacity: i64,
    /// `fwd[k]`: positions `0..=k`; `fwd[n + 1]` is the whole route.
    fwd: Vec<Segment>,
    /// `bwd[k]`: positions `k..=n + 1`.
    bwd: Vec<Segment>,
    /// Penalised cost of the whole route under the weights it was last priced with.
    pub pcost: i64,
}

impl WRoute {
    pub(crate) fn new(inst: &Instance, vehicle: usize, nodes: Vec<u32>, pen: &Penalties) -> WRoute {
        let mut r = WRoute {
            vehicle,
            nodes,
            capacity: inst.vehicles[vehicle].capacity[0],
            fwd: Vec::new(),
            bwd: Vec::new(),
            pcost: 0,
        };
        r.update(inst, pen);
        r
    }

    /// Recomputes the segments from `nodes`.
    pub(crate) fn update(&mut self, inst: &Instance, pen: &Penalties) {
        let n = self.nodes.len();
        self.fwd.clear();
        let mut s = Segment::depot(inst, self.vehicle, false);
        self.fwd.push(s);
        for &x in &self.nodes {
            s = s.then(inst, &Segment::visit(inst, x as usize));
            self.fwd.push(s);
        }
        self.fwd
            .push(s.then(inst, &Segment::depot(inst, self.vehicle, true)));
        self.bwd.clear();
        self.bwd.resize(n + 2, s);
        let mut s = Segment::depot(inst, self.vehicle, true);
        self.bwd[n + 1] = s;
        for k in (1..=n).rev() {
            s = Segment::visit(inst, self.nodes[k - 1] as usize).then(inst, &s);
            self.bwd[k] = s;
        }
        self.bwd[0] = Segment::depot(inst, self.vehicle, false).then(inst, &s);
        self.reprice(pen);
    }

    /// Prices the route under `pen`.
    pub(crate) fn reprice(&mut self, pen: &Penalties) {
        self.pcost = pen.cost(&self.fwd[self.nodes.len() + 1], self.capacity);
    }

    /// Number of visits.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// The whole route.
    #[inline]
    pub(crate) fn whole(&self) -> &Segment {
        &self.fwd[self.nodes.len() + 1]
    }

    /// Positions `0..=k`.
    #[inline]
    pub(crate) fn prefix(&self, k: usize) -> &Segment {
        &self.fwd[k]
    }

    /// Positions `k..=n + 1`.
    #[inline]
    pub(crate) fn suffix(&self, k: usize) -> &Segment {
        &self.bwd[k]
    }

    /// The visits at positions `from..=to` (empty when `to < from`) appended to `s`.
    #[inline]
    pub(crate) fn walk(&self, inst: &Instance, mut s: Segment, from: usize, to: usize) -> Segment {
        for k in from..=to {
            s = s.then(inst, &Segment::visit(inst, self.nodes[k - 1] as usize));
        }
        s
    }

    /// Penalised cost of a whole route of this vehicle described by `s`.
    #[inline]
    pub(crate) fn price(&self, s: &Segment, pen: &Penalties) -> i64 {
        pen.cost(s, self.capacity)
    }

    /// Location at position `k` (the vehicle's start at 0, its end at `n + 1`).
    #[inline]
    pub(crate) fn loc(&self, inst: &Instance, k: usize) -> usize {
        if k == 0 {
            inst.vehicles[self.vehicle].start
        } else if k > self.nodes.len() {
            inst.vehicles[self.vehicle].end
        } else {
            inst.loc[self.nodes[k - 1] as usize]
        }
    }

    /// The penalties in [`WRoute::pcost`]: no move can lower this route's cost by more than
    /// them plus what it saves in travel.
    #[inline]
    pub(crate) fn penalty(&self) -> i64 {
        self.pcost - self.whole().cost
    }

    /// Load above capacity at the route's peak.
    pub(crate) fn excess(&self) -> i64 {
        self.whole().excess(self.capacity)
    }

    /// Keeps every window, the shift and the capacity.
    pub(crate) fn feasible(&self) -> bool {
        self.whole().warp == 0 && self.excess() == 0
    }
}
