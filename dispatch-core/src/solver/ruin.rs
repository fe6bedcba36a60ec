//! SISR ruin: remove a few strings (runs of consecutive visits), possibly split, from routes
//! near a random seed visit (Christiaens & Vanden Berghe, "Slack Induction by String Removals").

use super::constraint::schedule::simulate;
use super::constraint::{limits, windows};
use super::instance::{Instance, NONE};
use super::neighbours::Neighbours;
use super::rng::Rng;
use super::route::Route;
use super::state::State;

/// Ruin parameters.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuinParams {
    /// Average number of removed visits.
    pub avg_removed: f64,
    /// Longest string.
    pub max_string: f64,
    /// Probability of the split-string variant.
    pub split_rate: f64,
}

/// Removes strings and appends the removed tasks to `removed`. `marks` is scratch space
/// (one flag per node, all false on entry and on exit).
pub(crate) fn ruin(
    inst: &Instance,
    s: &mut State,
    nb: &Neighbours,
    p: RuinParams,
    rng: &mut Rng,
    marks: &mut [bool],
    removed: &mut Vec<u32>,
) {
    let (mut visits, mut used) = (0usize, 0usize);
    for r in &s.routes {
        if !r.is_empty() {
            visits += r.len();
            used += 1;
        }
    }
    if used == 0 {
        return;
    }
    let ls_max = p.max_string.min(visits as f64 / used as f64);
    let ks_max = 4.0 * p.avg_removed / (1.0 + ls_max) - 1.0;
    let ks = (rng.unit() * ks_max).floor() as usize + 1;
    let seed = loop {
        let t = rng.below(inst.tasks.len());
        if s.route_of[t] != NONE {
            break inst.tasks[t].first as usize;
        }
    };
    let mut ruined: Vec<usize> = Vec::with_capacity(ks);
    for &c in std::iter::once(&(seed as u32)).chain(nb.of(seed)) {
        if ruined.len() >= ks {
            break;
        }
        let c = c as usize;
        let r = s.route_of[inst.node_task[c] as usize];
        if r == NONE || marks[c] || ruined.contains(&(r as usize)) {
            continue;
        }
        let r = r as usize;
        let nodes = &s.routes[r].nodes;
        let card = nodes.len();
        let l = (rng.unit() * ls_max.min(card as f64)).floor() as usize + 1;
        let l = l.min(card);
        let pos = nodes.iter().position(|&x| x as usize == c).unwrap_or(0);
        if l < card && rng.unit() < p.split_rate {
            let mut m = 1;
            while l + m < card && rng.unit() < 0.5 {
                m += 1;
            }
            let len = l + m;
            let start = string_start(pos, len, card, rng);
            let keep = start + rng.below(l + 1);
            for (k, &x) in nodes.iter().enumerate().skip(start).take(len) {
                if k < keep || k >= keep + m {
                    marks[x as usize] = true;
                }
            }
        } else {
            let start = string_start(pos, l, card, rng);
            for &x in &nodes[start..start + l] {
                marks[x as usize] = true;
            }
        }
        ruined.push(r);
    }
    for &r in &ruined {
        for &x in &s.routes[r].nodes {
            let t = &inst.tasks[inst.node_task[x as usize] as usize];
            if marks[x as usize] && t.second != NONE {
                marks[t.first as usize] = true;
                marks[t.second as usize] = true;
            }
        }
        let route = s.route_mut(r);
        let mut gone = Vec::new();
        route.nodes.retain(|&x| {
            let m = marks[x as usize];
            if m {
                gone.push(x);
            }
            !m
        });
        s.refresh(inst, r);
        // Taking visits out can break what is left: the way around a removed visit may take
        // longer (travel times need not obey the triangle inequality) and breaks move. Such a
        // route is emptied; insertions, which are checked, rebuild it.
        if !still_feasible(inst, &s.routes[r]) {
            let route = s.route_mut(r);
            gone.append(&mut route.nodes);
            s.refresh(inst, r);
        }
        for x in gone {
            marks[x as usize] = false;
            let t = inst.node_task[x as usize] as usize;
            if s.route_of[t] != NONE {
                s.set_route(t, NONE);
                removed.push(t as u32);
            }
        }
    }
}

/// Whether `route` (its caches up to date) still satisfies every constraint: from the caches
/// for a vehicle without breaks or duration limit (the classic benchmarks: the search's hot
/// path), else by simulating it.
pub(crate) fn still_feasible(inst: &Instance, route: &Route) -> bool {
    let vd = &inst.vehicles[route.vehicle];
    if route.is_empty() {
        true
    } else if vd.fast && vd.breaks.is_empty() {
        route
            .es
            .last()
            .is_some_and(|&end| windows::ends_in_shift(vd, end))
            && limits::travel_fits(vd, route.travel)
    } else {
        simulate(inst, route.vehicle, &route.nodes, None).is_ok()
    }
}

/// A uniformly chosen start of a string of `len` visits containing position `pos`.
fn string_start(pos: usize, len: usize, card: usize, rng: &mut Rng) -> usize {
    let lo = (pos + 1).saturating_sub(len);
    let hi = pos.min(card - len);
    lo + rng.below(hi - lo + 1)
}
