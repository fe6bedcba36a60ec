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
use schedule::simulate;

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
/// dimension, its deliveries before their pickups, and the first constraint of its schedule it
/// breaks (see [`simulate`]). Empty when the sequence keeps every constraint but eligibility.
pub(crate) fn violations(inst: &Instance, v: usize, nodes: &[u32]) -> Vec<Violation> {
    let mut broken = Vec::new();
    capacity::measure(inst, v, nodes, &mut broken);
    broken.extend(precedence::measure(inst, nodes));
    if let Err(late) = simulate(inst, v, nodes, None) {
        broken.push(late);
    }
    broken
}

/// Whether a visit sequence satisfies every constraint on vehicle `v` (eligibility aside).
pub(crate) fn feasible(inst: &Instance, v: usize, nodes: &[u32]) -> bool {
    violations(inst, v, nodes).is_empty()
}
