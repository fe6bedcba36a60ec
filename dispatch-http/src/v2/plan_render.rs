//! Plan, route and stop reads on the wire (the shapes are `plan_shapes`). The route and stop
//! renderers are shared by plan reads, `GET /routes/{id}` and the routes endpoints.
//!
//! Units, everywhere alike: durations (`total_time`, `travel_time`, `operation_time`) in whole
//! seconds, distances (`planned_distance`, `distance`, `actual_distance`) in whole metres;
//! times of day `HH:mm` in the depot's time zone on the route's date; timestamps ISO 8601 UTC.
//! Plan summaries carry their route durations as strings of the same seconds (`"5400"`).

use dispatch_core::model::driver_visit::PhoneCall;
use dispatch_core::model::order::{Endpoint, Order, OrderType, Side};
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::model::plan::Plan;
use dispatch_core::model::route::Route;
use dispatch_core::ports::store::RouteSummary;
use dispatch_core::service::plan_reads::{
    PlanSummaryView, PlanView, RouteView, StopView, UnservedView,
};
use dispatch_core::service::stop_records::StopDriverView;
use dispatch_core::time::Timestamp;

use super::order_json::render_custom_fields;
use super::plan_shapes::{
    EmailEntry, FailedReason, PhoneCallWire, PlanRouteSummary, PlanSummaryWire, PlanWire,
    RouteHead, RouteSummaryWire, RouteVehicle, RouteWire, StopLineItem, StopOrder, StopRoute,
    StopWire, UnservedWire, VehicleAssignment,
};
use super::plans::optimisation_json;
use super::pod_render::{render_submission_refs, stop_proof};
use super::shapes::Num;
use super::wire::ts_text;
use crate::links::Links;

/// Seconds after midnight as `HH:mm` (wrapping at 24 h: the date says which day).
pub fn clock(seconds: i64) -> String {
    let minutes = seconds.div_euclid(60).rem_euclid(24 * 60);
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// A stop timestamp as the spec shows it: without milliseconds or zone suffix.
fn bare_ts(t: Timestamp) -> String {
    let full = t.to_string();
    full.split('.').next().unwrap_or(&full).to_owned()
}

fn opt_ts(t: Option<Timestamp>) -> Option<String> {
    t.map(ts_text)
}

fn days(e: Option<&Endpoint>) -> Vec<&'static str> {
    e.map(|e| e.available_days.iter().map(|d| d.as_str()).collect())
        .unwrap_or_default()
}

/// A served order with its line items; with the depot's `partial_orders` setting a finished
/// stop lists only the items delivered on it, with the delivered quantity. Once the stop has
/// an outcome each item also says what was delivered (`delivered_quantity`, `failed_reason`).
fn stop_order(o: &Order, catalog: &Catalog, driver: &StopDriverView) -> StopOrder {
    let outcome = |id: i64| {
        driver
            .visits
            .iter()
            .flat_map(|v| v.delivered.iter())
            .find(|x| x.line_item_id == id)
    };
    let line_items = o
        .line_items
        .iter()
        .filter_map(|li| {
            let quantity = match &driver.delivered_only {
                Some(delivered) => delivered.iter().find(|(id, _)| *id == li.id)?.1,
                None => li.quantity,
            };
            let x = outcome(li.id);
            Some(StopLineItem {
                id: li.id,
                product_code: li.product_code.clone(),
                product_name: li.product_name.clone(),
                quantity,
                status: li.status.as_str().to_owned(),
                date: li.date.map(|d| d.to_string()),
                custom_fields: render_custom_fields(&li.custom_fields, catalog),
                delivered_quantity: x.map(|x| x.delivered),
                failed_reason: x.map(|x| x.failed_reason.clone()),
            })
        })
        .collect();
    StopOrder {
        id: o.id,
        order_number: o.order_number.clone(),
        kind: o.kind.as_str(),
        line_items,
    }
}

