//! Local search on the penalised cost: relocate (after or before a neighbour, or into an unused
//! vehicle), swap and 2-opt* on granular neighbourhoods, first improvement, until no move
//! improves. Between routes a move is priced in O(1) from the routes' prefix and suffix
//! segments; within a route by walking the visits between the move's ends.

use super::route::WRoute;
use super::segment::Segment;
use super::Penalties;
use crate::solver::instance::{Instance, NONE};
use crate::solver::neighbours::Neighbours;
use crate::solver::rng::Rng;

/// Neighbours of a visit that its moves consider.
const GRANULAR: usize = 20;

/// Inserts `node` where it raises the penalised cost least (any route, any position).
pub(crate) fn insert_cheapest(inst: &Instance, routes: &mut [WRoute], node: u32, pen: &Penalties) {
    let visit = Segment::visit(inst, node as usize);
    let mut best: Option<(i64, usize, usize)> = None;
    for (r, route) in routes.iter().enumerate() {
        for q in 0..=route.len() {
            // The arc into the visit from the visit's row where the matrix allows.
            let head = route.prefix(q);
            let s = head
                .then_by(&visit, inst.arc_to(head.last, visit.first))
                .then(inst, route.suffix(q + 1));
            let delta = route.price(&s, pen) - route.pcost;
            if best.is_none_or(|(d, _, _)| delta < d) {
                best = Some((delta, r, q));
            }
        }
    }
    if let Some((_, r, q)) = best {
        routes[r].nodes.insert(q, node);
        routes[r].update(inst, pen);
    }
}

/// Both routes `i != j`, mutably.
fn two(routes: &mut [WRoute], i: usize, j: usize) -> (&mut WRoute, &mut WRoute) {
    if i < j {
        let (a, b) = routes.split_at_mut(j);
        (&mut a[i], &mut b[0])
    } else {
        let (a, b) = routes.split_at_mut(i);
        (&mut b[0], &mut a[j])
    }
}

/// An improving move, as found.
enum Move {
    /// The visit at `(route, position)` goes after position `q` of route `to`.
    Relocate {
        from: (usize, usize),
        to: usize,
        q: usize,
    },
    Swap {
        a: (usize, usize),
        b: (usize, usize),
    },
    /// Route `a` keeps positions `..=pa` and takes `b`'s from `qb + 1`; `b` keeps `..=qb` and
    /// takes `a`'s from `pa + 1`.
    TwoOptStar {
        a: (usize, usize),
        b: (usize, usize),
    },
}

/// Where every visit is, the order the search looks at them, and what changed since a visit's
/// moves were last priced: a visit's moves with a neighbour change only the two routes, so
/// when neither changed since they were all found not to improve, they are not priced again
/// (as HGS does; the moves applied are the same).
pub(crate) struct Search {
    /// `(route, position)` of each node; `NONE` route when not on one.
    at: Vec<(usize, usize)>,
    order: Vec<u32>,
    /// Moves applied in this run, plus one.
    clock: u64,
    /// Per route: the clock of its last change.
    changed: Vec<u64>,
    /// Per node: the clock when its moves were last priced (0: not yet in this run).
    tested: Vec<u64>,
    /// The clock when a route last became empty (an unused vehicle appeared).
    emptied: u64,
}

impl Search {
    pub(crate) fn new(inst: &Instance, routes: &[WRoute]) -> Search {
        let mut s = Search {
            at: vec![(NONE as usize, 0); inst.loc.len()],
            order: Vec::new(),
            clock: 1,
            changed: vec![0; routes.len()],
            tested: vec![0; inst.loc.len()],
            emptied: 0,
        };
        for r in 0..routes.len() {
            s.locate(routes, r);
        }
        s
    }

    fn locate(&mut self, routes: &[WRoute], r: usize) {
        for (k, &x) in routes[r].nodes.iter().enumerate() {
            self.at[x as usize] = (r, k + 1);
        }
    }

    /// Applies improving moves until none is left.
    pub(crate) fn run(
        &mut self,
        inst: &Instance,
        nb: &Neighbours,
        routes: &mut [WRoute],
        pen: &Penalties,
        rng: &mut Rng,
    ) {
        self.order.clear();
        for r in routes.iter() {
            self.order.extend_from_slice(&r.nodes);
        }
        for i in (1..self.order.len()).rev() {
            self.order.swap(i, rng.below(i + 1));
        }
        (self.clock, self.emptied) = (1, 0);
        self.changed.fill(0);
        self.tested.fill(0);
        loop {
            let mut improved = false;
            for k in 0..self.order.len() {
                let u = self.order[k] as usize;
                let last = std::mem::replace(&mut self.tested[u], self.clock);
                let same = |s: &Search, r: usize| last > 0 && s.changed[r] <= last;
                for &v in nb.of(u).iter().take(GRANULAR) {
                    let rv = self.at[v as usize].0;
                    if rv == NONE as usize || (same(self, self.at[u].0) && same(self, rv)) {
                        continue;
                    }
                    if let Some(m) = self.best_with(inst, routes, pen, u, v as usize) {
                        self.apply(inst, routes, pen, m);
                        improved = true;
                    }
                }
                if same(self, self.at[u].0) && self.emptied <= last {
                    continue;
                }
                if let Some(m) = self.to_unused(inst, routes, pen, u) {
                    self.apply(inst, routes, pen, m);
                    improved = true;
                }
            }
            if !improved {
                break;
            }
        }
    }

