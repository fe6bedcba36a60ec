//! Swap: exchange a job's visit `u` with its neighbour `v`, a job's visit on another route,
//! each taking the other's place.

use super::inter::{is_job, loc_after, loc_before, InterMove, Pair};
use crate::solver::instance::Instance;
use crate::solver::state::State;

pub(super) struct Swap;

impl InterMove for Swap {
    fn candidate(&self, inst: &Instance, s: &State, p: &Pair) -> Option<(Vec<u32>, Vec<u32>)> {
        if !is_job(inst, p.u) || !is_job(inst, p.v) {
            return None;
        }
        let c = |x: usize, y: usize| inst.cost(x, y);
        let (lu, lv) = (inst.loc[p.u as usize], inst.loc[p.v as usize]);
        let (pa, na) = (loc_before(inst, s, p.a, p.i), loc_after(inst, s, p.a, p.i));
        let (pb, nb) = (loc_before(inst, s, p.b, p.j), loc_after(inst, s, p.b, p.j));
        let delta = c(pa, lv) + c(lv, na) - c(pa, lu) - c(lu, na) + c(pb, lu) + c(lu, nb)
            - c(pb, lv)
            - c(lv, nb);
        if delta >= 0 {
            return None;
        }
        let mut ra = s.routes[p.a].nodes.clone();
        let mut rb = s.routes[p.b].nodes.clone();
        ra[p.i] = p.v;
        rb[p.j] = p.u;
        Some((ra, rb))
    }
}