/// One stop of a route; `orders` adds the served orders (route and plan reads).
pub fn render_stop(
    view: &StopView,
    route: &Route,
    catalog: &Catalog,
    links: &Links,
    orders: bool,
) -> StopWire {
    let stop = &view.stop;
    let v = &stop.visit;
    let first = view.orders.first();
    let end = first.map(|o| o.endpoint(v.side));
    let driver = &view.driver;
    let visit = driver.visit.as_ref();
    let (arrival, departure) = driver
        .eta_clock
        .clone()
        .unwrap_or_else(|| (clock(v.arrival_s), clock(v.departure_s)));
    let completed = visit.and_then(|x| x.completed).or(stop.actual_completed_ts);
    let arrived = visit.and_then(|x| x.arrived);
    let at = visit.and_then(|x| x.completed_at);
    let proof = stop_proof(&view.proof, links);
    StopWire {
        id: stop.id,
        route_id: stop.route_id,
        side: v.side.as_str(),
        address: v.address.clone(),
        postcode: v.postcode.clone(),
        phone: v.phone.clone(),
        lat: v.lat,
        lng: v.lng,
        planned_distance: v.planned_distance_m,
        arrival_date: v.arrival_date.to_string(),
        departure_date: v.departure_date.to_string(),
        estimated_arrival_time: arrival,
        estimated_departure_time: departure,
        eta: visit.and_then(|x| x.eta).map(ts_text),
        actual_completed_ts: completed.map(bare_ts),
        actual_arrival_time: arrived.map(bare_ts),
        actual_completed_lat: at.map(|p| p.lat),
        actual_completed_lng: at.map(|p| p.lng),
        actual_duration: match (arrived, completed) {
            (Some(a), Some(c)) => Some((c.millis() - a.millis()).max(0) / 1000),
            _ => None,
        },
        delivery_notes: end.and_then(|e| e.notes.clone()),
        driver_notes: visit.and_then(|x| x.notes.clone()),
        vehicle_assignment: first
            .and_then(|o| o.vehicle_id)
            .map(|vehicle_id| VehicleAssignment { vehicle_id }),
        directions: Vec::new(),
        failed_reason: visit
            .and_then(|x| x.failed_reason.clone())
            .map(|reason| FailedReason { reason }),
        tags: first.map(|o| o.tags.clone()).unwrap_or_default(),
        available_days: days(end),
        custom_fields: first
            .map(|o| render_custom_fields(&o.custom_fields, catalog))
            .unwrap_or_default(),
        emails: first
            .map(|o| {
                o.emails
                    .iter()
                    .map(|e| EmailEntry { email: e.clone() })
                    .collect()
            })
            .unwrap_or_default(),
        driver_phone_calls: driver.phone_calls.iter().map(render_phone_call).collect(),
        route: StopRoute {
            id: route.id,
            date: route.date.to_string(),
            started_ts: opt_ts(route.started_ts),
        },
        signature_lat: proof.signature_lat,
        signature_lng: proof.signature_lng,
        signed_by: proof.signed_by,
        signature: proof.signature,
        tracking_link: proof.tracking_link,
        photos: proof.photos,
        driver_questionnaire_submissions: proof.submissions,
        time_windows: None,
        orders: orders.then(|| {
            view.orders
                .iter()
                .map(|o| stop_order(o, catalog, &view.driver))
                .collect()
        }),
    }
}

/// A phone call the driver recorded (`driver_phone_calls` entry).
pub fn render_phone_call(call: &PhoneCall) -> PhoneCallWire {
    PhoneCallWire {
        initiated_at: ts_text(call.initiated_at),
        recorded_at: ts_text(call.recorded_at),
        lat: call.position.map(|p| p.lat),
        lng: call.position.map(|p| p.lng),
    }
}

fn vehicle(view: &RouteView) -> Option<RouteVehicle> {
    view.vehicle.as_ref().map(|v| RouteVehicle {
        vehicle_id: v.id.to_string(),
        name: v.fields.name.clone(),
        driver: None,
    })
}

fn route_head(r: &Route) -> RouteHead {
    RouteHead {
        id: r.id,
        plan_id: r.plan_id,
        name: r.name.clone(),
        dispatched: r.dispatched,
        is_locked: r.is_locked,
        date: r.date.to_string(),
        start_time: clock(r.timing.start_time_s),
        started_ts: opt_ts(r.started_ts),
        end_time: clock(r.timing.end_time_s),
        completed_ts: opt_ts(r.completed_ts),
        total_time: r.timing.total_time_s,
        travel_time: r.timing.travel_time_s,
        planned_distance: r.timing.distance_m,
        actual_distance: r.actual_distance_m,
        created: ts_text(r.created),
        updated: ts_text(r.updated),
    }
}

/// A full route: its fields, vehicle and stops with their orders.
pub fn render_route(view: &RouteView, catalog: &Catalog, links: &Links) -> RouteWire {
    let r = &view.route;
    RouteWire {
        head: route_head(r),
        solution_id: r.solution_id,
        vehicle: vehicle(view),
        stops: Some(
            view.stops
                .iter()
                .map(|s| render_stop(s, r, catalog, links, true))
                .collect(),
        ),
        driver_questionnaire_submissions: render_submission_refs(&view.submissions),
    }
}

