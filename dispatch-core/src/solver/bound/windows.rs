//! Whether a task's windows meet a vehicle's shift at all, the test that keeps a class from
//! taking a task it could never serve.

use crate::solver::problem::{Matrix, Place, Time, TimeWindow, Vehicle};

fn windows(place: &Place) -> &[TimeWindow] {
    if place.time_windows.is_empty() {
        std::slice::from_ref(&TimeWindow::ALWAYS)
    } else {
        &place.time_windows
    }
}

/// True when some window of `place` can open a visit inside `v`'s shift and end before it ends.
pub(super) fn meets_shift(place: &Place, v: &Vehicle) -> bool {
    windows(place).iter().any(|w| {
        let start = w.start.max(v.shift.start);
        start <= w.end && start + place.service <= v.shift.end
    })
}

/// True when `v` could serve `pickup`, then `delivery` at least `travel` after the pickup's
/// service, both inside their windows and the shift.
pub(super) fn pair_meets_shift(
    pickup: &Place,
    delivery: &Place,
    travel: Time,
    v: &Vehicle,
) -> bool {
    windows(pickup).iter().any(|w| {
        let at = w.start.max(v.shift.start);
        at <= w.end
            && windows(delivery).iter().any(|x| {
                let then = x.start.max(at + pickup.service + travel);
                then <= x.end && then + delivery.service <= v.shift.end
            })
    })
}

/// The shortest travel from `from` to `to` over any chain of locations: a matrix need not obey
/// the triangle inequality, so the direct arc is no lower bound. Dijkstra on the dense matrix,
/// O(n²), stopping once `to` is settled.
pub(super) fn shortest_travel(m: &Matrix, from: usize, to: usize) -> Time {
    let n = m.size();
    let mut dist = vec![Time::MAX; n];
    let mut done = vec![false; n];
    dist[from] = 0;
    loop {
        let Some(u) = (0..n).filter(|&i| !done[i]).min_by_key(|&i| dist[i]) else {
            return dist[to];
        };
        if u == to || dist[u] == Time::MAX {
            return dist[to];
        }
        done[u] = true;
        let du = dist[u];
        for (w, (d, &settled)) in dist.iter_mut().zip(&done).enumerate() {
            if !settled {
                *d = (*d).min(du + m.duration(u, w));
            }
        }
    }
}
