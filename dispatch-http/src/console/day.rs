//! What the board reads beside the v2 API, with the same access key and error envelope:
//!
//! - `GET /console/orders?date=D[&ids=1,2]`: the orders due on `D` (and the listed ones) with
//!   what a dispatcher plans by — order number, customer, address, the time windows and
//!   service duration the optimiser uses, demand per capacity type, skills, status. The v2
//!   order list carries only summaries, and a read per order would cost one request per stop.
//! - `GET /console/positions?date=D`: the latest reported position of each dispatched route of
//!   `D`, for the board's live map (the v2 route read has the driven distance, not where the
//!   van is).

use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};

use axum::extract::{Query, State};
use axum::Json;
use dispatch_core::model::customer::Customer;
use dispatch_core::model::order::{Order, OrderType, Side};
use dispatch_core::optimise::visit_windows;
use serde::Serialize;
use utoipa::ToSchema;

use super::query::{self, bad_query};
use crate::error::ApiError;
use crate::extract::Caller;
use crate::AppState;

/// At most this many `ids` per request (a plan's unserved orders of other dates).
const MAX_IDS: usize = 1000;

/// `GET /console/orders`'s parameters.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(super) struct OrdersQuery {
    /// `YYYY-MM-DD`, required: the orders due that day.
    date: String,
    /// Comma-separated order ids to include whatever their date (at most 1000).
    ids: Option<String>,
}

/// `GET /console/positions`'s parameter.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub(super) struct PositionsQuery {
    /// `YYYY-MM-DD`, required.
    date: String,
}

/// `{ date, orders }`.
#[derive(Serialize, ToSchema)]
pub struct ConsoleOrders {
    /// The date asked for.
    pub date: String,
    /// The live orders due that day, then the listed ones, by id.
    pub orders: Vec<ConsoleOrder>,
}

/// An order as the board shows and plans it.
#[derive(Serialize, ToSchema)]
pub struct ConsoleOrder {
    /// The order id.
    pub id: i64,
    /// Its number.
    pub order_number: String,
    /// Its status (OPEN, ROUTED, DELIVERED, PARTIALLY_DELIVERED, ...).
    pub status: String,
    /// `delivery`, `pickup` or `shipment`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `P1`, `P2`, `P3` or null.
    #[schema(required = true)]
    pub priority: Option<&'static str>,
    /// The day it is due.
    #[schema(required = true)]
    pub delivery_date: Option<String>,
    /// Its customer, if any.
    #[schema(required = true)]
    pub customer: Option<ConsoleCustomer>,
    /// Contact name of the served end.
    #[schema(required = true)]
    pub contact_name: Option<String>,
    /// Address of the served end (pickup for pickups, else delivery).
    #[schema(required = true)]
    pub address: Option<String>,
    /// Postcode of the served end.
    #[schema(required = true)]
    pub postcode: Option<String>,
    /// Latitude of the served end.
    #[schema(required = true)]
    pub lat: Option<f64>,
    /// Longitude of the served end.
    #[schema(required = true)]
    pub lng: Option<f64>,
    /// When service may start (depot time, `HH:mm`; `to` may be `24:00`, or before `from`
    /// for a window past midnight), as the optimiser reads them: the order's windows of the
    /// served end, else its customer's. Empty: any time.
    pub time_windows: Vec<ConsoleWindow>,
    /// Service time in seconds (the order's duration, else its customer's).
    pub service_seconds: i64,
    /// Demand per capacity type (the order's amount, else the sum of its line items').
    pub demand: Vec<ConsoleDemand>,
    /// Skills the vehicle needs (the order's and its customer's).
    pub skills: Vec<String>,
    /// The vehicle it is assigned to, if any.
    #[schema(required = true)]
    pub vehicle_id: Option<i64>,
}

/// A customer as the board names it.
#[derive(Serialize, ToSchema)]
pub struct ConsoleCustomer {
    /// The customer id.
    pub id: i64,
    /// Its account.
    pub account: String,
    /// Its name.
    #[schema(required = true)]
    pub name: Option<String>,
}

/// A service window, depot time.
#[derive(Serialize, ToSchema)]
pub struct ConsoleWindow {
    /// `HH:mm`.
    pub from: String,
    /// `HH:mm` (`24:00` for midnight).
    pub to: String,
}

