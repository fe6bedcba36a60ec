//! Granular candidate lists: for each visit, the nearest other visits by symmetric arc cost.

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

    /// The nearest visits of `node`, nearest first.
    #[inline]
    pub(crate) fn of(&self, node: usize) -> &[u32] {
        &self.lists[node * self.k..(node + 1) * self.k]
    }
}
