//! Route limits: at most `max_tasks` visits (breaks excluded), at most `max_travel_time` of
//! driving, and at most `max_duration` from the route's start to its end.
//!
//! Visits and travel are known before any timing, from the visit sequence (or a route's cached
//! travel plus a move's change of it); the duration only from the simulation's schedule, so a
//! vehicle with a duration limit has its candidates re-simulated
//! ([`VehicleData::fast`] is false).

use super::{Kind, Violation};
use crate::solver::instance::{VehicleData, INF};
use crate::solver::problem::Time;

/// Whether a route of `tasks` visits keeps the vehicle's `max_tasks`.
#[inline]
pub(crate) fn tasks_fit(vd: &VehicleData, tasks: usize) -> bool {
    tasks <= vd.max_tasks
}

/// Whether a route driving `travel` keeps the vehicle's `max_travel_time`.
#[inline]
pub(crate) fn travel_fits(vd: &VehicleData, travel: Time) -> bool {
    travel <= vd.max_travel
}

/// Whether a route from `start` to `end` keeps the vehicle's `max_duration`.
#[inline]
pub(crate) fn duration_fits(vd: &VehicleData, start: Time, end: Time) -> bool {
    vd.max_duration.is_none_or(|d| end - start <= d)
}

/// Whether the vehicle has no travel limit: a route's travel then never decides a move.
#[inline]
pub(crate) fn no_travel_limit(vd: &VehicleData) -> bool {
    vd.max_travel >= INF
}

/// Whether the vehicle has none of the three limits.
#[inline]
pub(crate) fn unlimited(vd: &VehicleData) -> bool {
    vd.fast && no_travel_limit(vd) && vd.max_tasks == usize::MAX
}

/// The visits above `max_tasks` of a route of `tasks` visits ([`Kind::ExcessTasks`]), if any.
pub(crate) fn excess_tasks(vd: &VehicleData, tasks: usize) -> Option<Violation> {
    (!tasks_fit(vd, tasks)).then(|| Violation {
        kind: Kind::ExcessTasks,
        amount: (tasks - vd.max_tasks) as i64,
    })
}

/// The travel above `max_travel_time` of a route driving `travel` ([`Kind::ExcessTravel`]),
/// if any.
pub(crate) fn excess_travel(vd: &VehicleData, travel: Time) -> Option<Violation> {
    (!travel_fits(vd, travel)).then(|| Violation {
        kind: Kind::ExcessTravel,
        amount: travel - vd.max_travel,
    })
}

/// The time above `max_duration` of a route from `start` to `end` ([`Kind::ExcessDuration`]),
/// if any.
pub(crate) fn excess_duration(vd: &VehicleData, start: Time, end: Time) -> Option<Violation> {
    let max = vd.max_duration?;
    (end - start > max).then(|| Violation {
        kind: Kind::ExcessDuration,
        amount: end - start - max,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::instance::Instance;
    use crate::solver::problem::*;

    fn limited(
        max_tasks: Option<usize>,
        travel: Option<Time>,
        duration: Option<Time>,
    ) -> VehicleData {
        let p = Problem {
            name: "limits".into(),
            matrix: plane(&[(0, 0), (0, 10)]),
            jobs: vec![job(1, 1)],
            shipments: vec![],
            vehicles: vec![Vehicle {
                max_tasks,
                max_travel_time: travel,
                max_duration: duration,
                ..vehicle(1, 5)
            }],
            dimensions: 1,
            objective: Objective::Duration,
        };
        Instance::new(&p).vehicles[0].clone()
    }

    #[test]
    fn a_route_at_its_limits_keeps_them() {
        let vd = limited(Some(3), Some(100), Some(500));
        assert!(tasks_fit(&vd, 3) && travel_fits(&vd, 100) && duration_fits(&vd, 20, 520));
        assert_eq!(excess_tasks(&vd, 3), None);
        assert_eq!(excess_travel(&vd, 100), None);
        assert_eq!(excess_duration(&vd, 20, 520), None);
        assert!(!unlimited(&vd) && !no_travel_limit(&vd));
    }

    #[test]
    fn the_excess_over_each_limit_is_measured_in_its_unit() {
        let vd = limited(Some(3), Some(100), Some(500));
        assert!(!tasks_fit(&vd, 5) && !travel_fits(&vd, 130) && !duration_fits(&vd, 0, 510));
        let over = |kind, amount| Some(Violation { kind, amount });
        assert_eq!(excess_tasks(&vd, 5), over(Kind::ExcessTasks, 2));
        assert_eq!(excess_travel(&vd, 130), over(Kind::ExcessTravel, 30));
        assert_eq!(excess_duration(&vd, 0, 510), over(Kind::ExcessDuration, 10));
    }

    #[test]
    fn a_vehicle_without_limits_never_exceeds_one() {
        let vd = limited(None, None, None);
        assert!(unlimited(&vd) && no_travel_limit(&vd));
        assert!(tasks_fit(&vd, usize::MAX - 1) && travel_fits(&vd, INF - 1));
        assert!(duration_fits(&vd, 0, INF));
        assert_eq!(excess_duration(&vd, 0, INF), None);
    }
}
