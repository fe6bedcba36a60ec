//! 2-opt*: exchange the tails of two routes, after visit `u` on one and its neighbour `v` on
//! the other, so that `u` is followed by what followed `v` and the reverse. Only between
//! vehicles ending at the same place, where the cost change is the four arcs at the cut; an
//! improving exchange is confirmed by a re-simulation of both routes (tails carry their loads,
//! shipments and breaks across vehicles, which the cached arrays of one route cannot decide).

use super::feasible;
use super::inter::{allowed, Change, InterMove, Pair};
use crate::solver::instance::Instance;
use crate::solver::state::State;

pub(super) struct TwoOptStar;

impl InterMove for TwoOptStar {
    fn candidate(&self, inst: &Instance, s: &State, p: &Pair) -> Option<Change> {
        let (ra, rb) = (&s.routes[p.a], &s.routes[p.b]);
        if inst.vehicles[ra.vehicle].end != inst.vehicles[rb.vehicle].end {
            return None;
        }
        let i = ra.nodes.iter().position(|&x| x == p.u)?;
        let j = rb.nodes.iter().position(|&x| x == p.v)?;
        let c = |x: usize, y: usize| inst.cost(x, y);
        let (lu, lv) = (inst.loc[p.u as usize], inst.loc[p.v as usize]);
        let after = |r: &crate::solver::route::Route, k: usize| match r.nodes.get(k + 1) {
            Some(&x) => inst.loc[x as usize],
            None => inst.vehicles[r.vehicle].end,
        };
        let (na, nb) = (after(ra, i), after(rb, j));
        let delta = c(lu, nb) + c(lv, na) - c(lu, na) - c(lv, nb);
        if delta >= 0 {
            return None;
        }
        let mut new_a = ra.nodes[..=i].to_vec();
        new_a.extend_from_slice(&rb.nodes[j + 1..]);
        let mut new_b = rb.nodes[..=j].to_vec();
        new_b.extend_from_slice(&ra.nodes[i + 1..]);
        let ok = allowed(inst, ra.vehicle, &new_a)
            && allowed(inst, rb.vehicle, &new_b)
            && feasible(inst, ra.vehicle, &new_a)
            && feasible(inst, rb.vehicle, &new_b);
        ok.then_some(Change {
            a: new_a,
            b: new_b,
            delta,
        })
    }
}
