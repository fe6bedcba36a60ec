//! Dispatch rules: which routes a plan or route dispatch sends, why one is refused, and which
//! orders a route being dispatched leaves behind because the live order book changed since it
//! was planned. Pure functions over the facts a use case reads in its transaction; the use case
//! then applies the order transitions ([`crate::status::OrderEvent::Dispatched`]) and events.

use crate::model::route_edit::is_completed;
use crate::status::{Status, ROUTED};
use crate::time::Date;

/// What a route's dispatch needs to know about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteFacts {
    /// The route.
    pub id: i64,
    /// Already sent to the driver.
    pub dispatched: bool,
    /// A vehicle is assigned.
    pub has_vehicle: bool,
    /// It belongs to the plan's active solution (not one left behind by re-optimisation).
    pub in_active_solution: bool,
}

/// What the id of `POST /plans/{id}/dispatch` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanTarget {
    /// The plan itself.
    Plan,
    /// The plan's active solution.
    ActiveSolution,
    /// Another (superseded) solution of the plan.
    OtherSolution,
}

/// The plan as a dispatch sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFacts {
    /// Already dispatched (one-way).
    pub dispatched: bool,
    /// An optimisation of it is queued or running.
    pub optimising: bool,
    /// It has a finished optimisation (an active solution).
    pub has_solution: bool,
    /// Every route the plan ever had.
    pub routes: Vec<RouteFacts>,
}

/// Why a dispatch is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DispatchRejection {
    /// A repeat dispatch (409 ALREADY_DISPATCHED).
    #[error("already dispatched")]
    AlreadyDispatched,
    /// An optimisation of the plan is still queued or running (400).
    #[error("the plan is still optimising; dispatch it when its optimisation has finished")]
    StillOptimising,
    /// The plan has no finished optimisation to dispatch (400).
    #[error("the plan has no finished optimisation to dispatch")]
    NoSolution,
    /// The id names a solution of the plan that is no longer its active one (400).
    #[error("the id names an earlier optimisation of the plan, not its active one")]
    NotActiveSolution,
    /// A route to dispatch has no vehicle (400).
    #[error("route {0} has no vehicle assigned")]
    NoVehicle(i64),
    /// The route was left behind by a re-optimisation and is not part of the plan any more (400).
    #[error("route {0} belongs to an earlier optimisation of its plan")]
    Superseded(i64),
}

/// An accepted dispatch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchDecision {
    /// The routes this call dispatches, by id.
    pub routes: Vec<i64>,
    /// Whether the plan becomes dispatched (and `plans.dispatched` fires).
    pub plan_dispatched: bool,
}

fn check_plan(plan: &PlanFacts) -> Result<(), DispatchRejection> {
    if plan.optimising {
        return Err(DispatchRejection::StillOptimising);
    }
    if !plan.has_solution {
        return Err(DispatchRejection::NoSolution);
    }
    Ok(())
}

/// `POST /plans/{id}/dispatch`: every undispatched route of the active solution, all or none.
pub fn dispatch_plan(
    plan: &PlanFacts,
    target: PlanTarget,
) -> Result<DispatchDecision, DispatchRejection> {
    if target == PlanTarget::OtherSolution {
        return Err(DispatchRejection::NotActiveSolution);
    }
    if plan.dispatched {
        return Err(DispatchRejection::AlreadyDispatched);
    }
    check_plan(plan)?;
    let pending: Vec<&RouteFacts> = plan
        .routes
        .iter()
        .filter(|r| r.in_active_solution && !r.dispatched)
        .collect();
    if let Some(r) = pending.iter().find(|r| !r.has_vehicle) {
        return Err(DispatchRejection::NoVehicle(r.id));
    }
    Ok(DispatchDecision {
        routes: pending.iter().map(|r| r.id).collect(),
        plan_dispatched: true,
    })
}

