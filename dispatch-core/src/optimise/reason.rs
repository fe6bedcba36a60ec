//! Why an order is not on a route: stable wire codes and sentences for people.

use crate::solver::solution::Reason;

/// The constraint that kept an order off every route. The codes are stable and appear on the
/// wire as an unserved stop's `reason`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UnservedReason {
    /// No vehicle has all the skills the order needs (or its assigned vehicle lacks them).
    Skills,
    /// The order's load exceeds the capacity of every vehicle that could serve it.
    Capacity,
    /// No vehicle can reach it inside its time windows.
    TimeWindow,
    /// It cannot be served within any vehicle's shift (or route limits, or break).
    Shift,
    /// Its available days do not include the plan date's weekday.
    AvailableDays,
    /// No vehicle may serve it: no vehicles, or its assigned vehicle is not in the plan.
    NoVehicle,
    /// Feasible on its own, but no room was found beside the other orders.
    NotPlaced,
    /// Feasible only on a route that reaches it through another stop, and no such route was
    /// found (code `NOT_PLACED`).
    NotPlacedThroughAStop,
    /// A visited end has no coordinates.
    NoLocation,
    /// A visited end lies outside every zone of the requested zone group.
    OutsideZone,
    /// The order is due on another date.
    DeliveryDate,
}

impl UnservedReason {
    /// The stable wire code, e.g. `TIME_WINDOW`.
    pub fn code(self) -> &'static str {
        match self {
            UnservedReason::Skills => "SKILLS",
            UnservedReason::Capacity => "CAPACITY",
            UnservedReason::TimeWindow => "TIME_WINDOW",
            UnservedReason::Shift => "SHIFT",
            UnservedReason::AvailableDays => "AVAILABLE_DAYS",
            UnservedReason::NoVehicle => "NO_VEHICLE",
            UnservedReason::NotPlaced | UnservedReason::NotPlacedThroughAStop => "NOT_PLACED",
            UnservedReason::NoLocation => "NO_LOCATION",
            UnservedReason::OutsideZone => "OUTSIDE_ZONE",
            UnservedReason::DeliveryDate => "DELIVERY_DATE",
        }
    }

    /// The general sentence for the code (descriptions of unserved orders add specifics).
    pub fn description(self) -> &'static str {
        match self {
            UnservedReason::Skills => "no vehicle has all the skills this order requires",
            UnservedReason::Capacity => {
                "the order's load exceeds the capacity of every vehicle that could serve it"
            }
            UnservedReason::TimeWindow => "no vehicle can reach the order within its time windows",
            UnservedReason::Shift => {
                "no vehicle can serve the order and finish within its shift, break and route limits"
            }
            UnservedReason::AvailableDays => {
                "the order is not available on the plan date's weekday"
            }
            UnservedReason::NoVehicle => "there is no vehicle that may serve this order",
            UnservedReason::NotPlaced => {
                "the order fits a vehicle on its own but not beside the other orders"
            }
            UnservedReason::NotPlacedThroughAStop => {
                "the order fits a vehicle only on a route that drives to it through another stop, \
                 and no such route was found"
            }
            UnservedReason::NoLocation => "the order's location has no coordinates",
            UnservedReason::OutsideZone => "the order lies outside every zone of the zone group",
            UnservedReason::DeliveryDate => "the order is due on another date",
        }
    }
}

impl From<Reason> for UnservedReason {
    fn from(r: Reason) -> UnservedReason {
        match r {
            Reason::Skills => UnservedReason::Skills,
            Reason::Capacity => UnservedReason::Capacity,
            Reason::TimeWindow => UnservedReason::TimeWindow,
            Reason::Shift => UnservedReason::Shift,
            Reason::AvailableDays => UnservedReason::AvailableDays,
            Reason::NoVehicle => UnservedReason::NoVehicle,
            Reason::NotPlaced => UnservedReason::NotPlaced,
            Reason::NotPlacedThroughAVisit => UnservedReason::NotPlacedThroughAStop,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_order_that_fits_only_through_another_stop_keeps_the_code_but_not_the_alone_sentence() {
        let r = UnservedReason::from(Reason::NotPlacedThroughAVisit);
        assert_eq!(r.code(), "NOT_PLACED");
        assert!(r.description().contains("through another stop"));
        assert!(!r.description().contains("on its own"));
    }
}
