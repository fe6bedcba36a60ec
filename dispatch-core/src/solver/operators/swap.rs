//! Swap: exchange a job's visit `u` with its neighbour `v`, a job's visit on another route,
//! each taking the other's place. Both routes are evaluated from their cached arrays in O(1)
//! ([`evaluate`] of one insertion beside one removal).

use super::edit::{edited, evaluate, position, Edit};
use super::inter::{is_job, Change, InterMove, Pair};
use crate::solver::instance::Instance;
use crate::solver::state::State;

pub(super) struct Swap;

impl InterMove for Swap {
    fn candidate(&self, inst: &Instance, s: &State, p: &Pair) -> Option<Change> {
        if !is_job(inst, p.u) || !is_job(inst, p.v) {
            return None;
        }
        let (ra, rb) = (&s.routes[p.a], &s.routes[p.b]);
        let (tu, tv) = (inst.node_task[p.u as usize], inst.node_task[p.v as usize]);
        if !inst.is_allowed(tv as usize, ra.vehicle) || !inst.is_allowed(tu as usize, rb.vehicle) {
            return None;
        }
        let (ku, kv) = (position(ra, p.u)?, position(rb, p.v)?);
        let c = |x: usize, y: usize| inst.cost(x, y);
        let (lu, lv) = (inst.loc[p.u as usize], inst.loc[p.v as usize]);
        // Cost first (the arcs around each visit), feasibility only for improving exchanges.
        let (pa, na) = (ra.locs[ku - 1], ra.nloc[ku + 1]);
        let (pb, nb) = (rb.locs[kv - 1], rb.nloc[kv + 1]);
        let estimate = c(pa, lv) + c(lv, na) - c(pa, lu) - c(lu, na) + c(pb, lu) + c(lu, nb)
            - c(pb, lv)
            - c(lv, nb);
        if estimate >= 0 {
            return None;
        }
        let ea = [
            Edit::Insert {
                after: ku - 1,
                node: p.v,
            },
            Edit::Remove(ku),
        ];
        let eb = [
            Edit::Insert {
                after: kv - 1,
                node: p.u,
            },
            Edit::Remove(kv),
        ];
        let delta = evaluate(inst, ra, &ea)? + evaluate(inst, rb, &eb)?;
        (delta < 0).then(|| Change {
            a: edited(ra, &ea),
            b: edited(rb, &eb),
            delta,
        })
    }
}