/// An amount of one capacity type.
#[derive(Serialize, ToSchema)]
pub struct ConsoleDemand {
    /// The capacity type's name.
    #[serde(rename = "type")]
    pub kind: String,
    /// The amount.
    pub amount: f64,
}

/// `{ positions }`.
#[derive(Serialize, ToSchema)]
pub struct ConsolePositions {
    /// The latest position of each dispatched route of the date that has any, by route id.
    pub positions: Vec<ConsolePosition>,
}

/// Where a route's van was last reported.
#[derive(Serialize, ToSchema)]
pub struct ConsolePosition {
    /// The route.
    pub route_id: i64,
    /// Its vehicle, if it still exists.
    #[schema(required = true)]
    pub vehicle_id: Option<i64>,
    /// Latitude.
    pub lat: f64,
    /// Longitude.
    pub lng: f64,
    /// When the device measured it (ISO 8601, UTC).
    pub time: String,
    /// How many positions the route's track holds.
    pub reported: usize,
}

/// Every `ids` value's ids (the parameter may repeat), at most [`MAX_IDS`] in all.
fn ids_of(query: &query::Pairs) -> Result<Vec<i64>, ApiError> {
    let mut ids = Vec::new();
    for (_, value) in query.iter().filter(|(key, _)| key == "ids") {
        for part in value.split(',').filter(|s| !s.trim().is_empty()) {
            ids.push(part.trim().parse::<i64>().map_err(|_| {
                bad_query(
                    "ids",
                    "comma-separated order ids",
                    value,
                    "ids must be order ids separated by commas".into(),
                )
            })?);
        }
    }
    if ids.len() > MAX_IDS {
        return Err(bad_query(
            "ids",
            "at most 1000 ids",
            &format!("{} ids", ids.len()),
            format!("at most {MAX_IDS} ids per request"),
        ));
    }
    Ok(ids)
}

