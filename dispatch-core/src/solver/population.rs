//! The population of the population strategy ([`super::search::Strategy::Population`]):
//! educated solutions kept diverse, parents chosen by fitness and diversity, children made by
//! a route exchange that respects the fleet.
//!
//! In the manner of hybrid genetic search (Vidal's HGS), read for its design, not its code:
//! - the distance between two solutions is the broken-pairs distance (the share of visits
//!   whose neighbours on their route differ);
//! - an individual's biased fitness adds its rank by score and, weighted down by the elite
//!   size, its rank by diversity (the mean distance to its closest others);
//! - parents are picked by binary tournaments on biased fitness;
//! - when the population outgrows its size, the worst by biased fitness go, clones first;
//! - the crossover is a selective route exchange: a few routes of the second parent, near each
//!   other, replace in a copy of the first parent the routes of the same vehicles, their visits
//!   are taken out of the other routes, and what is left without a route is reinserted by
//!   cheapest insertion. Routes keep their vehicle, so any fleet (mixed capacities, shifts,
//!   breaks, skills) stays feasible.

use super::instance::{Instance, NONE};
use super::neighbours::Neighbours;
use super::recreate::{complete, RecreateScratch};
use super::rng::Rng;
use super::ruin::still_feasible;
use super::state::State;

/// Individuals kept after a survivor selection.
const MU: usize = 12;
/// Individuals added between two survivor selections.
const LAMBDA: usize = 12;
/// Best individuals whose diversity weighs less in the biased fitness.
const ELITE: usize = 4;
/// Closest others whose mean distance is an individual's diversity.
const CLOSE: usize = 3;

/// One educated solution.
pub(crate) struct Member {
    pub state: State,
    pub score: i128,
    /// The two route neighbours of every node (`NONE` for the route's ends and left-out
    /// visits), smaller first: what the broken-pairs distance compares.
    pairs: Vec<(u32, u32)>,
}

fn pairs(inst: &Instance, s: &State) -> Vec<(u32, u32)> {
    let mut out = vec![(NONE, NONE); inst.loc.len()];
    for r in &s.routes {
        let n = &r.nodes;
        for (k, &x) in n.iter().enumerate() {
            let prev = if k > 0 { n[k - 1] } else { NONE };
            let next = n.get(k + 1).copied().unwrap_or(NONE);
            out[x as usize] = (prev.min(next), prev.max(next));
        }
    }
    out
}

/// Broken-pairs distance in `[0, 1]`.
fn distance(a: &Member, b: &Member) -> f64 {
    let n = a.pairs.len().max(1);
    let differ = a.pairs.iter().zip(&b.pairs).filter(|(x, y)| x != y).count();
    differ as f64 / n as f64
}

/// The individuals and their pairwise distances.
#[derive(Default)]
pub(crate) struct Population {
    members: Vec<Member>,
    /// `dist[i][j]` between members `i` and `j`.
    dist: Vec<Vec<f64>>,
}

impl Population {
    pub(crate) fn len(&self) -> usize {
        self.members.len()
    }

    /// Forgets every individual.
    pub(crate) fn clear(&mut self) {
        self.members.clear();
        self.dist.clear();
    }

    /// The best individual, if any.
    pub(crate) fn best(&self) -> Option<&Member> {
        self.members.iter().min_by_key(|m| m.score)
    }

    /// Adds an educated solution; beyond `MU + LAMBDA` individuals, keeps the best `MU` by
    /// biased fitness (clones of another individual go first).
    pub(crate) fn add(&mut self, inst: &Instance, state: &State) {
        let m = Member {
            state: state.clone(),
            score: state.score(inst),
            pairs: pairs(inst, state),
        };
        let row: Vec<f64> = self.members.iter().map(|o| distance(&m, o)).collect();
        for (d, &x) in self.dist.iter_mut().zip(&row) {
            d.push(x);
        }
        let mut row = row;
        row.push(0.0);
        self.dist.push(row);
        self.members.push(m);
        if self.members.len() > MU + LAMBDA {
            while self.members.len() > MU {
                let worst = self.worst();
                self.remove(worst);
            }
        }
    }

    fn remove(&mut self, i: usize) {
        self.members.remove(i);
        self.dist.remove(i);
        for d in &mut self.dist {
            d.remove(i);
        }
    }

    /// A clone with the worst score, else the worst biased fitness.
    fn worst(&self) -> usize {
        let n = self.members.len();
        let clone = (0..n)
            .filter(|&i| (0..n).any(|j| j != i && self.dist[i][j] == 0.0))
            .max_by_key(|&i| (self.members[i].score, i));
        if let Some(i) = clone {
            return i;
        }
        let fit = self.biased_fitness();
        (0..n)
            .max_by(|&a, &b| fit[a].total_cmp(&fit[b]).then(a.cmp(&b)))
            .expect("a non-empty population")
    }

