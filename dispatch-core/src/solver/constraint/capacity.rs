//! Capacity: the load on board never exceeds the vehicle's capacity, in any dimension.
//!
//! A job's delivery is on board from the route's start to its visit, its pickup from its visit
//! to the end; a shipment's amount between its pickup and its delivery. A route's cached loads
//! ([`Loads`]: loads, prefix and suffix maxima) answer an insertion or an exchange in O(dims);
//! a visit sequence is measured by one pass over its loads.

use super::{Kind, Violation};
use crate::solver::instance::Instance;
use crate::solver::problem::Load;

/// Whether `load` plus `extra` stays within `capacity` in every dimension.
#[inline]
pub(crate) fn fits(load: &[Load], extra: &[Load], capacity: &[Load]) -> bool {
    (0..capacity.len()).all(|d| load[d] + extra[d] <= capacity[d])
}

/// Whether `load` stays within `capacity` in every dimension.
#[inline]
pub(crate) fn within(load: &[Load], capacity: &[Load]) -> bool {
    load.iter().zip(capacity).all(|(l, c)| l <= c)
}

/// How far `load` is above `capacity` (zero when it fits).
#[inline]
pub(crate) fn excess(load: Load, capacity: Load) -> Load {
    (load - capacity).max(0)
}

/// Whether the task whose first visit is `node` fits vehicle `v` on its own: its start load,
/// and its load after the visit.
pub(crate) fn fits_alone(inst: &Instance, node: usize, v: usize) -> bool {
    let cap = &inst.vehicles[v].capacity;
    let (start, delta) = inst.loads(node);
    (0..inst.dims).all(|d| start[d] <= cap[d] && start[d] + delta[d] <= cap[d])
}

/// A route's cached loads, `dims` values per position (`0` the start, then its elements):
/// the load after each position, their maxima up to and from each position, and the start
/// loads of the visits up to each position. The route caches fill them; the questions below
/// read them in O(dims).
#[derive(Clone, Copy)]
pub(crate) struct Loads<'a> {
    pub capacity: &'a [Load],
    pub dims: usize,
    /// Visits of the route (breaks excluded).
    pub visits: usize,
    pub loads: &'a [Load],
    pub pmax: &'a [Load],
    pub smax: &'a [Load],
    pub starts: &'a [Load],
}

impl Loads<'_> {
    /// Whether a visit with start load `start` and change of load `delta` fits in the gap
    /// after position `i`: its start load rides on every position up to `i`, start load plus
    /// change on every position after.
    #[inline]
    pub(crate) fn fits_visit(&self, i: usize, start: &[Load], delta: &[Load]) -> bool {
        let (dims, cap) = (self.dims, self.capacity);
        (0..dims).all(|d| {
            self.pmax[i * dims + d] + start[d] <= cap[d]
                && self.smax[i * dims + d] + start[d] + delta[d] <= cap[d]
        })
    }

    /// Whether `amount` more on board after position `k` fits (a shipment carried across
    /// that position).
    #[inline]
    pub(crate) fn carries(&self, k: usize, amount: &[Load]) -> bool {
        let k = k * self.dims;
        fits(&self.loads[k..k + self.dims], amount, self.capacity)
    }

    /// Whether the load at the route's start and at its end leaves room for a job's own start
    /// load and change of load: necessary for any position on the route.
    pub(crate) fn room_at_ends(&self, start: &[Load], delta: &[Load]) -> bool {
        let (dims, cap) = (self.dims, self.capacity);
        let end = self.loads.len() - dims;
        (0..dims).all(|d| {
            self.loads[d] + start[d] <= cap[d]
                && self.loads[end + d] + start[d] + delta[d] <= cap[d]
        })
    }

    /// Whether this route's first `i` visits followed by `b`'s after its first `j` keep this
    /// route's capacity (routes without breaks: position `k` is the `k`-th visit). The head
    /// loses the start loads of this route's tail and gains those of `b`'s; along the new tail
    /// the load is `b`'s less what `b`'s head added, plus what this route's head carries.
    pub(crate) fn fits_exchange(&self, i: usize, b: &Loads, j: usize) -> bool {
        let (ma, mb, dims, cap) = (self.visits, b.visits, self.dims, self.capacity);
        (0..dims).all(|d| {
            let out = self.starts[ma * dims + d] - self.starts[i * dims + d];
            let came = b.starts[mb * dims + d] - b.starts[j * dims + d];
            let head = self.pmax[i * dims + d] - out + came <= cap[d];
            let tail = j == mb
                || b.smax[(j + 1) * dims + d] - (b.loads[j * dims + d] - came)
                    + (self.loads[i * dims + d] - out)
                    <= cap[d];
            head && tail
        })
    }
}

