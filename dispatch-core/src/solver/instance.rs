//! A flattened, search-friendly view of a [`Problem`]: visits as numbered nodes, a matrix with a
//! "ghost" location for open starts and ends, and per-task vehicle eligibility.

use super::problem::{Load, Matrix, Objective, Problem, Time, TimeWindow};

/// "Never feasible" marker for earliest times (and its negation for latest times).
pub(crate) const INF: Time = Time::MAX / 2;
/// No node.
pub(crate) const NONE: u32 = u32::MAX;
/// Tags break `b` of a route's vehicle as `BREAK | b` among a route's nodes.
pub(crate) const BREAK: u32 = 1 << 31;

/// A task of the search: one visit (job) or two (shipment pickup then delivery).
#[derive(Debug, Clone)]
pub(crate) struct Task {
    /// The job's node, or the shipment's pickup node.
    pub first: u32,
    /// The shipment's delivery node; [`NONE`] for jobs.
    pub second: u32,
    /// Penalty for leaving the task out (lexicographic over priority levels).
    pub weight: i128,
    /// Total demand (sum over dimensions), for ordering insertions; on a day the fleet cannot
    /// carry ([`Instance::scarce`]) its share of the fleet's capacity instead.
    pub demand: Load,
}

/// A break of a vehicle, with its windows normalised (never empty).
#[derive(Debug, Clone)]
pub(crate) struct BreakData {
    pub windows: Vec<TimeWindow>,
    pub service: Time,
}

/// A vehicle with open starts and ends mapped to the ghost location.
#[derive(Debug, Clone)]
pub(crate) struct VehicleData {
    pub start: usize,
    pub end: usize,
    pub capacity: Vec<Load>,
    pub shift: TimeWindow,
    pub breaks: Vec<BreakData>,
    pub max_duration: Option<Time>,
    pub max_travel: Time,
    pub max_tasks: usize,
    /// Routes of this vehicle are checked in O(1) from cached arrays (no duration limit);
    /// otherwise each candidate is re-simulated.
    pub fast: bool,
    /// Vehicles of one class are interchangeable (only one empty one is tried per insertion).
    pub class: usize,
}

/// Matrices up to this many locations are copied with the ghost row and column (and the cost
/// chosen by the objective) for branch-free look-ups; bigger ones are borrowed: on a
/// 5 000-order day the matrix is most of the memory.
const FLAT_LOCATIONS: usize = 2048;

/// One arc of the flat copy: its travel time and cost side by side, so that the look-ups of
/// both (every insertion and segment join reads the two) share a cache line, and in 32 bits,
/// so that the copy is half the size (at 1 000 customers the search spent a sixth of its time
/// waiting for matrix reads). Only matrices whose every figure fits are copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Leg {
    dur: i32,
    cost: i32,
}

/// Travel times and arc costs over all locations and the ghost, row-major.
#[derive(Debug, Clone)]
struct Flat {
    n: usize,
    arcs: Vec<Leg>,
    /// Every arc has the time and cost of its reverse ([`Instance::arc_to`] reads rows).
    symmetric: bool,
}

/// The search's view of a problem.
#[derive(Debug, Clone)]
pub(crate) struct Instance<'p> {
    /// The open-start/open-end location, at zero travel from everywhere.
    pub ghost: usize,
    matrix: &'p Matrix,
    /// Arcs cost distance (else duration).
    by_distance: bool,
    flat: Option<Flat>,
    pub dims: usize,
    pub n_jobs: usize,
    pub loc: Vec<usize>,
    pub service: Vec<Time>,
    pub setup: Vec<Time>,
    tw_off: Vec<usize>,
    tws: Vec<TimeWindow>,
    /// Added to the load at the route start (job deliveries), `dims` per node.
    pub start_load: Vec<Load>,
    /// Change of load at the visit, `dims` per node.
    pub delta: Vec<Load>,
    pub node_task: Vec<u32>,
    pub tasks: Vec<Task>,
    pub vehicles: Vec<VehicleData>,
    /// `allowed[task * vehicles + v]`: eligible and feasible alone on that vehicle.
    pub allowed: Vec<bool>,
    /// Per task allowed nowhere, the vehicles it fits in time through one other visit
    /// ([`super::precheck`]); only [`super::detour`] places such a task.
    pub through_a_visit: Vec<Vec<usize>>,
    /// Cost of one used vehicle (0 unless the objective counts vehicles first).
    pub vehicle_cost: i64,
    /// The fleet cannot carry every task ([`super::scarcity`]): insertions try small ones first.
    pub scarce: bool,
}

