//! Plan, route and stop reads on the wire. The route and stop renderers are shared by plan
//! reads, `GET /routes/{id}` and the routes endpoints.
//!
//! Units, everywhere alike: durations (`total_time`, `travel_time`, `operation_time`) in whole
//! seconds, distances (`planned_distance`, `distance`, `actual_distance`) in whole metres;
//! times of day `HH:mm` in the depot's time zone on the route's date; timestamps ISO 8601 UTC.
//! Plan summaries carry their route durations as strings of the same seconds (`"5400"`).

use dispatch_core::model::driver_visit::PhoneCall;
use dispatch_core::model::order::{Order, OrderType, Side};
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::model::plan::Plan;
use dispatch_core::model::route::Route;
use dispatch_core::ports::store::RouteSummary;
use dispatch_core::service::driver::view::StopDriverView;
use dispatch_core::service::plan_reads::{
    PlanSummaryView, PlanView, RouteView, StopView, UnservedView,
};
use serde_json::{json, Map, Value};

use super::order_json::render_custom_fields;
use super::pod_render::{put_stop_proof, render_submission_refs};
use super::wire::{opt_num, ts};
use crate::links::Links;

/// Seconds after midnight as `HH:mm` (wrapping at 24 h: the date says which day).
pub fn clock(seconds: i64) -> String {
    let minutes = seconds.div_euclid(60).rem_euclid(24 * 60);
    format!("{:02}:{:02}", minutes / 60, minutes % 60)
}

/// A stop timestamp as the spec shows it: without milliseconds or zone suffix.
fn bare_ts(t: dispatch_core::time::Timestamp) -> String {
    let full = t.to_string();
    full.split('.').next().unwrap_or(&full).to_owned()
}

fn opt_ts(t: Option<dispatch_core::time::Timestamp>) -> Value {
    t.map_or(Value::Null, ts)
}

/// A served order with its line items; with the depot's `partial_orders` setting a finished
/// stop lists only the items delivered on it, with the delivered quantity. Once the stop has
/// an outcome each item also says what was delivered (`delivered_quantity`, `failed_reason`).
fn stop_order(o: &Order, catalog: &Catalog, driver: &StopDriverView) -> Value {
    let outcome = |id: i64| {
        driver
            .visits
            .iter()
            .flat_map(|v| v.delivered.iter())
            .find(|x| x.line_item_id == id)
    };
    let items: Vec<Value> = o
        .line_items
        .iter()
        .filter_map(|li| {
            let quantity = match &driver.delivered_only {
                Some(delivered) => delivered.iter().find(|(id, _)| *id == li.id)?.1,
                None => li.quantity,
            };
            let mut item = json!({
                "id": li.id,
                "product_code": li.product_code,
                "product_name": li.product_name,
                "quantity": quantity,
                "status": li.status.as_str(),
                "date": li.date.map(|d| d.to_string()),
                "custom_fields": render_custom_fields(&li.custom_fields, catalog),
            });
            if let Some(x) = outcome(li.id) {
                item["delivered_quantity"] = json!(x.delivered);
                item["failed_reason"] = json!(x.failed_reason);
            }
            Some(item)
        })
        .collect();
    json!({
        "id": o.id,
        "order_number": o.order_number,
        "type": o.kind.as_str(),
        "line_items": items,
    })
}

