//! Cheapest feasible insertion of one task into one route. On fast vehicles every position is
//! checked in O(1) from the route's caches (a shipment's delivery positions extend the middle
//! segment incrementally); on the others each candidate is re-simulated.

use super::instance::{Instance, INF, NONE};
use super::rng::Rng;
use super::route::Route;
use super::schedule::simulate;

/// Where to insert: the first visit after position `i`, the second (shipments) after original
/// position `j >= i`; `delta` is the change of routing cost.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cand {
    pub delta: i64,
    pub i: usize,
    pub j: usize,
}

/// Blinking: each otherwise-better candidate is skipped with this probability.
pub(crate) struct Blink<'a> {
    pub rng: &'a mut Rng,
    pub rate: f64,
}

impl Blink<'_> {
    #[inline]
    fn skip(&mut self) -> bool {
        self.rate > 0.0 && self.rng.unit() < self.rate
    }
}

/// The cheapest insertion of `task` into `r` costing less than `bound`.
pub(crate) fn best_insertion(
    inst: &Instance,
    r: &Route,
    task: usize,
    bound: i64,
    blink: &mut Blink,
) -> Option<Cand> {
    let t = &inst.tasks[task];
    let vd = &inst.vehicles[r.vehicle];
    let extra = if t.second == NONE { 1 } else { 2 };
    if r.len() + extra > vd.max_tasks {
        return None;
    }
    let mut best = Cand {
        delta: bound,
        i: 0,
        j: 0,
    };
    if t.second == NONE {
        job(inst, r, t.first as usize, &mut best, blink);
    } else {
        shipment(
            inst,
            r,
            t.first as usize,
            t.second as usize,
            &mut best,
            blink,
        );
    }
    (best.delta < bound).then_some(best)
}

fn job(inst: &Instance, r: &Route, node: usize, best: &mut Cand, blink: &mut Blink) {
    let vd = &inst.vehicles[r.vehicle];
    let dims = inst.dims;
    let (sl, dl) = inst.loads(node);
    let l = inst.loc[node];
    let n = r.len();
    for i in 0..=n {
        let (a, b) = (r.locs[i], r.locs[i + 1]);
        let delta = inst.cost(a, l) + inst.cost(l, b) - inst.cost(a, b);
        if delta >= best.delta {
            continue;
        }
        let cap = &vd.capacity;
        if (0..dims).any(|d| {
            r.pmax[i * dims + d] + sl[d] > cap[d] || r.smax[i * dims + d] + sl[d] + dl[d] > cap[d]
        }) {
            continue;
        }
        let dt = inst.tt(a, l) + inst.tt(l, b) - inst.tt(a, b);
        if r.travel + dt > vd.max_travel {
            continue;
        }
        if vd.fast {
            let s = inst.earliest(node, r.es[i] + r.serv[i] + inst.tt(a, l));
            if s >= INF || s + inst.service[node] + inst.tt(l, b) > r.ls[i + 1] {
                continue;
            }
        } else if !simulates(inst, r, &[(i, node as u32)]) {
            continue;
        }
        if blink.skip() {
            continue;
        }
        *best = Cand { delta, i, j: i };
    }
}

fn shipment(inst: &Instance, r: &Route, p: usize, d: usize, best: &mut Cand, blink: &mut Blink) {
    let vd = &inst.vehicles[r.vehicle];
    let dims = inst.dims;
    let (_, amount) = inst.loads(p);
    let (lp, ld) = (inst.loc[p], inst.loc[d]);
    let (sp_serv, sd_serv) = (inst.service[p], inst.service[d]);
    let cap = &vd.capacity;
    let over = |k: usize| (0..dims).any(|x| r.loads[k * dims + x] + amount[x] > cap[x]);
    let n = r.len();
    for i in 0..=n {
        let (a, b) = (r.locs[i], r.locs[i + 1]);
        if over(i) {
            continue;
        }
        let sp = if vd.fast {
            let sp = inst.earliest(p, r.es[i] + r.serv[i] + inst.tt(a, lp));
            if sp >= INF {
                continue;
            }
            sp
        } else {
            0
        };
        // Pickup and delivery next to each other.
        let delta = inst.cost(a, lp) + inst.cost(lp, ld) + inst.cost(ld, b) - inst.cost(a, b);
        if delta < best.delta {
            let dt = inst.tt(a, lp) + inst.tt(lp, ld) + inst.tt(ld, b) - inst.tt(a, b);
            let ok = r.travel + dt <= vd.max_travel
                && if vd.fast {
                    let sd = inst.earliest(d, sp + sp_serv + inst.tt(lp, ld));
                    sd < INF && sd + sd_serv + inst.tt(ld, b) <= r.ls[i + 1]
                } else {
                    simulates(inst, r, &[(i, p as u32), (i, d as u32)])
                };
            if ok && !blink.skip() {
                *best = Cand { delta, i, j: i };
            }
        }
        if i == n {
            break;
        }
        let dp = inst.cost(a, lp) + inst.cost(lp, b) - inst.cost(a, b);
        let tp = inst.tt(a, lp) + inst.tt(lp, b) - inst.tt(a, b);
        // Earliest start at position j with the pickup inserted after i.
        let mut t = if vd.fast {
            let t = inst.earliest(r.pnode[i + 1] as usize, sp + sp_serv + inst.tt(lp, b));
            if t > r.ls[i + 1] {
                continue;
            }
            t
        } else {
            0
        };
        for j in i + 1..=n {
            if over(j) {
                break;
            }
            let (c, e) = (r.locs[j], r.locs[j + 1]);
            let delta = dp + inst.cost(c, ld) + inst.cost(ld, e) - inst.cost(c, e);
            if delta < best.delta {
                let dt = tp + inst.tt(c, ld) + inst.tt(ld, e) - inst.tt(c, e);
                let ok = r.travel + dt <= vd.max_travel
                    && if vd.fast {
                        let sd = inst.earliest(d, t + r.serv[j] + inst.tt(c, ld));
                        sd < INF && sd + sd_serv + inst.tt(ld, e) <= r.ls[j + 1]
                    } else {
                        simulates(inst, r, &[(i, p as u32), (j, d as u32)])
                    };
                if ok && !blink.skip() {
                    *best = Cand { delta, i, j };
                }
            }
            if vd.fast && j < n {
                t = inst.earliest(r.pnode[j + 1] as usize, t + r.serv[j] + inst.tt(c, e));
                if t > r.ls[j + 1] {
                    break;
                }
            }
        }
    }
}

/// Re-simulates the route with `inserts` (node after original position, in order) applied.
fn simulates(inst: &Instance, r: &Route, inserts: &[(usize, u32)]) -> bool {
    let mut seq = Vec::with_capacity(r.len() + inserts.len());
    let mut k = 0;
    for pos in 0..=r.len() {
        if pos > 0 {
            seq.push(r.nodes[pos - 1]);
        }
        while k < inserts.len() && inserts[k].0 == pos {
            seq.push(inserts[k].1);
            k += 1;
        }
    }
    simulate(inst, r.vehicle, &seq, None).is_some()
}

/// Applies a candidate to the route's visit list (caches are refreshed by the caller).
pub(crate) fn apply(inst: &Instance, r: &mut Route, task: usize, c: Cand) {
    let t = &inst.tasks[task];
    if t.second != NONE {
        r.nodes.insert(c.j, t.second);
    }
    r.nodes.insert(c.i, t.first);
}
