//! Relocate: take a task (a job's visit, or a shipment's two visits) out of its route and put it
//! at its cheapest feasible place in another route. The removal is evaluated from the route's
//! cached arrays ([`evaluate`]); the insertion is the construction's exact best insertion over
//! every position of the other route (O(1) per position).

use super::edit::{edited, evaluate, position, Edit};
use super::inter::{Change, InterMove, Pair};
use crate::solver::insertion::{best_insertion, inserted, Blink};
use crate::solver::instance::{Instance, NONE};
use crate::solver::rng::Rng;
use crate::solver::state::State;

pub(super) struct Relocate;

impl InterMove for Relocate {
    fn once_per_route(&self) -> bool {
        true
    }

    fn candidate(&self, inst: &Instance, s: &State, p: &Pair) -> Option<Change> {
        let t = inst.node_task[p.u as usize] as usize;
        let task = &inst.tasks[t];
        let (ra, rb) = (&s.routes[p.a], &s.routes[p.b]);
        if !inst.is_allowed(t, rb.vehicle) {
            return None;
        }
        let mut edits = vec![Edit::Remove(position(ra, task.first)?)];
        if task.second != NONE {
            edits.push(Edit::Remove(position(ra, task.second)?));
        }
        let gain = -evaluate(inst, ra, &edits)?;
        if gain <= 0 {
            return None;
        }
        // A zero blink rate never draws: the stream is only there for the signature.
        let mut rng = Rng::new(0, 0);
        let mut blink = Blink {
            rng: &mut rng,
            rate: 0.0,
        };
        let c = best_insertion(inst, rb, t, gain, &mut blink)?;
        Some(Change {
            a: edited(ra, &edits),
            b: inserted(inst, rb, t, c),
            delta: c.delta - gain,
        })
    }
}
