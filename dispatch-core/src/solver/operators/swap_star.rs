//! SWAP* (Vidal 2022): exchange a job `u` of route A with a job `v` of route B, each going to
//! its best place in the other route, not necessarily the other's old place. For every pair
//! the cost is O(1): the three cheapest insertion gaps of each visit into the other route are
//! computed once per route pair (a gap next to the removed visit disappears with it, so three
//! suffice), beside the old place. The cheapest improving exchanges are then checked for
//! feasibility from the routes' cached arrays ([`evaluate`]), best first. Route pairs are those
//! whose visits are granular neighbours.

use super::edit::{edited, evaluate, Edit};
use super::inter::{apply, is_job, Change, GRANULAR};
use crate::solver::instance::{Instance, NONE};
use crate::solver::neighbours::Neighbours;
use crate::solver::route::{is_break, Route};
use crate::solver::state::State;

/// Improving exchanges checked for feasibility per route pair, cheapest first.
const TRIES: usize = 8;

/// The three cheapest gaps (position after which to insert, cost) of a visit into a route.
type Top3 = [(usize, i64); 3];

/// Runs SWAP* between route `a` and each route holding a neighbour of one of its visits;
/// returns the route pairs changed.
pub(super) fn improve_route(
    inst: &Instance,
    nb: &Neighbours,
    s: &mut State,
    a: usize,
) -> Vec<(usize, usize)> {
    let mut others: Vec<usize> = Vec::new();
    for &u in &s.routes[a].nodes {
        for &v in nb.of(u as usize).iter().take(GRANULAR) {
            let r = s.route_of[inst.node_task[v as usize] as usize];
            if r != NONE && r as usize != a && !others.contains(&(r as usize)) {
                others.push(r as usize);
            }
        }
    }
    others.sort_unstable();
    let mut changed = Vec::new();
    for b in others {
        if s.routes[a].is_empty() || s.routes[b].is_empty() {
            continue;
        }
        if let Some(change) = best(inst, &s.routes[a], &s.routes[b]) {
            apply(inst, s, a, b, change);
            changed.push((a, b));
        }
    }
    changed
}

/// Cost of inserting location `l` in the gap after position `g`.
#[inline]
fn gap_cost(inst: &Instance, r: &Route, g: usize, l: usize) -> i64 {
    inst.cost(r.locs[g], l) + inst.cost(l, r.nloc[g + 1]) - r.gap_cost[g]
}

fn top3(inst: &Instance, r: &Route, l: usize) -> Top3 {
    let mut top = [(usize::MAX, i64::MAX); 3];
    for g in 0..=r.elements() {
        let c = gap_cost(inst, r, g, l);
        if c < top[2].1 {
            top[2] = (g, c);
            top.sort_by_key(|x| x.1);
        }
    }
    top
}

/// Job visits of a route with their positions and removal gains.
fn visits(inst: &Instance, r: &Route) -> Vec<(usize, u32, i64)> {
    (1..=r.elements())
        .filter(|&k| !is_break(r.pnode[k]) && is_job(inst, r.pnode[k]))
        .map(|k| {
            let l = r.locs[k];
            let gain = inst.cost(r.locs[k - 1], l) + inst.cost(l, r.nloc[k + 1])
                - inst.cost(r.locs[k - 1], r.nloc[k + 1]);
            (k, r.pnode[k], gain)
        })
        .collect()
}

/// The cheapest way to put `x` into route `r` in place of the visit at position `k`: at `k`'s
/// place or in one of the top gaps not next to it. Returns (gap, cost with `k` removed).
fn place(inst: &Instance, r: &Route, k: usize, x: u32, top: &Top3) -> (usize, i64) {
    let l = inst.loc[x as usize];
    let here = inst.cost(r.locs[k - 1], l) + inst.cost(l, r.nloc[k + 1])
        - inst.cost(r.locs[k - 1], r.nloc[k + 1]);
    let mut best = (k - 1, here);
    for &(g, c) in top {
        if g != usize::MAX && g != k - 1 && g != k && c < best.1 {
            best = (g, c);
        }
    }
    best
}

/// Edits of route `r`: the visit at `k` out, `x` in after gap `g` (`g == k - 1`: in its place).
fn edits(k: usize, g: usize, x: u32) -> [Edit; 2] {
    let ins = Edit::Insert { after: g, node: x };
    if g < k {
        [ins, Edit::Remove(k)]
    } else {
        [Edit::Remove(k), ins]
    }
}

/// The best feasible improving SWAP* between two routes.
fn best(inst: &Instance, ra: &Route, rb: &Route) -> Option<Change> {
    let (va, vb) = (visits(inst, ra), visits(inst, rb));
    let allowed =
        |x: u32, r: &Route| inst.is_allowed(inst.node_task[x as usize] as usize, r.vehicle);
    let into_a: Vec<Option<Top3>> = vb
        .iter()
        .map(|&(_, v, _)| allowed(v, ra).then(|| top3(inst, ra, inst.loc[v as usize])))
        .collect();
    let into_b: Vec<Option<Top3>> = va
        .iter()
        .map(|&(_, u, _)| allowed(u, rb).then(|| top3(inst, rb, inst.loc[u as usize])))
        .collect();
    // (estimated delta, index in va, gap in a, index in vb, gap in b)
    let mut cands: Vec<(i64, usize, usize, usize, usize)> = Vec::new();
    for (i, &(ku, u, gain_u)) in va.iter().enumerate() {
        let Some(tu) = &into_b[i] else { continue };
        for (j, &(kv, v, gain_v)) in vb.iter().enumerate() {
            let Some(tv) = &into_a[j] else { continue };
            let (ga, ca) = place(inst, ra, ku, v, tv);
            let (gb, cb) = place(inst, rb, kv, u, tu);
            let delta = ca + cb - gain_u - gain_v;
            if delta < 0 {
                cands.push((delta, i, ga, j, gb));
            }
        }
    }
    cands.sort_unstable();
    for &(_, i, ga, j, gb) in cands.iter().take(TRIES) {
        let (ku, u, _) = va[i];
        let (kv, v, _) = vb[j];
        let (ea, eb) = (edits(ku, ga, v), edits(kv, gb, u));
        let (Some(da), Some(db)) = (evaluate(inst, ra, &ea), evaluate(inst, rb, &eb)) else {
            continue;
        };
        if da + db < 0 {
            return Some(Change {
                a: edited(ra, &ea),
                b: edited(rb, &eb),
                delta: da + db,
            });
        }
    }
    None
}
