//! Adding orders to and removing them from a route (`POST /routes/{id}/add-orders`,
//! `/remove-orders`): the per-order decision with its failure name, as pure functions over the
//! facts the use case reads in its transaction.
//!
//! Every failure name of the spec is a variant of [`EditFailure`]. Four of them name situations
//! this design never produces, because one call runs in one serialised write transaction:
//! [`EditFailure::StaleVisit`], [`EditFailure::RemovalFailed`] and [`EditFailure::AddFailed`]
//! (a storage failure rolls the whole call back and answers 5xx instead of a per-order entry);
//! they exist so the names stay one closed set. `docs/api.md` lists when each name occurs.

use crate::model::order::OrderType;
use crate::status::{Status, DELIVERED, PARTIAL_PREFIX, ROUTED, UNDELIVERED};

/// Most order references one add or remove call takes.
pub const MAX_ORDERS_PER_EDIT: usize = 10;
/// Most stops a route may have after an add with `reoptimize`.
pub const REOPTIMIZE_STOP_LIMIT: usize = 120;

/// A per-order failure of an add or remove call, named as the spec names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditFailure {
    /// The reference matches no live order of the depot.
    OrderNotFound,
    /// `id` and `order_number` were both sent and name different orders.
    IdNumberMismatch,
    /// Remove: the order has no stop on this route.
    NotOnRoute,
    /// The route is dispatched and `allow_dispatched` is not true.
    RouteDispatched,
    /// Add: the order is on an active route (this one, a dispatched one, or one of a plan's
    /// current optimisation) or is ROUTED.
    AlreadyRouted,
    /// Add: the order was on this route before and was removed.
    PreviouslyOnRoute,
    /// The order is delivered or undelivered, in full or in part.
    OrderCompleted,
    /// Add: shipments and exchange-linked orders cannot be added.
    OrderTypeUnsupported,
    /// Add: no stop can be built for the order (its served end has no coordinates).
    StopBuildFailed,
    /// Add with `reoptimize`: the solver declined the order.
    NotPlaced {
        /// Stable code of the constraint (`SKILLS`, `CAPACITY`, `TIME_WINDOW`, `SHIFT`, ...).
        reason: String,
        /// A sentence for people.
        description: String,
    },
    /// Add with `reoptimize`: existing stops plus additions exceed [`REOPTIMIZE_STOP_LIMIT`].
    ReoptimizeLimit,
    /// Remove: the order shares its stop with its exchange partner, which stays; the pair
    /// must be served in one visit, so the stop is left untouched.
    StopRebuildFailed,
    /// Never produced: the visit read is always current inside the call's transaction.
    StaleVisit,
    /// Never produced: a failed removal rolls the whole call back.
    RemovalFailed,
    /// Never produced: a failed addition rolls the whole call back.
    AddFailed,
}

impl EditFailure {
    /// The spec's name.
    pub fn name(&self) -> &'static str {
        match self {
            EditFailure::OrderNotFound => "ORDER_NOT_FOUND",
            EditFailure::IdNumberMismatch => "ID_NUMBER_MISMATCH",
            EditFailure::NotOnRoute => "NOT_ON_ROUTE",
            EditFailure::RouteDispatched => "ROUTE_DISPATCHED",
            EditFailure::AlreadyRouted => "ALREADY_ROUTED",
            EditFailure::PreviouslyOnRoute => "PREVIOUSLY_ON_ROUTE",
            EditFailure::OrderCompleted => "ORDER_COMPLETED",
            EditFailure::OrderTypeUnsupported => "ORDER_TYPE_UNSUPPORTED",
            EditFailure::StopBuildFailed => "STOP_BUILD_FAILED",
            EditFailure::NotPlaced { .. } => "NOT_PLACED",
            EditFailure::ReoptimizeLimit => "REOPTIMIZE_LIMIT",
            EditFailure::StopRebuildFailed => "STOP_REBUILD_FAILED",
            EditFailure::StaleVisit => "STALE_VISIT",
            EditFailure::RemovalFailed => "REMOVAL_FAILED",
            EditFailure::AddFailed => "ADD_FAILED",
        }
    }

    /// A sentence for people.
    pub fn description(&self) -> String {
        match self {
            EditFailure::OrderNotFound => "no order of this depot matches the reference".into(),
            EditFailure::IdNumberMismatch => {
                "the id and the order_number name different orders".into()
            }
            EditFailure::NotOnRoute => "the order has no stop on this route".into(),
            EditFailure::RouteDispatched => {
                "the route is dispatched; send settings.allow_dispatched true to change it".into()
            }
            EditFailure::AlreadyRouted => {
                "the order is already on an active route; remove it there first".into()
            }
            EditFailure::PreviouslyOnRoute => {
                "the order was on this route before and was removed".into()
            }
            EditFailure::OrderCompleted => "the order is delivered or undelivered".into(),
            EditFailure::OrderTypeUnsupported => {
                "shipments and exchange-linked orders cannot be added to a route".into()
            }
            EditFailure::StopBuildFailed => {
                "the order's location has no coordinates, so no stop can be built".into()
            }
            EditFailure::NotPlaced { description, .. } => description.clone(),
            EditFailure::ReoptimizeLimit => format!(
                "the route's stops plus the additions exceed {REOPTIMIZE_STOP_LIMIT}; nothing was solved"
            ),
            EditFailure::StopRebuildFailed => {
                "the stop also serves the order's exchange partner and cannot be split; remove both"
                    .into()
            }
            EditFailure::StaleVisit => "the stop changed during the call".into(),
            EditFailure::RemovalFailed => "the order could not be removed".into(),
            EditFailure::AddFailed => "the order could not be added".into(),
        }
    }
}