/// Seconds after midnight as `HH:mm`: midnight at the end of the day is `24:00`, a time past
/// it wraps (a window `22:00`-`02:00`).
fn clock(seconds: i64) -> String {
    let minutes = seconds.div_euclid(60);
    let minutes = if minutes == 24 * 60 {
        minutes
    } else {
        minutes.rem_euclid(24 * 60)
    };
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

fn render(
    order: &Order,
    customer: Option<&Customer>,
    types: &HashMap<i64, String>,
) -> ConsoleOrder {
    let side = if order.kind == OrderType::Pickup {
        Side::Pickup
    } else {
        Side::Delivery
    };
    let end = order.endpoint(side);
    let customer_applies = order.kind != OrderType::Shipment || side == Side::Delivery;
    let minutes = end.duration.or_else(|| {
        customer_applies
            .then(|| customer.and_then(|c| c.duration))
            .flatten()
    });
    let mut demand: Vec<ConsoleDemand> = Vec::new();
    let mut add = |id: i64, amount: f64| {
        let kind = types.get(&id).cloned().unwrap_or_else(|| id.to_string());
        match demand.iter_mut().find(|d| d.kind == kind) {
            Some(d) => d.amount += amount,
            None => demand.push(ConsoleDemand { kind, amount }),
        }
    };
    let own: BTreeSet<i64> = order
        .capacities
        .iter()
        .map(|c| c.capacity_type_id)
        .collect();
    for c in &order.capacities {
        add(c.capacity_type_id, c.amount);
    }
    for c in order.line_items.iter().flat_map(|i| &i.capacities) {
        if !own.contains(&c.capacity_type_id) && c.amount.is_finite() {
            add(c.capacity_type_id, c.amount);
        }
    }
    let mut skills = order.skills.clone();
    for s in customer.map_or(&[][..], |c| &c.skills[..]) {
        if !skills.contains(s) {
            skills.push(s.clone());
        }
    }
    ConsoleOrder {
        id: order.id,
        order_number: order.order_number.clone(),
        status: order.status.as_str().to_owned(),
        kind: order.kind.as_str(),
        priority: order.priority.map(|p| p.as_str()),
        delivery_date: order.delivery_date.map(|d| d.to_string()),
        customer: customer.map(|c| ConsoleCustomer {
            id: c.id,
            account: c.account.clone(),
            name: c.name.clone(),
        }),
        contact_name: end.contact_name.clone(),
        address: end.address.clone(),
        postcode: end.postcode.clone(),
        lat: end.lat,
        lng: end.lng,
        time_windows: visit_windows(order, customer, side)
            .iter()
            .map(|w| ConsoleWindow {
                from: clock(w.start),
                to: clock(w.end),
            })
            .collect(),
        service_seconds: minutes
            .filter(|m| m.is_finite() && *m > 0.0)
            .map_or(0, |m| (m * 60.0).round() as i64),
        demand,
        skills,
        vehicle_id: order.vehicle_id,
    }
}

/// `{ date, orders }`: the live orders due on `date` and the listed `ids`, with their windows,
/// service time, demand and skills as the optimiser reads them.
#[utoipa::path(get, path = "/console/orders", tag = "console", summary = "The orders of a day as the board plans them.", params(OrdersQuery), responses((status = 200, description = "`{ date, orders }`", body = ConsoleOrders), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
pub(super) async fn orders(
    State(state): State<AppState>,
    Caller(p): Caller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Json<ConsoleOrders>, ApiError> {
    query::only(&query, &["date", "ids"])?;
    let date = query::date(&query)?;
    let extra = ids_of(&query)?;
    let orders = state
        .blocking(move |s| {
            Ok(s.store.read(move |tx| {
                let scope = p.scope();
                let mut ids = tx.order_ids_due(scope, date)?;
                let due: BTreeSet<i64> = ids.iter().copied().collect();
                ids.extend(extra.into_iter().filter(|id| !due.contains(id)));
                let types: HashMap<i64, String> = tx
                    .list_capacity_types(scope)?
                    .into_iter()
                    .map(|t| (t.id, t.name))
                    .collect();
                let mut customers: HashMap<i64, Option<Customer>> = HashMap::new();
                let mut out = Vec::with_capacity(ids.len());
                let mut seen = BTreeSet::new();
                for id in ids {
                    if !seen.insert(id) {
                        continue;
                    }
                    let Some(order) = tx.get_order(scope, id)? else {
                        continue;
                    };
                    let customer = match order.customer_id {
                        Some(c) => {
                            if let Entry::Vacant(slot) = customers.entry(c) {
                                slot.insert(tx.get_customer(scope, c)?);
                            }
                            customers[&c].as_ref()
                        }
                        None => None,
                    };
                    out.push(render(&order, customer, &types));
                }
                Ok::<_, dispatch_core::ports::store::StoreError>(out)
            })?)
        })
        .await?;
    Ok(Json(ConsoleOrders {
        date: date.to_string(),
        orders,
    }))
}

/// `{ positions }`: the latest reported position of each dispatched route of `date`.
#[utoipa::path(get, path = "/console/positions", tag = "console", summary = "Where each dispatched route's van was last reported.", params(PositionsQuery), responses((status = 200, description = "`{ positions }`", body = ConsolePositions), (status = 400, description = "INVALID_INPUT (`details.validationErrors`).", body = crate::error::Envelope)))]
pub(super) async fn positions(
    State(state): State<AppState>,
    Caller(p): Caller,
    Query(query): Query<Vec<(String, String)>>,
) -> Result<Json<ConsolePositions>, ApiError> {
    query::only(&query, &["date"])?;
    let date = query::date(&query)?;
    let positions = state
        .blocking(move |s| {
            Ok(s.store.read(move |tx| {
                let scope = p.scope();
                let mut out = Vec::new();
                for route in tx.routes_on_date(scope, date)? {
                    if !route.dispatched || route.started_ts.is_none() {
                        continue;
                    }
                    let track = tx.track(scope, route.id)?;
                    if let Some(last) = track.last() {
                        out.push(ConsolePosition {
                            route_id: route.id,
                            vehicle_id: route.vehicle_id,
                            lat: last.at.lat,
                            lng: last.at.lng,
                            time: last.time.to_string(),
                            reported: track.len(),
                        });
                    }
                }
                Ok::<_, dispatch_core::ports::store::StoreError>(out)
            })?)
        })
        .await?;
    Ok(Json(ConsolePositions { positions }))
}

#[cfg(test)]
mod tests {
    use super::clock;

    #[test]
    fn window_ends_read_as_depot_clock_times_with_midnight_as_24_00() {
        assert_eq!(clock(9 * 3600 + 30 * 60), "09:30");
        assert_eq!(clock(24 * 3600), "24:00");
        assert_eq!(clock(0), "00:00");
        assert_eq!(clock(26 * 3600), "02:00");
    }
}
