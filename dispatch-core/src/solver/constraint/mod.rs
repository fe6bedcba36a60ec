//! The constraints of a route, one module each. Each answers the feasibility questions the
//! insertion code, the operators, the route caches and the simulation ask (in the integer
//! arithmetic they decide on), and measures how far a visit sequence breaks it: a
//! [`Violation`] of a [`Kind`] and an amount in the problem's units, for searches that price
//! infeasible routes.
//!
//! - [`windows`]: service and breaks inside their windows, the route inside its shift.
//! - [`breaks`]: every break of a used vehicle taken, and where.
//! - [`limits`]: visits, travel time and duration of a route.
//! - [`capacity`]: load on board within the capacity, per dimension.
//! - [`precedence`]: a shipment's pickup before its delivery, on one route.
//! - [`eligibility`]: skills and pinned vehicles (never priced).
//!
//! [`schedule`] simulates a whole route against windows, breaks and limits (the timetable of
//! the output, and the exact check where the route caches cannot decide); [`feasible`] and
//! [`violations`] judge a whole visit sequence against every constraint but eligibility.

pub(crate) mod breaks;
pub(crate) mod capacity;
pub(crate) mod eligibility;
pub(crate) mod limits;
pub(crate) mod precedence;
pub(crate) mod schedule;
mod timing;
pub(crate) mod windows;

use super::instance::Instance;

/// Which constraint a route breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Time the vehicle would have to travel back to start its visits inside their windows
    /// and reach its end by the end of its shift.
    TimeWarp,
    /// Break `b` of the vehicle fits no gap of the route: by the least time a gap misses it.
    Break(usize),
    /// Visits above `max_tasks`.
    ExcessTasks,
    /// Travel time above `max_travel_time`.
    ExcessTravel,
    /// Time from the route's start to its end above `max_duration`.
    ExcessDuration,
    /// Load above the capacity of this dimension, at the route's peak.
    ExcessLoad(usize),
    /// Deliveries visited without their shipment's pickup before them, counted.
    DeliveryBeforePickup,
}

/// How far a route breaks one constraint: `amount` in the problem's units of its [`Kind`]
/// (time, load, visits); zero when the route keeps it. Measures list broken constraints only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Violation {
    pub kind: Kind,
    pub amount: i64,
}

/// What the visit sequence `nodes` breaks on vehicle `v`: its load above capacity in each
/// dimension, its deliveries before their pickups, and what its schedule breaks (see
/// [`schedule::measure`]). Empty when the sequence keeps every constraint but eligibility.
/// For a search that prices infeasible routes of any kind; the searches today ask only
/// [`feasible`] of a whole sequence (the time-warp search prices its segments instead).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn violations(inst: &Instance, v: usize, nodes: &[u32]) -> Vec<Violation> {
    let mut broken = Vec::new();
    capacity::measure(inst, v, nodes, &mut broken);
    broken.extend(precedence::measure(inst, nodes));
    schedule::measure(inst, v, nodes, &mut broken);
    broken
}

/// Whether a visit sequence satisfies every constraint on vehicle `v` (eligibility aside):
/// [`violations`] is empty. Decided without measuring, at the first constraint broken: the
/// capacity first (no matrix read), then the precedence, then the simulation. Most sequences
/// the moves try are refused, and measuring each (the schedule's legs read twice, the breaks
/// placed twice) slows the search, most on a matrix too large for the cache.
pub(crate) fn feasible(inst: &Instance, v: usize, nodes: &[u32]) -> bool {
    capacity::keeps(inst, v, nodes)
        && precedence::keeps(inst, nodes)
        && schedule::simulate(inst, v, nodes, None).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::fixtures::{job, plane, vehicle};
    use crate::solver::problem::*;

    /// Depot 0 at (0,0); job 1 at (0,10) closing at 5, job 2 at (0,20) (each delivering one
    /// unit); a shipment of 3 from (0,20) to (0,10); a vehicle of capacity 1.
    fn day() -> Problem {
        let mut late = job(1, 1);
        late.place.time_windows = vec![TimeWindow { start: 0, end: 5 }];
        let place = |location| Place {
            location,
            setup: 0,
            service: 0,
            time_windows: vec![],
        };
        Problem {
            name: "all".into(),
            matrix: plane(&[(0, 0), (0, 10), (0, 20)]),
            jobs: vec![late, job(2, 2)],
            shipments: vec![Shipment {
                pickup_id: 3,
                delivery_id: 4,
                pickup: place(2),
                delivery: place(1),
                amount: vec![3],
                skills: Skills::default(),
                priority: 0,
                pinned_vehicle: None,
            }],
            vehicles: vec![vehicle(1, 1)],
            dimensions: 1,
            objective: Objective::Duration,
        }
    }

    #[test]
    fn a_feasible_sequence_breaks_nothing() {
        let p = day();
        let inst = Instance::new(&p);
        assert_eq!(violations(&inst, 0, &[1]), vec![]);
        assert!(feasible(&inst, 0, &[1]));
    }

    #[test]
    fn a_sequence_reports_its_load_its_precedence_and_its_schedule_together() {
        let p = day();
        let inst = Instance::new(&p);
        // Nodes: job 1 (0), job 2 (1), pickup (2), delivery (3). Both jobs' deliveries on
        // board at the start (2 of capacity 1), the delivery before its pickup, and job 1
        // reached at 30 after its window closed at 5.
        let broken = violations(&inst, 0, &[3, 2, 1, 0]);
        let kinds: Vec<(Kind, i64)> = broken.iter().map(|v| (v.kind, v.amount)).collect();
        assert_eq!(
            kinds,
            vec![
                (Kind::ExcessLoad(0), 1),
                (Kind::DeliveryBeforePickup, 1),
                (Kind::TimeWarp, 25),
            ]
        );
        assert!(!feasible(&inst, 0, &[3, 2, 1, 0]));
    }

    #[test]
    fn a_sequence_is_feasible_exactly_when_it_breaks_nothing() {
        let p = day();
        let inst = Instance::new(&p);
        // Every ordered sequence of distinct nodes, up to all four.
        fn each(prefix: &mut Vec<u32>, f: &mut dyn FnMut(&[u32])) {
            f(prefix);
            for x in 0..4u32 {
                if !prefix.contains(&x) {
                    prefix.push(x);
                    each(prefix, f);
                    prefix.pop();
                }
            }
        }
        let (mut kept, mut broken) = (0, 0);
        each(&mut Vec::new(), &mut |nodes| {
            let ok = violations(&inst, 0, nodes).is_empty();
            assert_eq!(feasible(&inst, 0, nodes), ok, "{nodes:?}");
            if ok {
                kept += 1;
            } else {
                broken += 1;
            }
        });
        assert!(kept > 0 && broken > 0);
    }
}