fn windows(tws: &[TimeWindow]) -> Vec<TimeWindow> {
    let mut w: Vec<TimeWindow> = tws
        .iter()
        .map(|w| TimeWindow {
            start: w.start,
            end: w.end.min(TimeWindow::ALWAYS.end),
        })
        .filter(|w| w.start <= w.end)
        .collect();
    if tws.is_empty() {
        w.push(TimeWindow::ALWAYS);
    }
    w.sort();
    w
}

impl<'p> Instance<'p> {
    /// Flattens the problem. Eligibility is filled by [`super::precheck`].
    pub(crate) fn new(p: &'p Problem) -> Instance<'p> {
        let ghost = p.matrix.size();
        let by_distance = matches!(
            p.objective,
            Objective::Distance | Objective::VehiclesThenDistance
        );
        let dims = p.dimensions;
        let amount = |v: &[Load]| -> Vec<Load> {
            (0..dims).map(|d| v.get(d).copied().unwrap_or(0)).collect()
        };
        let mut inst = Instance {
            ghost,
            matrix: &p.matrix,
            by_distance,
            flat: None,
            dims,
            n_jobs: p.jobs.len(),
            loc: Vec::new(),
            service: Vec::new(),
            setup: Vec::new(),
            tw_off: vec![0],
            tws: Vec::new(),
            start_load: Vec::new(),
            delta: Vec::new(),
            node_task: Vec::new(),
            tasks: Vec::new(),
            vehicles: Vec::new(),
            allowed: Vec::new(),
            through_a_visit: Vec::new(),
            vehicle_cost: 0,
            scarce: false,
        };
        let push_node = |inst: &mut Instance,
                         place: &super::problem::Place,
                         start: Vec<Load>,
                         delta: Vec<Load>,
                         task: usize| {
            inst.loc.push(place.location);
            inst.service.push(place.service);
            inst.setup.push(place.setup);
            inst.tws.extend(windows(&place.time_windows));
            inst.tw_off.push(inst.tws.len());
            inst.start_load.extend(start);
            inst.delta.extend(delta);
            inst.node_task.push(task as u32);
        };
        for (t, j) in p.jobs.iter().enumerate() {
            let d = amount(&j.delivery);
            let pk = amount(&j.pickup);
            let delta = (0..dims).map(|k| pk[k] - d[k]).collect();
            push_node(&mut inst, &j.place, d.clone(), delta, t);
            let demand = d.iter().sum::<Load>() + pk.iter().sum::<Load>();
            inst.tasks.push(Task {
                first: t as u32,
                second: NONE,
                weight: 0,
                demand,
            });
        }
        for (s, sh) in p.shipments.iter().enumerate() {
            let t = p.jobs.len() + s;
            let a = amount(&sh.amount);
            let neg = a.iter().map(|x| -x).collect();
            let first = inst.loc.len() as u32;
            push_node(&mut inst, &sh.pickup, vec![0; dims], a.clone(), t);
            push_node(&mut inst, &sh.delivery, vec![0; dims], neg, t);
            inst.tasks.push(Task {
                first,
                second: first + 1,
                weight: 0,
                demand: a.iter().sum(),
            });
        }
        inst.set_weights(p);
        if let Some(sizes) = super::scarcity::sizes(p) {
            inst.scarce = true;
            for (task, size) in inst.tasks.iter_mut().zip(sizes) {
                task.demand = size;
            }
        }
        // A vehicle some task is pinned to is not interchangeable with any other: it gets a
        // class of its own (else only the first unused vehicle of its class would ever be
        // tried, and the pinned task could never open it).
        let mut pinned_to = vec![false; p.vehicles.len()];
        let pins = p.jobs.iter().map(|j| j.pinned_vehicle);
        for v in pins
            .chain(p.shipments.iter().map(|s| s.pinned_vehicle))
            .flatten()
        {
            if let Some(x) = pinned_to.get_mut(v) {
                *x = true;
            }
        }
        let mut classes: Vec<&super::problem::Vehicle> = Vec::new();
        let mut alone: Vec<bool> = Vec::new();
        for (vi, v) in p.vehicles.iter().enumerate() {
            let found = classes.iter().zip(&alone).position(|(c, &alone)| {
                !alone
                    && !pinned_to[vi]
                    && c.start == v.start
                    && c.end == v.end
                    && c.capacity == v.capacity
                    && c.skills == v.skills
                    && c.shift == v.shift
                    && c.breaks == v.breaks
                    && c.max_duration == v.max_duration
                    && c.max_travel_time == v.max_travel_time
                    && c.max_tasks == v.max_tasks
            });
            let class = found.unwrap_or_else(|| {
                classes.push(v);
                alone.push(pinned_to[vi]);
                classes.len() - 1
            });
            inst.vehicles.push(VehicleData {
                start: v.start.unwrap_or(ghost),
                end: v.end.unwrap_or(ghost),
                capacity: amount(&v.capacity),
                shift: v.shift,
                breaks: v
                    .breaks
                    .iter()
                    .map(|b| BreakData {
                        windows: windows(&b.time_windows),
                        service: b.service,
                    })
                    .collect(),
                max_duration: v.max_duration,
                max_travel: v.max_travel_time.unwrap_or(INF),
                max_tasks: v.max_tasks.unwrap_or(usize::MAX),
                fast: v.max_duration.is_none(),
                class,
            });
        }
        if matches!(
            p.objective,
            Objective::VehiclesThenDistance | Objective::VehiclesThenDuration
        ) {
            inst.vehicle_cost = inst.cost_bound().saturating_add(1);
        }
        inst.allowed = vec![false; inst.tasks.len() * inst.vehicles.len()];
        inst.through_a_visit = vec![Vec::new(); inst.tasks.len()];
        if ghost < FLAT_LOCATIONS {
            let n = ghost + 1;
            let arcs: Option<Vec<Leg>> = (0..n * n)
                .map(|k| {
                    let (a, b) = (k / n, k % n);
                    Some(Leg {
                        dur: i32::try_from(inst.tt(a, b)).ok()?,
                        cost: i32::try_from(inst.cost(a, b)).ok()?,
                    })
                })
                .collect();
            inst.flat = arcs.map(|arcs| {
                let symmetric =
                    (0..n).all(|a| (a + 1..n).all(|b| arcs[a * n + b] == arcs[b * n + a]));
                Flat { n, arcs, symmetric }
            });
        }
        inst
    }

    /// Leaving out one task of a priority level costs more than leaving out all tasks of the
    /// lower levels together, and more than any routing cost.
    fn set_weights(&mut self, p: &Problem) {
        let prio: Vec<u32> = p
            .jobs
            .iter()
            .map(|j| j.priority)
            .chain(p.shipments.iter().map(|s| s.priority))
            .collect();
        let mut levels = prio.clone();
        levels.sort_unstable();
        levels.dedup();
        let base = (self.cost_bound() as i128 + 1) * (p.vehicles.len() as i128 + 1);
        let n = self.tasks.len() as i128 + 1;
        for (t, pr) in prio.iter().enumerate() {
            let rank = levels.binary_search(pr).unwrap_or(0) as u32;
            // Beyond a few levels the exact lexicographic weights would overflow: fall back to
            // ordered (not strictly lexicographic) weights.
            let w = if levels.len() <= 4 {
                n.checked_pow(rank).and_then(|x| x.checked_mul(base))
            } else {
                None
            };
            self.tasks[t].weight = w.unwrap_or(base.saturating_mul(rank as i128 + 1));
        }
    }

    /// An upper bound of any solution's routing cost.
    fn cost_bound(&self) -> i64 {
        let m = self.matrix.size();
        let max_arc = (0..m)
            .flat_map(|a| (0..m).map(move |b| (a, b)))
            .map(|(a, b)| self.cost(a, b))
            .max()
            .unwrap_or(0);
        max_arc.saturating_mul((self.loc.len() + 2 * self.vehicles.len().max(1)) as i64 + 2)
    }

    /// Travel time between two locations (the ghost is at zero distance from everything).
    #[inline]
    pub(crate) fn tt(&self, a: usize, b: usize) -> Time {
        if let Some(f) = &self.flat {
            Time::from(f.arcs[a * f.n + b].dur)
        } else if a == self.ghost || b == self.ghost {
            0
        } else {
            self.matrix.duration(a, b)
        }
    }

    /// Travel time and objective cost of the arc from `a` to `b`: one look-up in the flat copy,
    /// and in the problem's matrix where the cost is the travel time.
    #[inline]
    pub(crate) fn arc(&self, a: usize, b: usize) -> (Time, i64) {
        match &self.flat {
            Some(f) => {
                let leg = f.arcs[a * f.n + b];
                (Time::from(leg.dur), i64::from(leg.cost))
            }
            None if a == self.ghost || b == self.ghost => (0, 0),
            None if self.by_distance => (self.matrix.duration(a, b), self.matrix.distance(a, b)),
            None => {
                let tt = self.matrix.duration(a, b);
                (tt, tt)
            }
        }
    }

    /// The figures of [`Instance::arc`]`(a, b)`, read from `b`'s row where the matrix is
    /// symmetric: a loop over many `a` for one `b` (every position a visit could follow) then
    /// reads one row, which stays in cache, instead of a column, one cache miss a position on
    /// a big matrix.
    #[inline]
    pub(crate) fn arc_to(&self, a: usize, b: usize) -> (Time, i64) {
        match &self.flat {
            Some(f) if f.symmetric => {
                let leg = f.arcs[b * f.n + a];
                (Time::from(leg.dur), i64::from(leg.cost))
            }
            _ => self.arc(a, b),
        }
    }

    /// Objective cost of the arc between two locations.
    #[inline]
    pub(crate) fn cost(&self, a: usize, b: usize) -> i64 {
        if let Some(f) = &self.flat {
            i64::from(f.arcs[a * f.n + b].cost)
        } else if a == self.ghost || b == self.ghost {
            0
        } else if self.by_distance {
            self.matrix.distance(a, b)
        } else {
            self.matrix.duration(a, b)
        }
    }

    /// The node's windows (never empty).
    #[inline]
    pub(crate) fn windows(&self, node: usize) -> &[TimeWindow] {
        &self.tws[self.tw_off[node]..self.tw_off[node + 1]]
    }

    /// Start load and change of load of a node.
    #[inline]
    pub(crate) fn loads(&self, node: usize) -> (&[Load], &[Load]) {
        let r = node * self.dims..(node + 1) * self.dims;
        (&self.start_load[r.clone()], &self.delta[r])
    }

    /// Whether a task may go on a vehicle at all.
    #[inline]
    pub(crate) fn is_allowed(&self, task: usize, v: usize) -> bool {
        self.allowed[task * self.vehicles.len() + v]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};

    fn problem(matrix: Matrix) -> Problem {
        Problem {
            name: "arcs".into(),
            matrix,
            jobs: vec![job(1, 1), job(2, 2)],
            shipments: vec![],
            vehicles: vec![vehicle(1, 5)],
            dimensions: 1,
            objective: Objective::Distance,
        }
    }

    #[test]
    fn the_flat_copy_reads_what_the_matrix_holds_and_a_figure_beyond_32_bits_keeps_the_matrix() {
        let small = problem(plane(&[(0, 0), (3, 4), (6, 8)]));
        let inst = Instance::new(&small);
        assert!(inst.flat.is_some());
        for a in 0..3 {
            for b in 0..3 {
                assert_eq!(inst.tt(a, b), small.matrix.duration(a, b));
                assert_eq!(inst.cost(a, b), small.matrix.distance(a, b));
            }
            assert_eq!((inst.tt(a, inst.ghost), inst.cost(inst.ghost, a)), (0, 0));
        }
        let far = 1i64 << 33;
        let big = problem(plane(&[(0, 0), (far, 0), (0, 1)]));
        let inst = Instance::new(&big);
        assert!(inst.flat.is_none());
        assert_eq!(inst.cost(0, 1), far);
        assert_eq!(inst.tt(1, 2), big.matrix.duration(1, 2));
        assert_eq!(inst.cost(inst.ghost, 1), 0);
        // Without the flat copy an arc is read from the matrix, by distance or by time.
        let by_time = Problem {
            objective: Objective::Duration,
            ..big.clone()
        };
        for inst in [&inst, &Instance::new(&by_time)] {
            assert!(inst.flat.is_none());
            for a in 0..=inst.ghost {
                for b in 0..=inst.ghost {
                    assert_eq!(inst.arc(a, b), (inst.tt(a, b), inst.cost(a, b)));
                    assert_eq!(inst.arc_to(a, b), inst.arc(a, b));
                }
            }
        }
    }

    #[test]
    fn an_arc_read_from_its_end_s_row_has_the_arc_s_figures_whether_or_not_the_matrix_is_symmetric()
    {
        let same = problem(plane(&[(0, 0), (3, 4), (6, 8)]));
        let inst = Instance::new(&same);
        assert!(inst.flat.as_ref().is_some_and(|f| f.symmetric));
        // One way 5 and back 7 between locations 0 and 1; distances as durations plus 1.
        let dur = vec![0, 5, 9, 7, 0, 4, 9, 4, 0];
        let dist = dur.iter().map(|&d| if d > 0 { d + 1 } else { 0 }).collect();
        let one_way = problem(Matrix::new(3, dur, dist).expect("square"));
        let skewed = Instance::new(&one_way);
        assert!(skewed.flat.as_ref().is_some_and(|f| !f.symmetric));
        for inst in [&inst, &skewed] {
            for a in 0..=inst.ghost {
                for b in 0..=inst.ghost {
                    let figures = (inst.tt(a, b), inst.cost(a, b));
                    assert_eq!(inst.arc(a, b), figures);
                    assert_eq!(inst.arc_to(a, b), figures);
                }
            }
        }
        assert_eq!(skewed.arc_to(1, 0), (7, 8));
    }
}
