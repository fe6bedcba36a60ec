//! Intra-route or-opt: move a run of one to three consecutive visits elsewhere in the route
//! (order kept) when that shortens it.

use super::locations;
use crate::solver::constraint::feasible;
use crate::solver::instance::Instance;

/// Applies the first improving feasible move; true when one was found.
pub(super) fn improve(inst: &Instance, v: usize, nodes: &mut Vec<u32>) -> bool {
    let n = nodes.len();
    let l = locations(inst, v, nodes);
    let c = |a: usize, b: usize| inst.cost(l[a], l[b]);
    // The run occupies positions i..=i+len-1 of `l` (visit index + 1).
    for len in 1..=3.min(n - 1) {
        for i in 1..=n + 1 - len {
            let e = i + len - 1;
            let removal = c(i - 1, i) + c(e, e + 1) - c(i - 1, e + 1);
            // Insert between positions p and p + 1 (outside the run).
            for p in 0..=n {
                if p + 1 >= i && p <= e {
                    continue;
                }
                let gain = c(p, i) + c(e, p + 1) - c(p, p + 1);
                if gain >= removal {
                    continue;
                }
                let run: Vec<u32> = nodes[i - 1..e].to_vec();
                let mut cand: Vec<u32> = Vec::with_capacity(n);
                for (k, &x) in nodes.iter().enumerate() {
                    let pos = k + 1;
                    if pos >= i && pos <= e {
                        continue;
                    }
                    cand.push(x);
                    if pos == p {
                        cand.extend_from_slice(&run);
                    }
                }
                if p == 0 {
                    cand.splice(0..0, run.iter().copied());
                }
                if feasible(inst, v, &cand) {
                    *nodes = cand;
                    return true;
                }
            }
        }
    }
    false
}
