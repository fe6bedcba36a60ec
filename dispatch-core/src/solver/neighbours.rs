//! Granular candidate lists: for each visit, the nearest other visits by symmetric arc cost, or
//! (for the time-window search) by a proximity that also counts waiting and lateness.

use super::instance::Instance;

/// Nearest visits of every visit, and each task's distance from the depot.
#[derive(Debug, Clone)]
pub(crate) struct Neighbours {
    k: usize,
    lists: Vec<u32>,
    /// Cost from the first vehicle's start to the task's first visit.
    pub far: Vec<i64>,
}

impl Neighbours {
    /// Up to `k` nearest neighbours per visit.
    pub(crate) fn new(inst: &Instance, k: usize) -> Neighbours {
        let n = inst.loc.len();
        let k = k.min(n.saturating_sub(1));
        let mut lists = Vec::with_capacity(n * k);
        let mut order: Vec<(i64, u32)> = Vec::with_capacity(n);
        for a in 0..n {
            order.clear();
            for b in 0..n {
                if b != a {
                    let (la, lb) = (inst.loc[a], inst.loc[b]);
                    order.push((inst.cost(la, lb) + inst.cost(lb, la), b as u32));
                }
            }
            if k < order.len() {
                order.select_nth_unstable(k);
                order.truncate(k);
            }
            order.sort_unstable();
            lists.extend(order.iter().map(|&(_, b)| b));
        }
        let depot = inst.vehicles.first().map_or(inst.ghost, |v| v.start);
        let far = inst
            .tasks
            .iter()
            .map(|t| {
                let l = inst.loc[t.first as usize];
                inst.cost(depot, l) + inst.cost(l, depot)
            })
            .collect();
        Neighbours { k, lists, far }
    }

    /// Up to `k` nearest neighbours per visit by the time-window proximity of Vidal et al.'s
    /// hybrid genetic search (2013): from `a` to `b`, the arc's cost plus a fifth of the least
    /// wait (leaving `a` as late as its window allows) plus the least lateness (leaving as
    /// early as it allows), time priced at the typical arc's cost per time unit; the lesser of
    /// the two directions. Two visits close in space but not in time are far apart: on tight
    /// windows, the moves between them could only make a route late. Only for problems whose
    /// visits have one window each (the time-warp search's, `super::warp::applies`).
    pub(crate) fn timed(inst: &Instance, k: usize) -> Neighbours {
        let mut out = Neighbours::new(inst, k);
        let n = inst.loc.len();
        let k = out.k;
        // Cost and time of the typical short arc: time is priced at `cost / time` per unit.
        let (mut cost, mut time) = (0i128, 0i128);
        for a in 0..n {
            for &b in out.of(a).iter().take(5) {
                let (la, lb) = (inst.loc[a], inst.loc[b as usize]);
                cost += inst.cost(la, lb) as i128;
                time += inst.tt(la, lb) as i128;
            }
        }
        let (cost, time) = (cost.max(1), time.max(1));
        // Scaled by `5 * time` to stay in integers.
        let one = |a: usize, b: usize| {
            let (la, lb) = (inst.loc[a], inst.loc[b]);
            let (wa, wb) = (inst.windows(a)[0], inst.windows(b)[0]);
            let travel = inst.tt(la, lb);
            let leave_late = wa.end.saturating_add(inst.service[a] + travel);
            let wait = (wb.start - leave_late).max(0) as i128;
            let late = (wa.start + inst.service[a] + travel - wb.end).max(0) as i128;
            5 * time * inst.cost(la, lb) as i128 + cost * (wait + 5 * late)
        };
        let mut lists = Vec::with_capacity(n * k);
        let mut order: Vec<(i128, u32)> = Vec::with_capacity(n);
        for a in 0..n {
            order.clear();
            for b in 0..n {
                if b != a {
                    order.push((one(a, b).min(one(b, a)), b as u32));
                }
            }
            if k < order.len() {
                order.select_nth_unstable(k);
                order.truncate(k);
            }
            order.sort_unstable();
            lists.extend(order.iter().map(|&(_, b)| b));
        }
        out.lists = lists;
        out
    }

    /// The nearest visits of `node`, nearest first.
    #[inline]
    pub(crate) fn of(&self, node: usize) -> &[u32] {
        &self.lists[node * self.k..(node + 1) * self.k]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;

    #[test]
    fn a_visit_near_in_space_but_not_in_time_is_far_for_the_time_window_lists() {
        let within = |id: u64, location: usize, start: i64, end: i64| {
            let mut j = job(id, location);
            j.place.time_windows = vec![TimeWindow { start, end }];
            j
        };
        // Location 2 is next to 1 but open 500 time units later; 3 is farther, open with 1.
        let p = Problem {
            name: "timed".into(),
            matrix: plane(&[(0, 0), (100, 0), (101, 0), (110, 0)]),
            jobs: vec![
                within(1, 1, 0, 10),
                within(2, 2, 500, 510),
                within(3, 3, 0, 30),
            ],
            shipments: vec![],
            vehicles: vec![vehicle(1, 5)],
            dimensions: 1,
            objective: Objective::Distance,
        };
        let inst = Instance::new(&p);
        let node = |location: usize| (0..inst.loc.len()).find(|&x| inst.loc[x] == location);
        let first = node(1).expect("a visit at location 1");
        let nearest = |nb: &Neighbours| inst.loc[nb.of(first)[0] as usize];
        assert_eq!(nearest(&Neighbours::new(&inst, 1)), 2);
        assert_eq!(nearest(&Neighbours::timed(&inst, 1)), 3);
    }
}
