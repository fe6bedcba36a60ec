//! 2-opt*: exchange the tails of two routes, after visit `u` on one and its neighbour `v` on
//! the other, so that `u` is followed by what followed `v` and the reverse. Only between
//! vehicles ending at the same place, where the cost change is the four arcs at the cut.

use super::inter::{loc_after, InterMove, Pair};
use crate::solver::instance::Instance;
use crate::solver::state::State;

pub(super) struct TwoOptStar;

impl InterMove for TwoOptStar {
    fn candidate(&self, inst: &Instance, s: &State, p: &Pair) -> Option<(Vec<u32>, Vec<u32>)> {
        let (ra, rb) = (&s.routes[p.a], &s.routes[p.b]);
        if inst.vehicles[ra.vehicle].end != inst.vehicles[rb.vehicle].end {
            return None;
        }
        let c = |x: usize, y: usize| inst.cost(x, y);
        let (lu, lv) = (inst.loc[p.u as usize], inst.loc[p.v as usize]);
        let (na, nb) = (loc_after(inst, s, p.a, p.i), loc_after(inst, s, p.b, p.j));
        let delta = c(lu, nb) + c(lv, na) - c(lu, na) - c(lv, nb);
        if delta >= 0 {
            return None;
        }
        let mut new_a = ra.nodes[..=p.i].to_vec();
        new_a.extend_from_slice(&rb.nodes[p.j + 1..]);
        let mut new_b = rb.nodes[..=p.j].to_vec();
        new_b.extend_from_slice(&ra.nodes[p.i + 1..]);
        Some((new_a, new_b))
    }
}
