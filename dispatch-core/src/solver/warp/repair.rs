//! The last step of a child: from penalised routes to a feasible [`State`]. A route still late or
//! overloaded after the penalised searches gives up, one at a time, the visit whose removal
//! lowers its penalised cost most until it keeps every constraint; the visits given up go back
//! by feasible cheapest insertion (the search's own, checked against every constraint), and a
//! visit that fits nowhere is left out, which the objective weighs above any routing cost.

use super::route::WRoute;
use super::Penalties;
use crate::solver::constraint::feasible;
use crate::solver::instance::Instance;
use crate::solver::neighbours::Neighbours;
use crate::solver::recreate::{complete, RecreateScratch};
use crate::solver::rng::Rng;
use crate::solver::state::State;

/// `routes` (route `r` on vehicle `r`) made feasible into `out`.
pub(crate) fn into_state(
    inst: &Instance,
    nb: &Neighbours,
    routes: &[WRoute],
    pen: &Penalties,
    rng: &mut Rng,
    scratch: &mut RecreateScratch,
    out: &mut State,
) {
    *out = State::empty(inst, &[]);
    let mut pending: Vec<u32> = Vec::new();
    for (r, w) in routes.iter().enumerate() {
        if w.len() == 0 {
            continue;
        }
        let mut w = w.clone();
        if !w.feasible() {
            w.update(inst, pen);
            shed(inst, &mut w, pen, &mut pending);
        }
        // The segments decide; the full simulation confirms, so that a route the segments
        // misjudged is rebuilt rather than kept.
        if !feasible(inst, w.vehicle, &w.nodes) {
            pending.extend(w.nodes.drain(..).map(|x| inst.node_task[x as usize]));
        }
        debug_assert_eq!(out.routes[r].vehicle, w.vehicle);
        out.set_nodes(inst, r, &w.nodes);
    }
    complete(inst, nb, out, &mut pending, rng, scratch);
}

/// Removes visits from `w` until it is feasible, the one whose removal lowers the penalised
/// cost most first; their tasks go to `pending`.
fn shed(inst: &Instance, w: &mut WRoute, pen: &Penalties, pending: &mut Vec<u32>) {
    while !w.feasible() && w.len() > 0 {
        let best = (1..=w.len())
            .min_by_key(|&k| w.price(&w.prefix(k - 1).then(inst, w.suffix(k + 1)), pen))
            .expect("a visit");
        let x = w.nodes.remove(best - 1);
        pending.push(inst.node_task[x as usize]);
        w.update(inst, pen);
    }
}
