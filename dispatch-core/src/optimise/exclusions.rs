//! Checks made before solving: orders that cannot be planned on this day whatever the fleet
//! does (no location, due another date, not available on the weekday, outside the zone group,
//! assigned to a vehicle not in the plan).

use std::collections::HashMap;

use super::{DayRequest, UnservedOrder, UnservedReason};
use crate::model::location::Coordinates;
use crate::model::order::{Endpoint, Order, OrderType, Side};

/// The ends an order's type visits, in visiting order.
pub(crate) fn visited_sides(kind: OrderType) -> &'static [Side] {
    match kind {
        OrderType::Delivery => &[Side::Delivery],
        OrderType::Pickup => &[Side::Pickup],
        OrderType::Shipment => &[Side::Pickup, Side::Delivery],
    }
}

/// The coordinates of an end, when it has valid ones.
pub(crate) fn coordinates(end: &Endpoint) -> Option<Coordinates> {
    Coordinates::new(end.lat?, end.lng?)
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::Delivery => "delivery",
        Side::Pickup => "pickup",
    }
}

fn unserved(order: &Order, reason: UnservedReason, detail: String) -> UnservedOrder {
    UnservedOrder {
        order_id: order.id,
        reason,
        description: format!("{}: {detail}", reason.description()),
    }
}

/// An order without coordinates at an end it visits.
pub(crate) fn missing_location(order: &Order) -> Option<UnservedOrder> {
    let side = visited_sides(order.kind)
        .iter()
        .find(|&&s| coordinates(order.endpoint(s)).is_none())?;
    Some(unserved(
        order,
        UnservedReason::NoLocation,
        format!(
            "the {} end has no valid latitude and longitude",
            side_name(*side)
        ),
    ))
}

/// The first reason the order cannot be planned on the request's day, if any. `vehicle_index`
/// maps the ids of the plan's vehicles.
pub(crate) fn day_exclusion(
    req: &DayRequest,
    order: &Order,
    vehicle_index: &HashMap<i64, usize>,
    shifts_over: &[i64],
) -> Option<UnservedOrder> {
    if let Some(u) = missing_location(order) {
        return Some(u);
    }
    if let Some(due) = order.delivery_date.filter(|&d| d != req.date) {
        return Some(unserved(
            order,
            UnservedReason::DeliveryDate,
            format!("it is due on {due}, the plan is for {}", req.date),
        ));
    }
    let weekday = req.date.weekday();
    for &side in visited_sides(order.kind) {
        let days = &order.endpoint(side).available_days;
        if !days.is_empty() && !days.contains(&weekday) {
            let listed: Vec<&str> = days.iter().map(|d| d.as_str()).collect();
            return Some(unserved(
                order,
                UnservedReason::AvailableDays,
                format!(
                    "the {} end is available on {}, the plan date {} is a {}",
                    side_name(side),
                    listed.join(", "),
                    req.date,
                    weekday.as_str()
                ),
            ));
        }
    }
    if let Some(zones) = req.zones {
        for &side in visited_sides(order.kind) {
            let at = coordinates(order.endpoint(side)).expect("checked above");
            if !zones.iter().any(|z| z.polygon.contains(at)) {
                return Some(unserved(
                    order,
                    UnservedReason::OutsideZone,
                    format!(
                        "the {} end ({}, {}) is in none of the group's {} zones",
                        side_name(side),
                        at.lat,
                        at.lng,
                        zones.len()
                    ),
                ));
            }
        }
    }
    if let Some(v) = order.vehicle_id {
        if !vehicle_index.contains_key(&v) {
            let why = match req.not_before {
                Some(start) if shifts_over.contains(&v) => format!(
                    "whose shift on {} is over by {}, when this plan starts",
                    req.date,
                    start.time_of_day()
                ),
                _ => "which is not available for this plan".to_owned(),
            };
            return Some(unserved(
                order,
                UnservedReason::NoVehicle,
                format!("it is assigned to vehicle {v}, {why}"),
            ));
        }
    }
    None
}