/// One stop of a route; `orders` adds the served orders (route and plan reads).
pub fn render_stop(
    view: &StopView,
    route: &Route,
    catalog: &Catalog,
    links: &Links,
    orders: bool,
) -> Value {
    let stop = &view.stop;
    let v = &stop.visit;
    let first = view.orders.first();
    let end = first.map(|o| o.endpoint(v.side));
    let mut m = Map::new();
    let mut put = |k: &str, value: Value| {
        m.insert(k.to_owned(), value);
    };
    put("id", json!(stop.id));
    put("route_id", json!(stop.route_id));
    put("type", json!(v.side.as_str()));
    put("address", json!(v.address));
    put("postcode", json!(v.postcode));
    put("phone", json!(v.phone));
    put("lat", json!(v.lat));
    put("lng", json!(v.lng));
    put("planned_distance", json!(v.planned_distance_m));
    put("arrival_date", json!(v.arrival_date.to_string()));
    put("departure_date", json!(v.departure_date.to_string()));
    let driver = &view.driver;
    let visit = driver.visit.as_ref();
    let (arrival, departure) = driver
        .eta_clock
        .clone()
        .unwrap_or_else(|| (clock(v.arrival_s), clock(v.departure_s)));
    put("estimated_arrival_time", json!(arrival));
    put("estimated_departure_time", json!(departure));
    put("eta", visit.and_then(|x| x.eta).map_or(Value::Null, ts));
    let completed = visit.and_then(|x| x.completed).or(stop.actual_completed_ts);
    put(
        "actual_completed_ts",
        completed.map_or(Value::Null, |t| json!(bare_ts(t))),
    );
    let arrived = visit.and_then(|x| x.arrived);
    put(
        "actual_arrival_time",
        arrived.map_or(Value::Null, |t| json!(bare_ts(t))),
    );
    let at = visit.and_then(|x| x.completed_at);
    put("actual_completed_lat", json!(at.map(|p| p.lat)));
    put("actual_completed_lng", json!(at.map(|p| p.lng)));
    put(
        "actual_duration",
        match (arrived, completed) {
            (Some(a), Some(c)) => json!((c.millis() - a.millis()).max(0) / 1000),
            _ => Value::Null,
        },
    );
    put("delivery_notes", json!(end.and_then(|e| e.notes.clone())));
    put("driver_notes", json!(visit.and_then(|x| x.notes.clone())));
    put(
        "vehicle_assignment",
        first
            .and_then(|o| o.vehicle_id)
            .map_or(Value::Null, |id| json!({ "vehicle_id": id })),
    );
    put("directions", json!([]));
    put(
        "failed_reason",
        visit
            .and_then(|x| x.failed_reason.as_ref())
            .map_or(Value::Null, |r| json!({ "reason": r })),
    );
    put(
        "tags",
        json!(first.map(|o| o.tags.clone()).unwrap_or_default()),
    );
    put(
        "available_days",
        json!(end
            .map(|e| e
                .available_days
                .iter()
                .map(|d| d.as_str())
                .collect::<Vec<_>>())
            .unwrap_or_default()),
    );
    put(
        "custom_fields",
        first.map_or(json!([]), |o| {
            json!(render_custom_fields(&o.custom_fields, catalog))
        }),
    );
    put(
        "emails",
        json!(first
            .map(|o| o
                .emails
                .iter()
                .map(|e| json!({ "email": e }))
                .collect::<Vec<_>>())
            .unwrap_or_default()),
    );
    put(
        "driver_phone_calls",
        Value::Array(driver.phone_calls.iter().map(render_phone_call).collect()),
    );
    put(
        "route",
        json!({"id": route.id, "date": route.date.to_string(), "started_ts": opt_ts(route.started_ts)}),
    );
    put_stop_proof(&mut m, &view.proof, links);
    if orders {
        m.insert(
            "orders".into(),
            Value::Array(
                view.orders
                    .iter()
                    .map(|o| stop_order(o, catalog, &view.driver))
                    .collect(),
            ),
        );
    }
    Value::Object(m)
}

/// A phone call the driver recorded (`driver_phone_calls` entry).
pub fn render_phone_call(call: &PhoneCall) -> Value {
    json!({
        "initiated_at": ts(call.initiated_at),
        "recorded_at": ts(call.recorded_at),
        "lat": call.position.map(|p| p.lat),
        "lng": call.position.map(|p| p.lng),
    })
}

fn vehicle(view: &RouteView) -> Value {
    view.vehicle.as_ref().map_or(
        Value::Null,
        |v| json!({"vehicle_id": v.id.to_string(), "name": v.fields.name, "driver": Value::Null}),
    )
}

/// A full route: its fields, vehicle and stops with their orders.
pub fn render_route(view: &RouteView, catalog: &Catalog, links: &Links) -> Value {
    let r = &view.route;
    json!({
        "id": r.id,
        "plan_id": r.plan_id,
        "solution_id": r.solution_id,
        "name": r.name,
        "dispatched": r.dispatched,
        "is_locked": r.is_locked,
        "date": r.date.to_string(),
        "start_time": clock(r.timing.start_time_s),
        "started_ts": opt_ts(r.started_ts),
        "end_time": clock(r.timing.end_time_s),
        "completed_ts": opt_ts(r.completed_ts),
        "total_time": r.timing.total_time_s,
        "travel_time": r.timing.travel_time_s,
        "planned_distance": r.timing.distance_m,
        "actual_distance": r.actual_distance_m,
        "vehicle": vehicle(view),
        "stops": view.stops.iter().map(|s| render_stop(s, r, catalog, links, true)).collect::<Vec<_>>(),
        "created": ts(r.created),
        "updated": ts(r.updated),
        "driver_questionnaire_submissions": render_submission_refs(&view.submissions),
    })
}

