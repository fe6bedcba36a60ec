//! The fast paths of [`Route::update`]: vehicles without breaks and one load dimension (the
//! classic benchmarks, and most of every search's time).

use super::{is_break, Route};
use crate::solver::constraint::windows::{earliest, latest_in};
use crate::solver::instance::{Instance, INF, NONE};
use crate::solver::problem::Load;

impl Route {
    /// [`Route::update`] for a vehicle without breaks: positions are the visits, so the next
    /// visit's location is the position's own and the gap after a position is one arc. One
    /// forward and one backward pass over preallocated arrays (the search's hottest loop).
    pub(super) fn update_plain(&mut self, inst: &Instance) {
        let vd = &inst.vehicles[self.vehicle];
        let n = self.nodes.len();
        let len = n + 2;
        self.pnode.clear();
        self.pnode.push(NONE);
        self.pnode.extend_from_slice(&self.nodes);
        self.pnode.push(NONE);
        for v in [&mut self.locs, &mut self.nloc, &mut self.nidx] {
            v.resize(len, 0);
        }
        for v in [&mut self.busy, &mut self.es, &mut self.ls, &mut self.ld] {
            v.resize(len, 0);
        }
        self.gap_tt.resize(len - 1, 0);
        self.gap_cost.resize(len - 1, 0);
        self.locs[0] = vd.start;
        self.busy[0] = 0;
        self.es[0] = vd.shift.start;
        self.nidx[0] = 0;
        let (mut travel, mut cost) = (0, 0);
        let mut prev = vd.start;
        let mut depart = vd.shift.start;
        // Zipped slices instead of indices: no bounds checks in the loop.
        let visits = self
            .nodes
            .iter()
            .zip(&mut self.gap_tt[..n])
            .zip(&mut self.gap_cost[..n]);
        let at = self.locs[1..=n]
            .iter_mut()
            .zip(&mut self.nidx[1..=n])
            .zip(&mut self.busy[1..=n])
            .zip(&mut self.es[1..=n]);
        for (k, (((&x, gap_tt), gap_cost), (((loc, nidx), busy_at), es_at))) in
            visits.zip(at).enumerate()
        {
            let x = x as usize;
            let l = inst.loc[x];
            let (tt, c) = (inst.tt(prev, l), inst.cost(prev, l));
            travel += tt;
            cost += c;
            *gap_tt = tt;
            *gap_cost = c;
            let busy = if l != prev { inst.setup[x] } else { 0 } + inst.service[x];
            let es = earliest(inst, x, depart + tt);
            *loc = l;
            *nidx = k + 1;
            *busy_at = busy;
            *es_at = es;
            depart = es + busy;
            prev = l;
        }
        let (tt, c) = (inst.tt(prev, vd.end), inst.cost(prev, vd.end));
        self.travel = travel + tt;
        self.cost = cost + c;
        self.gap_tt[n] = tt;
        self.gap_cost[n] = c;
        self.locs[n + 1] = vd.end;
        self.nidx[n + 1] = n;
        self.busy[n + 1] = 0;
        self.es[n + 1] = depart + tt;
        self.nloc.copy_from_slice(&self.locs);
        self.ld[n + 1] = vd.shift.end;
        self.ls[n + 1] = vd.shift.end;
        let mut latest_next = vd.shift.end;
        let back = self
            .nodes
            .iter()
            .zip(&self.gap_tt[1..=n])
            .zip(&self.busy[1..=n]);
        let out = self.ld[1..=n].iter_mut().zip(&mut self.ls[1..=n]);
        for (((&x, &leg), &busy), (ld, ls)) in back.zip(out).rev() {
            *ld = latest_next - leg;
            latest_next = latest_in(inst.windows(x as usize), *ld - busy);
            *ls = latest_next;
        }
        self.ld[0] = (latest_next - self.gap_tt[0]).min(vd.shift.end);
        self.ls[0] = -INF;
        self.update_loads(inst);
    }

    /// [`Route::update_loads`] for one load dimension (the classic benchmarks): plain scalar
    /// passes.
    pub(super) fn update_loads_1(&mut self, inst: &Instance) {
        let m = self.elements();
        let mut load: Load = self
            .nodes
            .iter()
            .map(|&x| inst.start_load[x as usize])
            .sum();
        self.loads.resize(m + 1, 0);
        self.pmax.resize(m + 1, 0);
        self.smax.resize(m + 1, 0);
        self.starts.resize(m + 1, 0);
        self.loads[0] = load;
        self.starts[0] = 0;
        let mut started: Load = 0;
        let mut max = load;
        self.pmax[0] = max;
        for k in 1..=m {
            let x = self.pnode[k];
            if !is_break(x) {
                load += inst.delta[x as usize];
                started += inst.start_load[x as usize];
            }
            self.loads[k] = load;
            self.starts[k] = started;
            max = max.max(load);
            self.pmax[k] = max;
        }
        let mut max = Load::MIN;
        for k in (0..=m).rev() {
            max = max.max(self.loads[k]);
            self.smax[k] = max;
        }
    }
}
