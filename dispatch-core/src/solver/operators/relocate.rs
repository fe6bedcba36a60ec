//! Relocate: move a job's visit `u` next to its neighbour `v` on another route (after it, or
//! before it).

use super::inter::{is_job, loc_after, loc_before, InterMove, Pair};
use crate::solver::instance::Instance;
use crate::solver::state::State;

pub(super) struct Relocate;

impl InterMove for Relocate {
    fn candidate(&self, inst: &Instance, s: &State, p: &Pair) -> Option<(Vec<u32>, Vec<u32>)> {
        if !is_job(inst, p.u) {
            return None;
        }
        let c = |x: usize, y: usize| inst.cost(x, y);
        let lu = inst.loc[p.u as usize];
        let lv = inst.loc[p.v as usize];
        let (pa, na) = (loc_before(inst, s, p.a, p.i), loc_after(inst, s, p.a, p.i));
        let gain = c(pa, lu) + c(lu, na) - c(pa, na);
        let after = {
            let nb = loc_after(inst, s, p.b, p.j);
            c(lv, lu) + c(lu, nb) - c(lv, nb)
        };
        let before = {
            let pb = loc_before(inst, s, p.b, p.j);
            c(pb, lu) + c(lu, lv) - c(pb, lv)
        };
        let (add, at) = if after <= before {
            (after, p.j + 1)
        } else {
            (before, p.j)
        };
        if add >= gain {
            return None;
        }
        let mut from = s.routes[p.a].nodes.clone();
        from.remove(p.i);
        let mut to = s.routes[p.b].nodes.clone();
        to.insert(at, p.u);
        Some((from, to))
    }
}