/// The route being edited, as the decisions see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RouteEditFacts {
    /// The route is dispatched.
    pub dispatched: bool,
    /// `settings.allow_dispatched`.
    pub allow_dispatched: bool,
}

/// One resolved order, as the decisions see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderEditFacts {
    /// Its type.
    pub kind: OrderType,
    /// It is half of an exchange pair.
    pub exchange_linked: bool,
    /// Its status.
    pub status: Status,
    /// It has a stop on this route now.
    pub on_this_route: bool,
    /// It was on this route at some time (now included).
    pub ever_on_this_route: bool,
    /// It has a stop on another active route (dispatched, or of a plan's current optimisation).
    pub on_other_active_route: bool,
    /// Its served end has coordinates.
    pub locatable: bool,
}

/// Delivered or undelivered, in full or in part (custom outcomes are not completions).
pub fn is_completed(status: &Status) -> bool {
    let s = status.as_str();
    let base = s.strip_prefix(PARTIAL_PREFIX).unwrap_or(s);
    base == DELIVERED || base == UNDELIVERED
}

fn route_allows(route: RouteEditFacts) -> Result<(), EditFailure> {
    if route.dispatched && !route.allow_dispatched {
        Err(EditFailure::RouteDispatched)
    } else {
        Ok(())
    }
}

/// Whether `order` may be appended to the route.
pub fn decide_add(route: RouteEditFacts, order: &OrderEditFacts) -> Result<(), EditFailure> {
    route_allows(route)?;
    if order.kind == OrderType::Shipment || order.exchange_linked {
        return Err(EditFailure::OrderTypeUnsupported);
    }
    if is_completed(&order.status) {
        return Err(EditFailure::OrderCompleted);
    }
    if order.ever_on_this_route && !order.on_this_route {
        return Err(EditFailure::PreviouslyOnRoute);
    }
    if order.on_this_route || order.on_other_active_route || order.status.as_str() == ROUTED {
        return Err(EditFailure::AlreadyRouted);
    }
    if !order.locatable {
        return Err(EditFailure::StopBuildFailed);
    }
    Ok(())
}