/// A route in `GET /routes`.
pub fn render_route_summary(s: &RouteSummary) -> Value {
    let r = &s.route;
    json!({
        "id": r.id,
        "plan_id": r.plan_id,
        "name": r.name,
        "stops": s.stops,
        "dispatched": r.dispatched,
        "is_locked": r.is_locked,
        "started_ts": opt_ts(r.started_ts),
        "completed_ts": opt_ts(r.completed_ts),
        "date": r.date.to_string(),
        "start_time": clock(r.timing.start_time_s),
        "end_time": clock(r.timing.end_time_s),
        "total_time": r.timing.total_time_s,
        "travel_time": r.timing.travel_time_s,
        "planned_distance": r.timing.distance_m,
        "actual_distance": r.actual_distance_m,
        "created": ts(r.created),
        "updated": ts(r.updated),
    })
}

/// The end of an unserved order shown to people: the pickup end of a pickup, the delivery end
/// otherwise.
fn shown_side(kind: OrderType) -> Side {
    match kind {
        OrderType::Pickup => Side::Pickup,
        OrderType::Delivery | OrderType::Shipment => Side::Delivery,
    }
}

fn render_unserved(u: &UnservedView) -> Value {
    let end = u.order.as_ref().map(|o| o.endpoint(shown_side(o.kind)));
    json!({
        "id": u.entry.order_id,
        "address": end.and_then(|e| e.address.clone()),
        "postcode": end.and_then(|e| e.postcode.clone()),
        "phone": end.and_then(|e| e.contact_number.clone()),
        "lat": opt_num(end.and_then(|e| e.lat)),
        "lng": opt_num(end.and_then(|e| e.lng)),
        "delivery_notes": end.and_then(|e| e.notes.clone()),
        "available_days": end
            .map(|e| e.available_days.iter().map(|d| d.as_str()).collect::<Vec<_>>())
            .unwrap_or_default(),
        "reason": u.entry.reason,
        "reason_description": u.entry.description,
    })
}

fn plan_total(routes: impl Iterator<Item = i64>) -> i64 {
    routes.sum()
}

/// A full plan (`GET /plans/{id}`): empty `routes` and `unserved` while it has no result;
/// its `driver_questionnaire_submissions` are those of all its routes.
pub fn render_plan(view: &PlanView, links: &Links) -> Value {
    let submissions: Vec<_> = view
        .routes
        .iter()
        .flat_map(|r| r.submissions.iter().cloned())
        .collect();
    let p = &view.plan;
    json!({
        "id": p.id,
        "dispatched": p.dispatched,
        "date": p.date.to_string(),
        "solution_id": p.active_solution_id,
        "optimisation": view.optimisation.as_ref().map(super::plans::optimisation_json),
        "total_time": plan_total(view.routes.iter().map(|r| r.route.timing.total_time_s)),
        "routes": view.routes.iter().map(|r| render_route(r, &view.catalog, links)).collect::<Vec<_>>(),
        "unserved": view.unserved.iter().map(render_unserved).collect::<Vec<_>>(),
        "created": ts(p.created),
        "updated": ts(p.updated),
        "driver_questionnaire_submissions": render_submission_refs(&submissions),
    })
}

/// A plan in `GET /plans`; one without an optimisation result lists only `id`, `total_time` 0
/// and empty `routes` (spec: Plan).
pub fn render_plan_summary(view: &PlanSummaryView) -> Value {
    let p: &Plan = &view.plan;
    if p.active_solution_id.is_none() && view.routes.is_empty() {
        return json!({"id": p.id, "total_time": 0, "routes": []});
    }
    let routes: Vec<Value> = view
        .routes
        .iter()
        .map(|s| {
            let r = &s.route;
            let t = r.timing;
            json!({
                "id": r.id,
                "name": r.name,
                "stops": s.stops,
                "dispatched": r.dispatched,
                "is_locked": r.is_locked,
                "started_ts": opt_ts(r.started_ts),
                "completed_ts": opt_ts(r.completed_ts),
                "total_time": t.total_time_s.to_string(),
                "travel_time": t.travel_time_s.to_string(),
                "operation_time": t.operation_time_s.to_string(),
                "date": r.date.to_string(),
                "distance": t.distance_m,
                "actual_distance": r.actual_distance_m,
                "created": ts(r.created),
                "updated": ts(r.updated),
            })
        })
        .collect();
    json!({
        "id": p.id,
        "dispatched": p.dispatched,
        "created": ts(p.created),
        "updated": ts(p.updated),
        "total_time": plan_total(view.routes.iter().map(|s| s.route.timing.total_time_s)),
        "routes": routes,
    })
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
