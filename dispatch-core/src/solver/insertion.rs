//! Cheapest feasible insertion of one task into one route. On fast vehicles (no duration limit)
//! every position is checked in O(1) from the route's caches, set-up times and breaks included
//! (a shipment's delivery positions extend the middle segment incrementally); on the others each
//! candidate is re-simulated.

use super::constraint::schedule::simulate;
use super::constraint::windows::{depart, depart_after};
use super::constraint::{breaks, limits};
use super::instance::{Instance, INF, NONE};
use super::problem::Time;
use super::rng::Rng;
use super::route::{is_break, Route};

/// Where to insert: the first visit after position `i`, the second (shipments) after original
/// position `j >= i` (positions of the route's elements, breaks included); `delta` is the change
/// of routing cost.
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
    if !limits::tasks_fit(vd, r.len() + extra) {
        return None;
    }
    // An empty route holds no break yet, so its cached arrays would judge a first task without
    // the breaks the vehicle then takes: simulate its single candidate instead. (The pre-check
    // has simulated every task alone on the vehicles it allows, but a caller need not rely on it.)
    let fast = vd.fast && (!r.is_empty() || vd.breaks.is_empty());
    let found = search(inst, r, task, bound, blink, fast)?;
    // With several breaks the cached arrays assume the breaks stay where they are, while the
    // simulation re-places them one by one: confirm, and fall back to exact checks if needed.
    if fast && breaks::may_move(vd) && !simulates(inst, r, &inserts(r, t, found)) {
        return search(inst, r, task, bound, blink, false);
    }
    Some(found)
}

fn search(
    inst: &Instance,
    r: &Route,
    task: usize,
    bound: i64,
    blink: &mut Blink,
    fast: bool,
) -> Option<Cand> {
    let t = &inst.tasks[task];
    let mut best = Cand {
        delta: bound,
        i: 0,
        j: 0,
    };
    if t.second == NONE {
        job(inst, r, t.first as usize, &mut best, blink, fast);
    } else {
        let (p, d) = (t.first as usize, t.second as usize);
        shipment(inst, r, p, d, &mut best, blink, fast);
    }
    (best.delta < bound).then_some(best)
}

/// The insertions of a candidate as (index into `nodes`, node), in order.
fn inserts(r: &Route, t: &super::instance::Task, c: Cand) -> Vec<(usize, u32)> {
    if t.second == NONE {
        vec![(r.nidx[c.i], t.first)]
    } else {
        vec![(r.nidx[c.i], t.first), (r.nidx[c.j], t.second)]
    }
}

fn job(inst: &Instance, r: &Route, node: usize, best: &mut Cand, blink: &mut Blink, fast: bool) {
    let vd = &inst.vehicles[r.vehicle];
    let (sl, dl) = inst.loads(node);
    let loads = r.load_caches(inst);
    let l = inst.loc[node];
    let span = Span::of(inst, node);
    for i in span.first(r)..span.end(r) {
        if !fast && i > 0 && is_break(r.pnode[i]) {
            continue;
        }
        let (a, b) = (r.locs[i], r.nloc[i + 1]);
        // Both arcs from the visit's row where the matrix allows (one row for every position).
        let ((tt_in, cost_in), (tt_out, cost_out)) = (inst.arc_to(a, l), inst.arc(l, b));
        let delta = cost_in + cost_out - r.gap_cost[i];
        if delta >= best.delta {
            continue;
        }
        if !loads.fits_visit(i, sl, dl) {
            continue;
        }
        let dt = tt_in + tt_out - r.gap_tt[i];
        if !limits::travel_fits(vd, r.travel + dt) {
            continue;
        }
        if fast {
            let t = depart_after(inst, node, a, r.es[i] + r.busy[i], tt_in);
            if !t.is_some_and(|t| r.fits_from(inst, i + 1, t, l)) {
                continue;
            }
        } else if !simulates(inst, r, &[(r.nidx[i], node as u32)]) {
            continue;
        }
        if blink.skip() {
            continue;
        }
        *best = Cand { delta, i, j: i };
    }
}