    /// The first improving move of `u` with its neighbour `v`.
    fn best_with(
        &self,
        inst: &Instance,
        routes: &[WRoute],
        pen: &Penalties,
        u: usize,
        v: usize,
    ) -> Option<Move> {
        let ((ru, pu), (rv, pv)) = (self.at[u], self.at[v]);
        let (x, y) = (&routes[ru], &routes[rv]);
        // A move lowers the penalised cost only if its saving in travel, plus at most every
        // penalty of the routes it changes, is positive: most moves stop at that bound.
        let room = x.penalty() + if ru != rv { y.penalty() } else { 0 };
        let c = |a: usize, b: usize| inst.cost(a, b);
        let (um, uu, up) = (x.loc(inst, pu - 1), x.loc(inst, pu), x.loc(inst, pu + 1));
        let removal = c(um, up) - c(um, uu) - c(uu, up);
        for q in [pv, pv - 1] {
            let (a, b) = (y.loc(inst, q), y.loc(inst, q + 1));
            let apart = ru != rv || q + 1 < pu || q > pu;
            if apart && removal + c(a, uu) + c(uu, b) - c(a, b) >= room {
                continue;
            }
            if relocate(inst, routes, pen, (ru, pu), rv, q) < 0 {
                return Some(Move::Relocate {
                    from: (ru, pu),
                    to: rv,
                    q,
                });
            }
        }
        let (vm, vv, vp) = (y.loc(inst, pv - 1), y.loc(inst, pv), y.loc(inst, pv + 1));
        let apart = ru != rv || pu.abs_diff(pv) > 1;
        let swapped = c(um, vv) + c(vv, up) - c(um, uu) - c(uu, up) + c(vm, uu) + c(uu, vp)
            - c(vm, vv)
            - c(vv, vp);
        if (!apart || swapped < room) && swap(inst, routes, pen, (ru, pu), (rv, pv)) < 0 {
            return Some(Move::Swap {
                a: (ru, pu),
                b: (rv, pv),
            });
        }
        if ru != rv && same_end(inst, x, y) {
            for qv in [pv, pv - 1] {
                let (b0, b1) = (y.loc(inst, qv), y.loc(inst, qv + 1));
                let exchanged = c(uu, b1) + c(b0, up) - c(uu, up) - c(b0, b1);
                if exchanged < room && two_opt_star(inst, routes, pen, (ru, pu), (rv, qv)) < 0 {
                    return Some(Move::TwoOptStar {
                        a: (ru, pu),
                        b: (rv, qv),
                    });
                }
            }
        }
        None
    }

    /// Moving `u` alone to an unused vehicle, when that improves.
    fn to_unused(
        &self,
        inst: &Instance,
        routes: &[WRoute],
        pen: &Penalties,
        u: usize,
    ) -> Option<Move> {
        let (ru, pu) = self.at[u];
        if routes[ru].len() == 1 {
            return None;
        }
        let mut seen = Vec::new();
        for (e, route) in routes.iter().enumerate() {
            let class = inst.vehicles[route.vehicle].class;
            if route.len() > 0 || seen.contains(&class) {
                continue;
            }
            seen.push(class);
            let x = &routes[ru];
            let (um, uu, up) = (x.loc(inst, pu - 1), x.loc(inst, pu), x.loc(inst, pu + 1));
            let vd = &inst.vehicles[route.vehicle];
            let c = |a: usize, b: usize| inst.cost(a, b);
            let travel = c(um, up) - c(um, uu) - c(uu, up) + c(vd.start, uu) + c(uu, vd.end);
            if travel < x.penalty() && relocate(inst, routes, pen, (ru, pu), e, 0) < 0 {
                return Some(Move::Relocate {
                    from: (ru, pu),
                    to: e,
                    q: 0,
                });
            }
        }
        None
    }