/// Whether `nodes` keeps vehicle `v`'s capacity in every dimension: [`measure`] finds
/// nothing, decided at the first load over it (no allocation, no figure measured).
pub(crate) fn keeps(inst: &Instance, v: usize, nodes: &[u32]) -> bool {
    let cap = &inst.vehicles[v].capacity;
    cap.iter().enumerate().all(|(d, &c)| {
        let mut load: Load = nodes.iter().map(|&x| inst.loads(x as usize).0[d]).sum();
        load <= c
            && nodes.iter().all(|&x| {
                load += inst.loads(x as usize).1[d];
                load <= c
            })
    })
}

/// The load of `nodes` on vehicle `v` above its capacity, one [`Kind::ExcessLoad`] per
/// dimension whose peak load is over it (none when the sequence keeps the capacity).
pub(crate) fn measure(inst: &Instance, v: usize, nodes: &[u32], out: &mut Vec<Violation>) {
    let cap = &inst.vehicles[v].capacity;
    // One dimension at a time: no allocation (this runs for every whole-sequence check).
    for (d, &c) in cap.iter().enumerate() {
        let mut load: Load = nodes.iter().map(|&x| inst.loads(x as usize).0[d]).sum();
        let mut peak = load;
        for &x in nodes {
            load += inst.loads(x as usize).1[d];
            peak = peak.max(load);
        }
        let amount = excess(peak, c);
        if amount > 0 {
            out.push(Violation {
                kind: Kind::ExcessLoad(d),
                amount,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;
    use crate::solver::route::Route;

    /// Depot 0 and four customers; jobs 1-4 deliver 1, 2, 3, 1 and pick up 0, 0, 2, 4 in two
    /// dimensions (the second dimension twice the first).
    fn day(capacity: Load) -> Problem {
        let amounts = [(1, 0), (2, 0), (3, 2), (1, 4)];
        let jobs = amounts
            .iter()
            .enumerate()
            .map(|(k, &(d, p))| Job {
                delivery: vec![d, 2 * d],
                pickup: vec![p, 2 * p],
                ..job(k as u64 + 1, k + 1)
            })
            .collect();
        let mut v = vehicle(1, capacity);
        v.capacity = vec![capacity, 2 * capacity];
        Problem {
            name: "loads".into(),
            matrix: plane(&[(0, 0), (0, 10), (10, 10), (10, 0), (5, 5)]),
            jobs,
            shipments: vec![],
            vehicles: vec![v],
            dimensions: 2,
            objective: Objective::Distance,
        }
    }

    fn route(inst: &Instance, nodes: &[u32]) -> Route {
        let mut r = Route::new(inst, 0);
        r.nodes = nodes.to_vec();
        r.update(inst);
        r
    }

    fn measured(inst: &Instance, nodes: &[u32]) -> Vec<Violation> {
        let mut out = Vec::new();
        measure(inst, 0, nodes, &mut out);
        out
    }

    #[test]
    fn a_sequence_within_capacity_has_no_excess_load() {
        let p = day(7);
        let inst = Instance::new(&p);
        // Start load 7; after the visits 6, 4, 3, 6.
        assert!(measured(&inst, &[0, 1, 2, 3]).is_empty());
    }

    #[test]
    fn the_excess_load_is_the_peak_above_capacity_in_each_dimension() {
        let p = day(5);
        let inst = Instance::new(&p);
        // Start load 7 (14): 2 (4) above capacity 5 (10); the peak is at the start.
        let over = measured(&inst, &[0, 1, 2, 3]);
        assert_eq!(
            over,
            vec![
                Violation {
                    kind: Kind::ExcessLoad(0),
                    amount: 2
                },
                Violation {
                    kind: Kind::ExcessLoad(1),
                    amount: 4
                },
            ]
        );
        // Jobs 3 and 4 alone: start 4, after them 3, 6: the peak at the end, 1 (2) over.
        assert_eq!(measured(&inst, &[2, 3])[0].amount, 1);
        assert_eq!(measured(&inst, &[2, 3])[1].amount, 2);
    }

    #[test]
    fn an_insertion_fits_only_where_the_loads_before_and_after_leave_room() {
        let p = day(6);
        let inst = Instance::new(&p);
        // Jobs 1, 2, 3 on board: start 6, then 5, 3, 2.
        let r = route(&inst, &[0, 1, 2]);
        let (start, delta) = inst.loads(3);
        // Job 4 adds 1 from the start (7 > 6 at position 0): nowhere.
        assert!((0..=3).all(|i| !r.load_caches(&inst).fits_visit(i, start, delta)));
        let light = route(&inst, &[1, 2]);
        // Start 5, then 3, 2; job 4 adds 1 before it and 4 after it: after the last only.
        assert!(!light.load_caches(&inst).fits_visit(0, start, delta));
        assert!(light.load_caches(&inst).fits_visit(2, start, delta));
        assert!(light.load_caches(&inst).room_at_ends(start, delta));
        assert!(!r.load_caches(&inst).room_at_ends(start, delta));
    }

    #[test]
    fn a_carried_amount_fits_where_the_load_leaves_room() {
        let p = day(6);
        let inst = Instance::new(&p);
        let r = route(&inst, &[0, 1, 2]);
        assert!(!r.load_caches(&inst).carries(0, &[1, 0]));
        assert!(r.load_caches(&inst).carries(3, &[4, 8]));
        assert!(!r.load_caches(&inst).carries(3, &[5, 0]));
    }

    #[test]
    fn a_task_too_heavy_for_a_vehicle_alone_does_not_fit_it() {
        let p = day(2);
        let inst = Instance::new(&p);
        assert!(fits_alone(&inst, 1, 0));
        // Job 3: 3 on board at the start.
        assert!(!fits_alone(&inst, 2, 0));
        // Job 4: 1 at the start, 4 after its visit.
        assert!(!fits_alone(&inst, 3, 0));
    }

    #[test]
    fn exchanged_tails_fit_when_both_new_routes_keep_the_capacity() {
        let mut p = day(6);
        p.vehicles.push(p.vehicles[0].clone());
        p.vehicles[1].id = 2;
        let inst = Instance::new(&p);
        let ra = route(&inst, &[0, 1]);
        let mut rb = Route::new(&inst, 1);
        rb.nodes = vec![2, 3];
        rb.update(&inst);
        // Job 1 then jobs 3, 4: start 5, then 4, 3, 6.
        assert!(ra
            .load_caches(&inst)
            .fits_exchange(1, &rb.load_caches(&inst), 0));
        // Jobs 1, 2 then jobs 3, 4: start 7.
        assert!(!ra
            .load_caches(&inst)
            .fits_exchange(2, &rb.load_caches(&inst), 0));
        assert!(ra
            .load_caches(&inst)
            .fits_exchange(2, &rb.load_caches(&inst), 2));
    }
}