/// Bounds of a visit's windows that rule positions out without a matrix look-up (on big days the
/// look-ups are cache misses): departures (`es + busy`) and latest departures (`ld`) never
/// decrease along a route, so the candidate positions are one range.
struct Span {
    /// The last window's end: no service can start later.
    close: Time,
    /// The earliest end of service: the first window's start plus the service time.
    done: Time,
}

impl Span {
    fn of(inst: &Instance, node: usize) -> Span {
        let w = inst.windows(node);
        Span {
            close: w.last().map_or(INF, |w| w.end),
            done: w.first().map_or(0, |w| w.start) + inst.service[node],
        }
    }

    /// The first position the visit can follow: before it, the visit cannot be done by the
    /// latest departure of the next element (a break's latest departure assumes the leg after
    /// it unchanged, so a break ends the skip).
    fn first(&self, r: &Route) -> usize {
        let m = r.elements();
        (0..=m)
            .find(|&i| self.done <= r.ld[i + 1] || is_break(r.pnode[i + 1]))
            .unwrap_or(m + 1)
    }

    /// One past the last position the visit can follow: leaving a later position is after the
    /// visit's last window closes (departures never decrease along a route).
    fn end(&self, r: &Route) -> usize {
        let (mut lo, mut hi) = (0, r.elements() + 1);
        while lo < hi {
            let mid = (lo + hi) / 2;
            if r.es[mid] + r.busy[mid] <= self.close {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

fn shipment(
    inst: &Instance,
    r: &Route,
    p: usize,
    d: usize,
    best: &mut Cand,
    blink: &mut Blink,
    fast: bool,
) {
    let vd = &inst.vehicles[r.vehicle];
    let (_, amount) = inst.loads(p);
    let (lp, ld) = (inst.loc[p], inst.loc[d]);
    let loads = r.load_caches(inst);
    let over = |k: usize| !loads.carries(k, amount);
    let m = r.elements();
    let (span_p, span_d) = (Span::of(inst, p), Span::of(inst, d));
    let (end_p, end_d) = (span_p.end(r), span_d.end(r));
    for i in span_p.first(r)..end_p.min(end_d) {
        let (a, b) = (r.locs[i], r.nloc[i + 1]);
        if over(i) || (!fast && i > 0 && is_break(r.pnode[i])) {
            continue;
        }
        let tp = if fast {
            let Some(tp) = depart(inst, p, a, r.es[i] + r.busy[i]) else {
                continue;
            };
            tp
        } else {
            0
        };
        // Pickup and delivery next to each other.
        let adjacent = inst.cost(a, lp) + inst.cost(lp, ld) + inst.cost(ld, b) - inst.cost(a, b);
        let adjacent_tt = inst.tt(a, lp) + inst.tt(lp, ld) + inst.tt(ld, b) - inst.tt(a, b);
        if adjacent < best.delta && limits::travel_fits(vd, r.travel + adjacent_tt) {
            let ok = if fast {
                depart(inst, d, lp, tp).is_some_and(|td| r.fits_from(inst, i + 1, td, ld))
            } else {
                simulates(inst, r, &[(r.nidx[i], p as u32), (r.nidx[i], d as u32)])
            };
            if ok && !blink.skip() {
                *best = Cand {
                    delta: adjacent,
                    i,
                    j: i,
                };
            }
        }
        if i == m {
            break;
        }
        let dp = inst.cost(a, lp) + inst.cost(lp, b) - r.gap_cost[i];
        let dtp = inst.tt(a, lp) + inst.tt(lp, b) - r.gap_tt[i];
        // Departure from position j (and the location there) with the pickup after i.
        let (mut t, mut prev) = (tp, lp);
        for j in i + 1..=m {
            // The pickup before it delays position j (up to detours shorter than the arc).
            if over(j) || j >= end_d {
                break;
            }
            let x = r.pnode[j];
            if fast {
                if is_break(x) {
                    let Some(next) = r.leave_break(inst, j, t) else {
                        break;
                    };
                    t = next;
                } else {
                    let Some(next) = depart(inst, x as usize, prev, t) else {
                        break;
                    };
                    t = next;
                    prev = r.locs[j];
                }
                // Past the latest departure the rest cannot be kept (valid where the location
                // before position j is the original one).
                if prev == r.locs[j] && t > r.ld[j] {
                    break;
                }
            } else if is_break(x) {
                continue;
            }
            let (delta, dt) = if r.nidx[j] == r.nidx[i] {
                (adjacent, adjacent_tt)
            } else {
                let (c, e) = (r.locs[j], r.nloc[j + 1]);
                (
                    dp + inst.cost(c, ld) + inst.cost(ld, e) - r.gap_cost[j],
                    dtp + inst.tt(c, ld) + inst.tt(ld, e) - r.gap_tt[j],
                )
            };
            if delta >= best.delta || !limits::travel_fits(vd, r.travel + dt) {
                continue;
            }
            let ok = if fast {
                depart(inst, d, prev, t).is_some_and(|td| r.fits_from(inst, j + 1, td, ld))
            } else {
                simulates(inst, r, &[(r.nidx[i], p as u32), (r.nidx[j], d as u32)])
            };
            if ok && !blink.skip() {
                *best = Cand { delta, i, j };
            }
        }
    }
}

/// Re-simulates the route with `inserts` (node before index into `nodes`, in order) applied.
fn simulates(inst: &Instance, r: &Route, inserts: &[(usize, u32)]) -> bool {
    let mut seq = Vec::with_capacity(r.len() + inserts.len());
    let mut k = 0;
    for pos in 0..=r.len() {
        while k < inserts.len() && inserts[k].0 == pos {
            seq.push(inserts[k].1);
            k += 1;
        }
        if pos < r.len() {
            seq.push(r.nodes[pos]);
        }
    }
    simulate(inst, r.vehicle, &seq, None).is_ok()
}

/// Applies a candidate to the route's visit list (caches are refreshed by the caller).
pub(crate) fn apply(inst: &Instance, r: &mut Route, task: usize, c: Cand) {
    let mut nodes = std::mem::take(&mut r.nodes);
    insert_into(inst, r, &mut nodes, task, c);
    r.nodes = nodes;
}

/// The route's visit list with a candidate applied.
pub(crate) fn inserted(inst: &Instance, r: &Route, task: usize, c: Cand) -> Vec<u32> {
    let mut nodes = Vec::with_capacity(r.len() + 2);
    nodes.extend_from_slice(&r.nodes);
    insert_into(inst, r, &mut nodes, task, c);
    nodes
}

fn insert_into(inst: &Instance, r: &Route, nodes: &mut Vec<u32>, task: usize, c: Cand) {
    let t = &inst.tasks[task];
    let (i, j) = (r.nidx[c.i], r.nidx[c.j]);
    if t.second != NONE {
        nodes.insert(j, t.second);
    }
    nodes.insert(i, t.first);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;
    use crate::solver::route::Route;

    /// Found with the property test's seed 6709509447002899606 when tasks that fit no vehicle
    /// alone were allowed in the search: the construction opened a vehicle with one that
    /// missed the vehicle's break, as the empty route's arrays hold no break.
    #[test]
    fn the_first_task_on_an_empty_route_is_checked_with_the_vehicles_break() {
        // A job 10 away with 10 of service; the shift ends at 40 and a 15-minute break must
        // start by 5: 10 + 10 + 10 + 15 = 45 > 40 with the break, 30 without.
        let mut j = job(1, 1);
        j.place.service = 10;
        let p = Problem {
            name: "break".into(),
            matrix: plane(&[(0, 0), (10, 0)]),
            jobs: vec![j],
            shipments: vec![],
            vehicles: vec![Vehicle {
                shift: TimeWindow { start: 0, end: 40 },
                breaks: vec![Break {
                    id: 9,
                    time_windows: vec![TimeWindow { start: 0, end: 5 }],
                    service: 15,
                }],
                ..vehicle(1, 5)
            }],
            dimensions: 1,
            objective: Objective::Duration,
        };
        let mut inst = Instance::new(&p);
        // Allowed whatever the pre-check would say: the insertion must judge it by itself.
        inst.allowed[0] = true;
        assert!(inst.vehicles[0].fast);
        let r = Route::new(&inst, 0);
        let mut rng = Rng::new(1, 0);
        let mut blink = Blink {
            rng: &mut rng,
            rate: 0.0,
        };
        assert!(best_insertion(&inst, &r, 0, i64::MAX, &mut blink).is_none());
        assert!(simulate(&inst, 0, &[0], None).is_err());
    }
}