    fn apply(&mut self, inst: &Instance, routes: &mut [WRoute], pen: &Penalties, m: Move) {
        let changed = match m {
            Move::Relocate {
                from: (r, p),
                to,
                q,
            } => {
                let x = routes[r].nodes.remove(p - 1);
                let q = if to == r && q >= p { q - 1 } else { q };
                routes[to].nodes.insert(q, x);
                (r, to)
            }
            Move::Swap {
                a: (ra, pa),
                b: (rb, pb),
            } => {
                if ra == rb {
                    routes[ra].nodes.swap(pa - 1, pb - 1);
                } else {
                    let (a, b) = two(routes, ra, rb);
                    std::mem::swap(&mut a.nodes[pa - 1], &mut b.nodes[pb - 1]);
                }
                (ra, rb)
            }
            Move::TwoOptStar {
                a: (ra, pa),
                b: (rb, qb),
            } => {
                let (a, b) = two(routes, ra, rb);
                let tail_a = a.nodes.split_off(pa);
                let tail_b = b.nodes.split_off(qb);
                a.nodes.extend(tail_b);
                b.nodes.extend(tail_a);
                (ra, rb)
            }
        };
        self.clock += 1;
        for r in [changed.0, changed.1] {
            routes[r].update(inst, pen);
            self.locate(routes, r);
            self.changed[r] = self.clock;
            if routes[r].len() == 0 {
                self.emptied = self.clock;
            }
        }
    }
}

/// Routes whose tails may be exchanged: their segments end at the same place and shift.
fn same_end(inst: &Instance, a: &WRoute, b: &WRoute) -> bool {
    let (va, vb) = (&inst.vehicles[a.vehicle], &inst.vehicles[b.vehicle]);
    va.end == vb.end && va.shift == vb.shift
}

/// Change of penalised cost when the visit at `(r, p)` goes after position `q` of route `to`
/// (0 for no change).
fn relocate(
    inst: &Instance,
    routes: &[WRoute],
    pen: &Penalties,
    (r, p): (usize, usize),
    to: usize,
    q: usize,
) -> i64 {
    let from = &routes[r];
    let u = Segment::visit(inst, from.nodes[p - 1] as usize);
    if to != r {
        let dest = &routes[to];
        let a = from.prefix(p - 1).then(inst, from.suffix(p + 1));
        let b = dest.prefix(q).then(inst, &u).then(inst, dest.suffix(q + 1));
        return from.price(&a, pen) + dest.price(&b, pen) - from.pcost - dest.pcost;
    }
    let s = if q > p {
        from.walk(inst, *from.prefix(p - 1), p + 1, q)
            .then(inst, &u)
            .then(inst, from.suffix(q + 1))
    } else if q + 1 < p {
        let head = from.prefix(q).then(inst, &u);
        from.walk(inst, head, q + 1, p - 1)
            .then(inst, from.suffix(p + 1))
    } else {
        return 0;
    };
    from.price(&s, pen) - from.pcost
}

/// Change of penalised cost when the visits at `a` and `b` trade places.
fn swap(
    inst: &Instance,
    routes: &[WRoute],
    pen: &Penalties,
    (ra, pa): (usize, usize),
    (rb, pb): (usize, usize),
) -> i64 {
    let (x, y) = (&routes[ra], &routes[rb]);
    let u = Segment::visit(inst, x.nodes[pa - 1] as usize);
    let v = Segment::visit(inst, y.nodes[pb - 1] as usize);
    if ra != rb {
        let a = x.prefix(pa - 1).then(inst, &v).then(inst, x.suffix(pa + 1));
        let b = y.prefix(pb - 1).then(inst, &u).then(inst, y.suffix(pb + 1));
        return x.price(&a, pen) + y.price(&b, pen) - x.pcost - y.pcost;
    }
    if pa == pb {
        return 0;
    }
    let ((i, first), (j, second)) = if pa < pb {
        ((pa, v), (pb, u))
    } else {
        ((pb, u), (pa, v))
    };
    let head = x.prefix(i - 1).then(inst, &first);
    let s = x
        .walk(inst, head, i + 1, j - 1)
        .then(inst, &second)
        .then(inst, x.suffix(j + 1));
    x.price(&s, pen) - x.pcost
}

/// Change of penalised cost when route `ra` keeps `..=pa` then `rb`'s visits after `qb`, and
/// `rb` keeps `..=qb` then `ra`'s visits after `pa`.
fn two_opt_star(
    inst: &Instance,
    routes: &[WRoute],
    pen: &Penalties,
    (ra, pa): (usize, usize),
    (rb, qb): (usize, usize),
) -> i64 {
    let (x, y) = (&routes[ra], &routes[rb]);
    if pa == x.len() && qb == y.len() {
        return 0;
    }
    let a = x.prefix(pa).then(inst, y.suffix(qb + 1));
    let b = y.prefix(qb).then(inst, x.suffix(pa + 1));
    x.price(&a, pen) + y.price(&b, pen) - x.pcost - y.pcost
}

#[cfg(test)]
mod tests;