/// `POST /routes/{id}/dispatch`: one route; the plan becomes dispatched with its last
/// undispatched route.
pub fn dispatch_route(
    plan: &PlanFacts,
    route_id: i64,
) -> Result<DispatchDecision, DispatchRejection> {
    let route = plan
        .routes
        .iter()
        .find(|r| r.id == route_id)
        .copied()
        .unwrap_or(RouteFacts {
            id: route_id,
            dispatched: false,
            has_vehicle: false,
            in_active_solution: false,
        });
    if route.dispatched {
        return Err(DispatchRejection::AlreadyDispatched);
    }
    check_plan(plan)?;
    if !route.in_active_solution {
        return Err(DispatchRejection::Superseded(route_id));
    }
    if !route.has_vehicle {
        return Err(DispatchRejection::NoVehicle(route_id));
    }
    let others_pending = plan
        .routes
        .iter()
        .any(|r| r.id != route_id && r.in_active_solution && !r.dispatched);
    Ok(DispatchDecision {
        routes: vec![route_id],
        plan_dispatched: !plan.dispatched && !others_pending,
    })
}

/// Why an order on a route being dispatched is dropped from it instead of dispatched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// The order was deleted.
    Deleted,
    /// Delivered or undelivered, in full or in part (by a driver on another route, or by a
    /// status write).
    Completed,
    /// On another active route (dispatched, not completed by its driver), or ROUTED by one.
    OnAnotherRoute,
    /// Re-dated: its `delivery_date` is no longer the route's date.
    Redated,
}

impl DropReason {
    /// The reason's code on the wire (the plan's `unserved` reasons where one fits).
    pub fn code(self) -> &'static str {
        match self {
            DropReason::Deleted => "ORDER_DELETED",
            DropReason::Completed => "ORDER_COMPLETED",
            DropReason::OnAnotherRoute => "ALREADY_ROUTED",
            DropReason::Redated => "DELIVERY_DATE",
        }
    }

    /// What the reason means, for people.
    pub fn description(self) -> &'static str {
        match self {
            DropReason::Deleted => "the order was deleted",
            DropReason::Completed => "the order is already delivered or undelivered",
            DropReason::OnAnotherRoute => "the order is on another dispatched route",
            DropReason::Redated => "the order is no longer due on the route's date",
        }
    }
}

/// The live state of one order on a route being dispatched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderFacts {
    /// The order is deleted.
    Deleted,
    /// The order is live.
    Live {
        /// Its status.
        status: Status,
        /// Its `delivery_date`.
        delivery_date: Option<Date>,
        /// It has a stop on another dispatched route its driver has not completed.
        on_other_active_route: bool,
    },
}

