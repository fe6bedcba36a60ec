//! Plans and their solutions. A plan is the dispatcher's handle on one day's optimisation: each
//! optimisation of it produces a [`Solution`] (its own integer id, drawn from the same sequence
//! as plan ids so "a plan id or the id of its active solution" is never ambiguous), and the
//! newest finished one is the plan's *active* solution. A plan's routes are the active
//! solution's routes plus every route dispatched from an earlier solution of the same plan
//! ([`Plan::shows_route`]).

use crate::model::route::Route;
use crate::time::{Date, Timestamp};

/// The outcome of optimising a set of orders for one date: routes plus what could not be placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Identifier.
    pub id: i64,
    /// The depot.
    pub depot_id: i64,
    /// The service date of its routes.
    pub date: Date,
    /// True once every route of the active solution is dispatched (one-way).
    pub dispatched: bool,
    /// The solution the plan currently shows; `None` until its first optimisation finished.
    pub active_solution_id: Option<i64>,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change (a finished optimisation, a dispatch ...).
    pub updated: Timestamp,
}

impl Plan {
    /// Whether `route` appears on this plan's reads: a route of the active solution, or one
    /// dispatched from an earlier solution of this plan.
    pub fn shows_route(&self, route: &Route) -> bool {
        route.plan_id == self.id
            && (route.dispatched || Some(route.solution_id) == self.active_solution_id)
    }
}

/// A plan to create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPlan {
    /// The service date of its routes.
    pub date: Date,
}

impl NewPlan {
    /// The plan as stored under `id`: undispatched, without a solution.
    pub fn stored(&self, id: i64, depot_id: i64, now: Timestamp) -> Plan {
        Plan {
            id,
            depot_id,
            date: self.date,
            dispatched: false,
            active_solution_id: None,
            created: now,
            updated: now,
        }
    }
}

/// The result of one optimisation of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// Identifier (unique across plans and solutions of every depot).
    pub id: i64,
    /// The plan.
    pub plan_id: i64,
    /// The optimisation that produced it.
    pub optimisation_id: String,
    /// Orders the optimisation took but could not place, in order-id order.
    pub unserved: Vec<UnservedOrder>,
    /// Creation instant.
    pub created: Timestamp,
}

/// An order an optimisation could not place, with the constraint that kept it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnservedOrder {
    /// The order.
    pub order_id: i64,
    /// Stable code (`SKILLS`, `CAPACITY`, `TIME_WINDOW`, `SHIFT`, `AVAILABLE_DAYS`,
    /// `NO_VEHICLE`, ...).
    pub reason: String,
    /// A sentence for people.
    pub description: String,
}
