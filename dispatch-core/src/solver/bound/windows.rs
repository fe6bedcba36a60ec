//! Whether a task's windows meet a vehicle's shift at all, the test that keeps a class from
//! taking a task it could never serve.
//!
//! A route leaves its start at the shift start at the earliest and reaches its end by the shift
//! end, so a visit cannot begin before the shortest drive from the vehicle's start and must
//! leave the shortest drive back to its end. A route's way between two visits is a chain of
//! arcs through other visits (a matrix need not obey the triangle inequality), and each visit
//! passed costs at least the least set-up plus service of any visit at its location (the chain
//! enters it from elsewhere); a location with no visit cannot be passed. So the shortest such
//! chain, with those passing costs, is no longer than any route's way. The set-up of the visit
//! reached is not counted: it may follow another visit at its own location and have none.

use std::collections::HashMap;

use crate::solver::problem::{LocationIndex, Matrix, Place, Problem, Time, TimeWindow, Vehicle};

fn windows(place: &Place) -> &[TimeWindow] {
    if place.time_windows.is_empty() {
        std::slice::from_ref(&TimeWindow::ALWAYS)
    } else {
        &place.time_windows
    }
}

/// The shortest drives from every vehicle start and to every vehicle end (one Dijkstra per
/// distinct location; a depot day has one), and the cost of passing each location.
pub(super) struct Drives<'a> {
    matrix: &'a Matrix,
    pass: Vec<Time>,
    from: HashMap<LocationIndex, Vec<Time>>,
    to: HashMap<LocationIndex, Vec<Time>>,
}

impl<'a> Drives<'a> {
    /// `places` are every visit of the problem.
    pub(super) fn new(p: &'a Problem, places: &[&Place]) -> Drives<'a> {
        let mut pass = vec![Time::MAX; p.matrix.size()];
        for place in places {
            let at = &mut pass[place.location];
            *at = (*at).min(place.setup + place.service);
        }
        let mut d = Drives {
            matrix: &p.matrix,
            pass,
            from: HashMap::new(),
            to: HashMap::new(),
        };
        for v in &p.vehicles {
            if let Some(s) = v.start.filter(|s| !d.from.contains_key(s)) {
                let dist = d.dijkstra(s, Direction::Out, None);
                d.from.insert(s, dist);
            }
            if let Some(e) = v.end.filter(|e| !d.to.contains_key(e)) {
                let dist = d.dijkstra(e, Direction::In, None);
                d.to.insert(e, dist);
            }
        }
        d
    }

    /// The shortest way from the end of a visit at `from` to a visit at `to`.
    pub(super) fn between(&self, from: LocationIndex, to: LocationIndex) -> Time {
        self.dijkstra(from, Direction::Out, Some(to))[to]
    }

    /// The shortest drive from `v`'s start to `location` (0 without a start).
    fn lead_in(&self, v: &Vehicle, location: LocationIndex) -> Time {
        v.start.map_or(0, |s| self.from[&s][location])
    }

    /// The shortest drive from `location` to `v`'s end (0 without an end).
    fn lead_out(&self, v: &Vehicle, location: LocationIndex) -> Time {
        v.end.map_or(0, |e| self.to[&e][location])
    }
}

/// True when some window of `place` can open a visit once `v` has driven there from its start
/// at the shift start, and the visit can end in time to drive back before the shift ends.
pub(super) fn meets_shift(place: &Place, v: &Vehicle, drives: &Drives<'_>) -> bool {
    let earliest = v.shift.start + drives.lead_in(v, place.location);
    let latest_end = v.shift.end - drives.lead_out(v, place.location);
    windows(place).iter().any(|w| {
        let start = w.start.max(earliest);
        start <= w.end && start + place.service <= latest_end
    })
}

/// True when `v` could serve `pickup`, then `delivery` at least `travel` after the pickup's
/// service, both inside their windows, reached from its start and leaving the drive to its end.
pub(super) fn pair_meets_shift(
    pickup: &Place,
    delivery: &Place,
    travel: Time,
    v: &Vehicle,
    drives: &Drives<'_>,
) -> bool {
    let earliest = v.shift.start + drives.lead_in(v, pickup.location);
    let latest_end = v.shift.end - drives.lead_out(v, delivery.location);
    windows(pickup).iter().any(|w| {
        let at = w.start.max(earliest);
        at <= w.end
            && windows(delivery).iter().any(|x| {
                let then = x.start.max(at + pickup.service + travel);
                then <= x.end && then + delivery.service <= latest_end
            })
    })
}

#[derive(Clone, Copy)]
enum Direction {
    /// Ways out of the source.
    Out,
    /// Ways into the source (the transposed matrix).
    In,
}

impl Drives<'_> {
    /// Dijkstra on the dense matrix, O(n²), stopping early once `stop` is settled; a settled
    /// location other than the source is passed at its cost.
    fn dijkstra(&self, source: usize, dir: Direction, stop: Option<usize>) -> Vec<Time> {
        let m = self.matrix;
        let n = m.size();
        let mut dist = vec![Time::MAX; n];
        let mut done = vec![false; n];
        dist[source] = 0;
        loop {
            let Some(u) = (0..n).filter(|&i| !done[i]).min_by_key(|&i| dist[i]) else {
                return dist;
            };
            if Some(u) == stop || dist[u] == Time::MAX {
                return dist;
            }
            done[u] = true;
            let leave = if u == source {
                0
            } else if self.pass[u] == Time::MAX {
                continue;
            } else {
                dist[u] + self.pass[u]
            };
            for (w, (d, &settled)) in dist.iter_mut().zip(&done).enumerate() {
                if !settled {
                    let arc = match dir {
                        Direction::Out => m.duration(u, w),
                        Direction::In => m.duration(w, u),
                    };
                    *d = (*d).min(leave + arc);
                }
            }
        }
    }
}