/// Whether `order` may be taken off the route.
pub fn decide_remove(route: RouteEditFacts, order: &OrderEditFacts) -> Result<(), EditFailure> {
    if !order.on_this_route {
        return Err(EditFailure::NotOnRoute);
    }
    route_allows(route)?;
    if is_completed(&order.status) {
        return Err(EditFailure::OrderCompleted);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open_order() -> OrderEditFacts {
        OrderEditFacts {
            kind: OrderType::Delivery,
            exchange_linked: false,
            status: Status::open(),
            on_this_route: false,
            ever_on_this_route: false,
            on_other_active_route: false,
            locatable: true,
        }
    }

    const OPEN_ROUTE: RouteEditFacts = RouteEditFacts {
        dispatched: false,
        allow_dispatched: false,
    };

    #[test]
    fn an_open_unrouted_located_delivery_or_pickup_can_be_added() {
        assert_eq!(decide_add(OPEN_ROUTE, &open_order()), Ok(()));
        let pickup = OrderEditFacts {
            kind: OrderType::Pickup,
            ..open_order()
        };
        assert_eq!(decide_add(OPEN_ROUTE, &pickup), Ok(()));
    }

    #[test]
    fn each_add_refusal_is_named_for_its_situation() {
        let dispatched = RouteEditFacts {
            dispatched: true,
            allow_dispatched: false,
        };
        assert_eq!(
            decide_add(dispatched, &open_order()),
            Err(EditFailure::RouteDispatched)
        );
        let allowed = RouteEditFacts {
            allow_dispatched: true,
            ..dispatched
        };
        assert_eq!(decide_add(allowed, &open_order()), Ok(()));
        let cases = [
            (
                OrderEditFacts {
                    kind: OrderType::Shipment,
                    ..open_order()
                },
                "ORDER_TYPE_UNSUPPORTED",
            ),
            (
                OrderEditFacts {
                    exchange_linked: true,
                    ..open_order()
                },
                "ORDER_TYPE_UNSUPPORTED",
            ),
            (
                OrderEditFacts {
                    status: Status::from_stored("PARTIALLY_DELIVERED"),
                    ..open_order()
                },
                "ORDER_COMPLETED",
            ),
            (
                OrderEditFacts {
                    ever_on_this_route: true,
                    ..open_order()
                },
                "PREVIOUSLY_ON_ROUTE",
            ),
            (
                OrderEditFacts {
                    on_this_route: true,
                    ever_on_this_route: true,
                    ..open_order()
                },
                "ALREADY_ROUTED",
            ),
            (
                OrderEditFacts {
                    on_other_active_route: true,
                    ..open_order()
                },
                "ALREADY_ROUTED",
            ),
            (
                OrderEditFacts {
                    status: Status::routed(),
                    ..open_order()
                },
                "ALREADY_ROUTED",
            ),
            (
                OrderEditFacts {
                    locatable: false,
                    ..open_order()
                },
                "STOP_BUILD_FAILED",
            ),
        ];
        for (order, name) in cases {
            assert_eq!(
                decide_add(OPEN_ROUTE, &order).unwrap_err().name(),
                name,
                "{order:?}"
            );
        }
    }

    #[test]
    fn removal_needs_the_order_on_the_route_an_allowed_route_and_an_unfinished_order() {
        let on = OrderEditFacts {
            on_this_route: true,
            ever_on_this_route: true,
            ..open_order()
        };
        assert_eq!(decide_remove(OPEN_ROUTE, &on), Ok(()));
        assert_eq!(
            decide_remove(OPEN_ROUTE, &open_order()),
            Err(EditFailure::NotOnRoute)
        );
        let dispatched = RouteEditFacts {
            dispatched: true,
            allow_dispatched: false,
        };
        assert_eq!(
            decide_remove(dispatched, &on),
            Err(EditFailure::RouteDispatched)
        );
        let done = OrderEditFacts {
            status: Status::from_stored("DELIVERED"),
            ..on.clone()
        };
        assert_eq!(
            decide_remove(
                RouteEditFacts {
                    allow_dispatched: true,
                    ..dispatched
                },
                &done
            ),
            Err(EditFailure::OrderCompleted)
        );
    }

    #[test]
    fn every_failure_has_a_distinct_spec_name_and_a_description() {
        let all = [
            EditFailure::OrderNotFound,
            EditFailure::IdNumberMismatch,
            EditFailure::NotOnRoute,
            EditFailure::RouteDispatched,
            EditFailure::AlreadyRouted,
            EditFailure::PreviouslyOnRoute,
            EditFailure::OrderCompleted,
            EditFailure::OrderTypeUnsupported,
            EditFailure::StopBuildFailed,
            EditFailure::NotPlaced {
                reason: "CAPACITY".into(),
                description: "too heavy".into(),
            },
            EditFailure::ReoptimizeLimit,
            EditFailure::StopRebuildFailed,
            EditFailure::StaleVisit,
            EditFailure::RemovalFailed,
            EditFailure::AddFailed,
        ];
        let names: std::collections::HashSet<_> = all.iter().map(|f| f.name()).collect();
        assert_eq!(names.len(), all.len());
        assert!(all.iter().all(|f| !f.description().is_empty()));
    }
}
