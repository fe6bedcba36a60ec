//! Time windows and the shift: service (or a break) starts inside one of its windows, the
//! route leaves its start no earlier than the shift starts and reaches its end by the time the
//! shift ends.
//!
//! A vehicle that arrives before a window waits for it; one that arrives after every window
//! has closed is late by its time warp (the time it would have to travel back). A window list
//! is sorted and never empty ([`Instance::windows`]).

use super::{Kind, Violation};
use crate::solver::instance::{Instance, VehicleData, INF};
use crate::solver::problem::{Time, TimeWindow};

/// Earliest time `>= t` inside one of `w`, or [`INF`].
#[inline]
pub(crate) fn earliest_in(w: &[TimeWindow], t: Time) -> Time {
    for x in w {
        if t <= x.end {
            return t.max(x.start);
        }
    }
    INF
}

/// Latest time `<= t` inside one of `w`, or `-INF`.
#[inline]
pub(crate) fn latest_in(w: &[TimeWindow], t: Time) -> Time {
    for x in w.iter().rev() {
        if t >= x.start {
            return t.min(x.end);
        }
    }
    -INF
}

/// Earliest service start at `node` for an arrival at `t`, or [`INF`].
#[inline]
pub(crate) fn earliest(inst: &Instance, node: usize, t: Time) -> Time {
    earliest_in(inst.windows(node), t)
}

/// The time warp of starting inside `w` after arriving at `t`: how far `t` is past the last
/// window's end (zero when a window is still open).
#[inline]
pub(crate) fn warp_in(w: &[TimeWindow], t: Time) -> Time {
    w.last().map_or(0, |x| (t - x.end).max(0))
}

/// A [`Kind::TimeWarp`] of `amount`.
pub(crate) fn time_warp(amount: Time) -> Violation {
    Violation {
        kind: Kind::TimeWarp,
        amount,
    }
}

/// Departure from visit `node` started as early as possible after leaving location `from` at
/// `t` (set-up only when arriving from elsewhere), or `None` when none of its windows can be met.
#[inline]
pub(crate) fn depart(inst: &Instance, node: usize, from: usize, t: Time) -> Option<Time> {
    depart_after(inst, node, from, t, inst.tt(from, inst.loc[node]))
}

/// [`depart`] with the travel time from `from` to the visit, `travel`, already read.
#[inline]
pub(crate) fn depart_after(
    inst: &Instance,
    node: usize,
    from: usize,
    t: Time,
    travel: Time,
) -> Option<Time> {
    let l = inst.loc[node];
    let s = earliest(inst, node, t + travel);
    (s < INF).then(|| s + if l != from { inst.setup[node] } else { 0 } + inst.service[node])
}

/// Whether a route reaching its end at `end` does so within the vehicle's shift.
#[inline]
pub(crate) fn ends_in_shift(vd: &VehicleData, end: Time) -> bool {
    end <= vd.shift.end
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;

    const TWO: [TimeWindow; 2] = [
        TimeWindow { start: 10, end: 20 },
        TimeWindow { start: 40, end: 50 },
    ];

    #[test]
    fn service_starts_at_the_first_window_still_open() {
        assert_eq!(earliest_in(&TWO, 0), 10);
        assert_eq!(earliest_in(&TWO, 15), 15);
        assert_eq!(earliest_in(&TWO, 21), 40);
        assert_eq!(earliest_in(&TWO, 51), INF);
    }

    #[test]
    fn the_latest_start_is_in_the_last_window_already_open() {
        assert_eq!(latest_in(&TWO, 60), 50);
        assert_eq!(latest_in(&TWO, 30), 20);
        assert_eq!(latest_in(&TWO, 12), 12);
        assert_eq!(latest_in(&TWO, 5), -INF);
    }

    #[test]
    fn arriving_after_the_last_window_is_time_warp_of_the_lateness() {
        assert_eq!(warp_in(&TWO, 30), 0);
        assert_eq!(warp_in(&TWO, 50), 0);
        assert_eq!(warp_in(&TWO, 58), 8);
        assert_eq!(time_warp(8).kind, Kind::TimeWarp);
    }

    /// Depot 0 at (0,0); a job at (0,10) with 5 of service and 3 of set-up in `windows`.
    fn one_visit(windows: Vec<TimeWindow>) -> Problem {
        let mut j = job(1, 1);
        j.place.service = 5;
        j.place.setup = 3;
        j.place.time_windows = windows;
        Problem {
            name: "windows".into(),
            matrix: plane(&[(0, 0), (0, 10)]),
            jobs: vec![j],
            shipments: vec![],
            vehicles: vec![Vehicle {
                shift: TimeWindow { start: 0, end: 100 },
                ..vehicle(1, 5)
            }],
            dimensions: 1,
            objective: Objective::Duration,
        }
    }

    #[test]
    fn a_visit_departs_after_waiting_set_up_and_service_or_not_at_all() {
        let p = one_visit(TWO.to_vec());
        let inst = Instance::new(&p);
        // Arrives at 10: starts at 10, set-up 3 and service 5.
        assert_eq!(depart(&inst, 0, 0, 0), Some(18));
        // From its own location: no set-up; arrives at 22, waits for 40.
        assert_eq!(depart(&inst, 0, 1, 22), Some(45));
        assert_eq!(depart(&inst, 0, 0, 45), None);
        assert!(ends_in_shift(&inst.vehicles[0], 100));
        assert!(!ends_in_shift(&inst.vehicles[0], 101));
    }
}
