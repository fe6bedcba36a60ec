//! The constraints of a route, one module each. Each answers the feasibility questions the
//! insertion code, the operators, the route caches and the simulation ask (in the integer
//! arithmetic they decide on), and measures how far a visit sequence breaks it: a
//! [`Violation`] of a [`Kind`] and an amount in the problem's units, for searches that price
//! infeasible routes.
//!
//! - [`capacity`]: load on board within the capacity, per dimension.
//! - [`precedence`]: a shipment's pickup before its delivery, on one route.
//! - [`eligibility`]: skills and pinned vehicles (never priced).

pub(crate) mod capacity;
pub(crate) mod eligibility;
pub(crate) mod precedence;

use super::instance::Instance;
use super::schedule::simulate;

/// Which constraint a route breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Time the vehicle would have to travel back to start its visits inside their windows
    /// and reach its end by the end of its shift.
    TimeWarp,
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

/// Whether a visit sequence satisfies every constraint on vehicle `v`.
pub(crate) fn feasible(inst: &Instance, v: usize, nodes: &[u32]) -> bool {
    let mut broken = Vec::new();
    capacity::measure(inst, v, nodes, &mut broken);
    broken.extend(precedence::measure(inst, nodes));
    broken.is_empty() && simulate(inst, v, nodes, None).is_some()
}
