//! Route segments that concatenate in O(1): travel cost, time warp and excess load of any
//! sequence of visits from summaries of its two halves (Vidal et al., "A hybrid genetic
//! algorithm with adaptive diversity management for a large class of vehicle routing problems
//! with time-windows", 2013; the same data as PyVRP's duration and load segments).
//!
//! A time warp is the time a vehicle would have to travel back to start a visit inside its
//! window after arriving late: zero for a route that keeps every window and its shift. Every
//! figure is an integer of the problem's units: a segment decides feasibility exactly.

use crate::solver::constraint::{capacity, Kind, Violation};
use crate::solver::instance::Instance;
use crate::solver::problem::{Load, Time};

/// A sequence of consecutive route positions (visits, or a vehicle's start or end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Segment {
    /// Location of the first and of the last position.
    pub first: usize,
    pub last: usize,
    /// Travel cost of the arcs inside the segment.
    pub cost: i64,
    /// Least time from the start of the first service to the end of the last, waiting
    /// included, time warp excluded.
    pub duration: Time,
    /// Least total time warp of the sequence.
    pub warp: Time,
    /// Earliest and latest start of the first service that reach `duration` and `warp`.
    pub early: Time,
    pub late: Time,
    /// Deliveries (loaded at the start) and pickups (carried to the end) of the visits.
    pub delivery: Load,
    pub pickup: Load,
    /// Highest load on board inside the segment.
    pub peak: Load,
}

impl Segment {
    /// One visit of the search's node `x` (one window, no set-up: see [`super::applies`]).
    pub(crate) fn visit(inst: &Instance, x: usize) -> Segment {
        let w = inst.windows(x)[0];
        let delivery = inst.start_load[x];
        let pickup = delivery + inst.delta[x];
        Segment {
            first: inst.loc[x],
            last: inst.loc[x],
            cost: 0,
            duration: inst.service[x],
            warp: 0,
            early: w.start,
            late: w.end,
            delivery,
            pickup,
            peak: delivery.max(pickup),
        }
    }

    /// A vehicle's start (`end` false) or end: its location, any time inside its shift.
    pub(crate) fn depot(inst: &Instance, v: usize, end: bool) -> Segment {
        let vd = &inst.vehicles[v];
        let l = if end { vd.end } else { vd.start };
        Segment {
            first: l,
            last: l,
            cost: 0,
            duration: 0,
            warp: 0,
            early: vd.shift.start,
            late: vd.shift.end,
            delivery: 0,
            pickup: 0,
            peak: 0,
        }
    }

    /// `self` then `next`, joined by the arc between them.
    #[inline]
    pub(crate) fn then(&self, inst: &Instance, next: &Segment) -> Segment {
        self.then_by(next, inst.arc(self.last, next.first))
    }

    /// [`Segment::then`] with the arc between the two, `(travel time, cost)`, already read.
    #[inline]
    pub(crate) fn then_by(&self, next: &Segment, (travel, arc): (Time, i64)) -> Segment {
        let gap = self.duration - self.warp + travel;
        let wait = (next.early - gap - self.late).max(0);
        let warp = (self.early + gap - next.late).max(0);
        Segment {
            first: self.first,
            last: next.last,
            cost: self.cost + arc + next.cost,
            duration: self.duration + next.duration + travel + wait,
            warp: self.warp + next.warp + warp,
            early: (next.early - gap).max(self.early) - wait,
            late: (next.late - gap).min(self.late) + warp,
            delivery: self.delivery + next.delivery,
            pickup: self.pickup + next.pickup,
            peak: (self.peak + next.delivery).max(next.peak + self.pickup),
        }
    }

    /// Load above `capacity` at the segment's peak.
    #[inline]
    pub(crate) fn excess(&self, capacity: Load) -> Load {
        capacity::excess(self.peak, capacity)
    }

    /// What a whole route described by the segment breaks, on a vehicle of `capacity`: its
    /// time warp and its load above capacity (each zero when kept).
    #[inline]
    pub(crate) fn violations(&self, capacity: Load) -> [Violation; 2] {
        [
            Violation {
                kind: Kind::TimeWarp,
                amount: self.warp,
            },
            Violation {
                kind: Kind::ExcessLoad(0),
                amount: self.excess(capacity),
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;

    /// Depot at (0,0), visits at (0,10), (0,20), (0,30); travel = distance.
    fn line(windows: &[(Time, Time)]) -> Problem {
        let pts = [(0i64, 0i64), (0, 10), (0, 20), (0, 30)];
        let jobs = windows
            .iter()
            .enumerate()
            .map(|(k, &(a, b))| {
                let mut j = job(k as u64 + 1, k + 1);
                j.place.time_windows = vec![TimeWindow { start: a, end: b }];
                j.place.service = 5;
                j
            })
            .collect();
        Problem {
            name: "line".into(),
            matrix: plane(&pts),
            jobs,
            shipments: vec![],
            vehicles: vec![vehicle(1, 2)],
            dimensions: 1,
            objective: Objective::Distance,
        }
    }

    fn route(inst: &Instance, nodes: &[usize]) -> Segment {
        let mut s = Segment::depot(inst, 0, false);
        for &x in nodes {
            s = s.then(inst, &Segment::visit(inst, x));
        }
        s.then(inst, &Segment::depot(inst, 0, true))
    }

    #[test]
    fn a_route_that_keeps_every_window_has_no_time_warp() {
        let p = line(&[(0, 100), (0, 100), (0, 100)]);
        let inst = Instance::new(&p);
        let s = route(&inst, &[0, 1, 2]);
        assert_eq!(s.warp, 0);
        assert_eq!(s.cost, 60);
        // 30 out, 30 back, three services of 5.
        assert_eq!(s.duration, 75);
    }

    #[test]
    fn arriving_after_a_window_closes_is_time_warp_of_the_lateness() {
        // Visiting (0,30) first, then (0,10) whose window closes at 20: arrival at 30 + 5 + 20.
        let p = line(&[(0, 20), (0, 100), (0, 100)]);
        let inst = Instance::new(&p);
        let s = route(&inst, &[2, 0]);
        assert_eq!(s.warp, 55 - 20);
        assert_eq!(route(&inst, &[0, 2]).warp, 0);
    }

    #[test]
    fn waiting_for_a_window_is_duration_not_warp() {
        let p = line(&[(50, 60), (0, 100), (0, 100)]);
        let inst = Instance::new(&p);
        let s = route(&inst, &[0]);
        assert_eq!(s.warp, 0);
        // Leaving as late as possible: no waiting on the way.
        assert_eq!(s.duration, 25);
    }

    #[test]
    fn concatenation_is_associative() {
        let p = line(&[(40, 45), (0, 15), (10, 70)]);
        let inst = Instance::new(&p);
        let v: Vec<Segment> = (0..3).map(|x| Segment::visit(&inst, x)).collect();
        let left = v[0].then(&inst, &v[1]).then(&inst, &v[2]);
        let right = v[0].then(&inst, &v[1].then(&inst, &v[2]));
        assert_eq!(left, right);
        assert!(left.warp > 0);
    }

    #[test]
    fn the_peak_load_counts_deliveries_from_the_start() {
        let p = line(&[(0, 100), (0, 100), (0, 100)]);
        let inst = Instance::new(&p);
        // Each fixture job delivers one unit: three on board from the start, capacity 2.
        let s = route(&inst, &[0, 1, 2]);
        assert_eq!(s.peak, 3);
        assert_eq!(s.excess(2), 1);
    }
}
