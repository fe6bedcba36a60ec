//! Intra-route 2-opt: reverse the visits `i..=j` when that shortens the route.

use super::locations;
use crate::solver::constraint::feasible;
use crate::solver::instance::Instance;

/// Applies the first improving feasible reversal; true when one was found.
pub(super) fn improve(inst: &Instance, v: usize, nodes: &mut [u32]) -> bool {
    let n = nodes.len();
    let l = locations(inst, v, nodes);
    // fwd[k]: cost of the arcs l[0]..l[k] driven forwards; bwd[k]: the same arcs driven backwards.
    let mut fwd = vec![0i64; n + 2];
    let mut bwd = vec![0i64; n + 2];
    for k in 1..n + 2 {
        fwd[k] = fwd[k - 1] + inst.cost(l[k - 1], l[k]);
        bwd[k] = bwd[k - 1] + inst.cost(l[k], l[k - 1]);
    }
    // Positions in `l` are visit index + 1.
    for i in 1..n {
        for j in i + 1..=n {
            let old = inst.cost(l[i - 1], l[i]) + (fwd[j] - fwd[i]) + inst.cost(l[j], l[j + 1]);
            let new = inst.cost(l[i - 1], l[j]) + (bwd[j] - bwd[i]) + inst.cost(l[i], l[j + 1]);
            if new >= old {
                continue;
            }
            nodes[i - 1..j].reverse();
            if feasible(inst, v, nodes) {
                return true;
            }
            nodes[i - 1..j].reverse();
        }
    }
    false
}