    /// Rank by score plus rank by diversity weighted by `1 - ELITE / n` (both in `[0, 1]`,
    /// lower is better).
    fn biased_fitness(&self) -> Vec<f64> {
        let n = self.members.len();
        if n <= 1 {
            return vec![0.0; n];
        }
        let diversity: Vec<f64> = (0..n)
            .map(|i| {
                let mut d: Vec<f64> = (0..n)
                    .filter(|&j| j != i)
                    .map(|j| self.dist[i][j])
                    .collect();
                d.sort_by(f64::total_cmp);
                let k = CLOSE.min(d.len());
                d[..k].iter().sum::<f64>() / k as f64
            })
            .collect();
        let mut by_score: Vec<usize> = (0..n).collect();
        by_score.sort_by_key(|&i| (self.members[i].score, i));
        let mut by_diversity: Vec<usize> = (0..n).collect();
        by_diversity.sort_by(|&a, &b| diversity[b].total_cmp(&diversity[a]).then(a.cmp(&b)));
        let mut fit = vec![0.0; n];
        let scale = (n - 1) as f64;
        let weight = 1.0 - (ELITE as f64 / n as f64).min(1.0);
        for (rank, &i) in by_score.iter().enumerate() {
            fit[i] += rank as f64 / scale;
        }
        for (rank, &i) in by_diversity.iter().enumerate() {
            fit[i] += weight * rank as f64 / scale;
        }
        fit
    }

    /// Two distinct parents by binary tournaments on biased fitness.
    pub(crate) fn parents(&self, rng: &mut Rng) -> (&State, &State) {
        let n = self.members.len();
        let fit = self.biased_fitness();
        let pick = |rng: &mut Rng| {
            let (a, b) = (rng.below(n), rng.below(n));
            if fit[a] <= fit[b] {
                a
            } else {
                b
            }
        };
        let first = pick(rng);
        let mut second = pick(rng);
        for _ in 0..4 {
            if second != first {
                break;
            }
            second = pick(rng);
        }
        (&self.members[first].state, &self.members[second].state)
    }
}

/// The routes of `b` a selective route exchange takes: a random used route, then the routes
/// holding its visits' nearest others, up to a random number (at most half the used routes,
/// rounded up). Empty when `b` uses no vehicle.
pub(crate) fn exchanged_routes(
    inst: &Instance,
    nb: &Neighbours,
    b: &State,
    rng: &mut Rng,
) -> Vec<usize> {
    let used: Vec<usize> = (0..b.routes.len())
        .filter(|&r| !b.routes[r].is_empty())
        .collect();
    if used.is_empty() {
        return Vec::new();
    }
    let wanted = 1 + rng.below(used.len().div_ceil(2));
    let seed = used[rng.below(used.len())];
    let mut chosen = vec![seed];
    'grow: for &x in &b.routes[seed].nodes {
        for &m in nb.of(x as usize).iter().take(10) {
            if chosen.len() >= wanted {
                break 'grow;
            }
            let r = b.route_of[inst.node_task[m as usize] as usize];
            if r != NONE && !chosen.contains(&(r as usize)) {
                chosen.push(r as usize);
            }
        }
    }
    chosen
}

/// Selective route exchange: see the module's documentation. `out` receives the child.
pub(crate) fn crossover(
    inst: &Instance,
    nb: &Neighbours,
    a: &State,
    b: &State,
    rng: &mut Rng,
    scratch: &mut RecreateScratch,
    out: &mut State,
) {
    out.clone_from(a);
    let chosen = exchanged_routes(inst, nb, b, rng);
    if chosen.is_empty() {
        return;
    }
    let mut from_b = vec![false; inst.tasks.len()];
    for &r in &chosen {
        for &x in &b.routes[r].nodes {
            from_b[inst.node_task[x as usize] as usize] = true;
        }
    }
    let mut pending: Vec<u32> = Vec::new();
    out.take_unassigned_where(inst, &mut pending, |_| true);
    pending.retain(|&t| !from_b[t as usize]);
    for r in 0..out.routes.len() {
        if out.routes[r].is_empty() {
            continue;
        }
        let replaced = chosen.contains(&r);
        let route = out.route_mut(r);
        let mut gone = Vec::new();
        route.nodes.retain(|&x| {
            let t = inst.node_task[x as usize] as usize;
            let keep = !replaced && !from_b[t];
            if !keep {
                gone.push(x);
            }
            keep
        });
        out.refresh(inst, r);
        if !still_feasible(inst, &out.routes[r]) {
            let route = out.route_mut(r);
            gone.append(&mut route.nodes);
            out.refresh(inst, r);
        }
        for x in gone {
            let t = inst.node_task[x as usize] as usize;
            if out.route_of[t] != NONE {
                out.set_route(t, NONE);
                if !from_b[t] {
                    pending.push(t as u32);
                }
            }
        }
    }
    for &r in &chosen {
        out.set_nodes(inst, r, &b.routes[r].nodes);
    }
    complete(inst, nb, out, &mut pending, rng, scratch);
}

/// A new individual from nothing: every task of `tasks` inserted in a random order.
pub(crate) fn construct(
    inst: &Instance,
    nb: &Neighbours,
    tasks: &[u32],
    rng: &mut Rng,
    scratch: &mut RecreateScratch,
) -> State {
    let mut s = State::empty(inst, &[]);
    let mut all = tasks.to_vec();
    complete(inst, nb, &mut s, &mut all, rng, scratch);
    s
}