/// Whether an order on a route of `route_date` is dropped from it at dispatch, and why. The
/// first reason that holds is given: deleted, completed, on another route, re-dated. An order
/// with a custom status stays (its status is the driver's or the depot's outcome and is kept).
pub fn drop_reason(route_date: Date, order: &OrderFacts) -> Option<DropReason> {
    let OrderFacts::Live {
        status,
        delivery_date,
        on_other_active_route,
    } = order
    else {
        return Some(DropReason::Deleted);
    };
    if is_completed(status) {
        Some(DropReason::Completed)
    } else if *on_other_active_route || status.as_str() == ROUTED {
        Some(DropReason::OnAnotherRoute)
    } else if delivery_date.is_some_and(|d| d != route_date) {
        Some(DropReason::Redated)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn route(id: i64, dispatched: bool, has_vehicle: bool, active: bool) -> RouteFacts {
        RouteFacts {
            id,
            dispatched,
            has_vehicle,
            in_active_solution: active,
        }
    }

    fn plan(routes: Vec<RouteFacts>) -> PlanFacts {
        PlanFacts {
            dispatched: false,
            optimising: false,
            has_solution: true,
            routes,
        }
    }

    #[test]
    fn plan_dispatch_sends_the_undispatched_routes_of_the_active_solution_only() {
        let p = plan(vec![
            route(1, true, true, false),
            route(2, false, true, false),
            route(3, true, true, true),
            route(4, false, true, true),
        ]);
        let d = dispatch_plan(&p, PlanTarget::Plan).unwrap();
        assert_eq!(d.routes, vec![4]);
        assert!(d.plan_dispatched);
        assert_eq!(dispatch_plan(&p, PlanTarget::ActiveSolution).unwrap(), d);
    }

    #[test]
    fn plan_dispatch_refusals_each_have_their_own_name() {
        let mut p = plan(vec![route(1, false, false, true)]);
        assert_eq!(
            dispatch_plan(&p, PlanTarget::Plan),
            Err(DispatchRejection::NoVehicle(1))
        );
        assert_eq!(
            dispatch_plan(&p, PlanTarget::OtherSolution),
            Err(DispatchRejection::NotActiveSolution)
        );
        p.optimising = true;
        assert_eq!(
            dispatch_plan(&p, PlanTarget::Plan),
            Err(DispatchRejection::StillOptimising)
        );
        p.optimising = false;
        p.has_solution = false;
        assert_eq!(
            dispatch_plan(&p, PlanTarget::Plan),
            Err(DispatchRejection::NoSolution)
        );
        p.dispatched = true;
        assert_eq!(
            dispatch_plan(&p, PlanTarget::Plan),
            Err(DispatchRejection::AlreadyDispatched)
        );
    }

    #[test]
    fn route_dispatch_dispatches_the_plan_with_its_last_route() {
        let p = plan(vec![
            route(1, false, true, true),
            route(2, false, true, true),
        ]);
        let first = dispatch_route(&p, 1).unwrap();
        assert_eq!(first.routes, vec![1]);
        assert!(!first.plan_dispatched);
        let p = plan(vec![
            route(1, true, true, true),
            route(2, false, true, true),
        ]);
        assert!(dispatch_route(&p, 2).unwrap().plan_dispatched);
        assert_eq!(
            dispatch_route(&p, 1),
            Err(DispatchRejection::AlreadyDispatched)
        );
    }

    #[test]
    fn route_dispatch_refuses_superseded_vehicleless_and_optimising() {
        let mut p = plan(vec![
            route(1, false, true, false),
            route(2, false, false, true),
        ]);
        assert_eq!(dispatch_route(&p, 1), Err(DispatchRejection::Superseded(1)));
        assert_eq!(dispatch_route(&p, 2), Err(DispatchRejection::NoVehicle(2)));
        p.optimising = true;
        assert_eq!(
            dispatch_route(&p, 2),
            Err(DispatchRejection::StillOptimising)
        );
    }

    fn live(status: &str, date: Option<Date>, elsewhere: bool) -> OrderFacts {
        OrderFacts::Live {
            status: Status::from_stored(status),
            delivery_date: date,
            on_other_active_route: elsewhere,
        }
    }

    #[test]
    fn orders_deleted_completed_routed_elsewhere_or_redated_are_dropped_with_their_reason() {
        let day = Date::from_ymd(2026, 3, 2).unwrap();
        let next = Date::from_ymd(2026, 3, 3).unwrap();
        let reason = |o: &OrderFacts| drop_reason(day, o);
        assert_eq!(reason(&OrderFacts::Deleted), Some(DropReason::Deleted));
        assert_eq!(reason(&live("OPEN", Some(day), false)), None);
        assert_eq!(reason(&live("OPEN", None, false)), None);
        assert_eq!(reason(&live("RETURNED", Some(day), false)), None);
        for done in [
            "DELIVERED",
            "UNDELIVERED",
            "PARTIALLY_DELIVERED",
            "PARTIALLY_UNDELIVERED",
        ] {
            assert_eq!(
                reason(&live(done, Some(next), true)),
                Some(DropReason::Completed),
                "{done}"
            );
        }
        assert_eq!(
            reason(&live("OPEN", Some(day), true)),
            Some(DropReason::OnAnotherRoute)
        );
        assert_eq!(
            reason(&live("ROUTED", Some(day), false)),
            Some(DropReason::OnAnotherRoute)
        );
        assert_eq!(
            reason(&live("OPEN", Some(next), false)),
            Some(DropReason::Redated)
        );
        assert_eq!(DropReason::Redated.code(), "DELIVERY_DATE");
    }
}