/// A route in `GET /routes`.
pub fn render_route_summary(s: &RouteSummary) -> RouteSummaryWire {
    RouteSummaryWire {
        head: route_head(&s.route),
        stops: s.stops,
    }
}

/// The end of an unserved order shown to people: the pickup end of a pickup, the delivery end
/// otherwise.
fn shown_side(kind: OrderType) -> Side {
    match kind {
        OrderType::Pickup => Side::Pickup,
        OrderType::Delivery | OrderType::Shipment => Side::Delivery,
    }
}

fn render_unserved(u: &UnservedView) -> UnservedWire {
    let end = u.order.endpoint(shown_side(u.order.kind));
    UnservedWire {
        id: u.entry.order_id,
        address: end.address.clone(),
        postcode: end.postcode.clone(),
        phone: end.contact_number.clone(),
        lat: end.lat.map(Num),
        lng: end.lng.map(Num),
        delivery_notes: end.notes.clone(),
        available_days: days(Some(end)),
        reason: u.entry.reason.clone(),
        reason_description: u.entry.description.clone(),
    }
}

fn plan_total(routes: impl Iterator<Item = i64>) -> i64 {
    routes.sum()
}

/// A full plan (`GET /plans/{id}`): empty `routes` and `unserved` while it has no result;
/// its `driver_questionnaire_submissions` are those of all its routes.
pub fn render_plan(view: &PlanView, links: &Links) -> PlanWire {
    let submissions: Vec<_> = view
        .routes
        .iter()
        .flat_map(|r| r.submissions.iter().cloned())
        .collect();
    let p = &view.plan;
    PlanWire {
        id: p.id,
        dispatched: p.dispatched,
        date: p.date.to_string(),
        solution_id: p.active_solution_id,
        optimisation: view.optimisation.as_ref().map(optimisation_json),
        total_time: plan_total(view.routes.iter().map(|r| r.route.timing.total_time_s)),
        routes: view
            .routes
            .iter()
            .map(|r| render_route(r, &view.catalog, links))
            .collect(),
        unserved: view.unserved.iter().map(render_unserved).collect(),
        created: ts_text(p.created),
        updated: ts_text(p.updated),
        driver_questionnaire_submissions: render_submission_refs(&submissions),
    }
}

/// A plan in `GET /plans`; one without an optimisation result lists only `id`, `total_time` 0
/// and empty `routes` (spec: Plan).
pub fn render_plan_summary(view: &PlanSummaryView) -> PlanSummaryWire {
    let p: &Plan = &view.plan;
    if p.active_solution_id.is_none() && view.routes.is_empty() {
        return PlanSummaryWire {
            id: p.id,
            dispatched: None,
            created: None,
            updated: None,
            total_time: 0,
            routes: Vec::new(),
        };
    }
    let routes = view
        .routes
        .iter()
        .map(|s| {
            let r = &s.route;
            let t = &r.timing;
            PlanRouteSummary {
                id: r.id,
                name: r.name.clone(),
                stops: s.stops,
                dispatched: r.dispatched,
                is_locked: r.is_locked,
                started_ts: opt_ts(r.started_ts),
                completed_ts: opt_ts(r.completed_ts),
                total_time: t.total_time_s.to_string(),
                travel_time: t.travel_time_s.to_string(),
                operation_time: t.operation_time_s.to_string(),
                date: r.date.to_string(),
                distance: t.distance_m,
                actual_distance: r.actual_distance_m,
                created: ts_text(r.created),
                updated: ts_text(r.updated),
            }
        })
        .collect();
    PlanSummaryWire {
        id: p.id,
        dispatched: Some(p.dispatched),
        created: Some(ts_text(p.created)),
        updated: Some(ts_text(p.updated)),
        total_time: plan_total(view.routes.iter().map(|s| s.route.timing.total_time_s)),
        routes,
    }
}

#[cfg(test)]
mod tests {
    use super::clock;

    #[test]
    fn seconds_after_midnight_render_as_hours_and_minutes() {
        assert_eq!(clock(0), "00:00");
        assert_eq!(clock(8 * 3600 + 59), "08:00");
        assert_eq!(clock(23 * 3600 + 59 * 60), "23:59");
        assert_eq!(clock(24 * 3600 + 61), "00:01");
    }
}
