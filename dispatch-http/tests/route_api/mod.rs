//! Dispatch, plan deletion and route edits over the real router and a real SQLite file. Plans
//! and routes are laid out directly through the store (what a finished optimisation writes),
//! so each test controls exactly which routes, stops and orders exist.

use crate::common;

mod auto_dispatch;
mod booking;
mod dispatch;
mod dispatch_live;
mod driver;
mod edit_concurrency;
mod edit_timing;
mod edits;
mod notify;
mod pod;
mod pod_limits;
mod pod_questionnaires;
mod pod_refusals;
mod pod_submissions;
mod pod_uploads;
mod route_put;
mod superseded;
mod tracking;
mod tracking_browser;

pub use common::{
    delivery, first_order_ids, post_orders, post_vehicle as vehicle, stop_order_ids, DAY,
};
use common::{Resp, TestApp};
use dispatch_core::events::DomainEvent;
use dispatch_core::model::optimisation::{JobSpec, Optimisation, Queue};
use dispatch_core::model::order::Side;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::model::plan::NewPlan;
use dispatch_core::model::route::{NewRoute, RouteTiming};
use dispatch_core::model::stop::StopVisit;
use dispatch_core::ports::store::Store;
use dispatch_core::service::order_events::apply_status_event;
use dispatch_core::service::ServiceError;
use dispatch_core::status::{OrderEvent, Status};
use dispatch_core::time::{Date, Timestamp};
use serde_json::{json, Value};

/// The stops of GET /routes/{route}.
pub async fn stops_of(app: &TestApp, route: i64) -> Vec<Value> {
    let r = app.get(&format!("/v2/routes/{route}"), &app.north()).await;
    r.ok()["route"]["stops"].as_array().unwrap().clone()
}

/// The order ids of each stop of GET /routes/{route}.
pub async fn route_orders(app: &TestApp, route: i64) -> Vec<Vec<i64>> {
    stop_order_ids(&stops_of(app, route).await)
}

/// `n` delivery orders numbered `{prefix}-{i}` spread around the depot; their ids.
pub async fn orders(app: &TestApp, prefix: &str, n: usize) -> Vec<i64> {
    let list = (0..n)
        .map(|i| {
            let f = i as f64;
            delivery(
                &format!("{prefix}-{i}"),
                51.50 + 0.004 * (f % 5.0),
                -0.12 + 0.004 * (f / 5.0).floor(),
            )
        })
        .collect();
    post_orders(app, list).await
}

/// North's scope.
pub fn north_scope(app: &TestApp) -> DepotScope {
    DepotScope {
        organisation_id: app.seed_output["organisations"][0]["id"].as_i64().unwrap(),
        depot_id: app.depot(0, 0)["id"].as_i64().unwrap(),
    }
}

pub(crate) fn now(app: &TestApp) -> Timestamp {
    use dispatch_core::ports::clock::Clock;
    app.clock.now()
}

/// A laid-out plan: its id, its active solution and its routes.
#[derive(Debug, Clone)]
pub struct Laid {
    pub(crate) plan: i64,
    pub(crate) solution: i64,
    pub(crate) routes: Vec<i64>,
}

/// Stores a finished optimisation of a new plan for [`DAY`]: one route per entry of `routes`
/// (its vehicle and its orders, one stop each, 10 minutes apart from 09:00).
pub fn lay_out(app: &TestApp, routes: &[(Option<i64>, Vec<i64>)]) -> Laid {
    let scope = north_scope(app);
    let date = Date::parse(DAY).unwrap();
    let at = now(app);
    app.write(|tx| {
        let mut plan = tx.insert_plan(scope, &NewPlan { date }, at)?;
        let laid = add_solution(tx, scope, plan.id, routes, at)?;
        plan.active_solution_id = Some(laid.solution);
        tx.update_plan(scope, &plan)?;
        Ok::<_, ServiceError>(laid)
    })
    .unwrap()
}

/// Stores another finished optimisation of `plan` that becomes its active one.
pub fn reoptimised(app: &TestApp, plan: i64, routes: &[(Option<i64>, Vec<i64>)]) -> Laid {
    let scope = north_scope(app);
    let at = now(app);
    app.write(|tx| {
        let mut p = tx.get_plan(scope, plan)?.unwrap();
        let laid = add_solution(tx, scope, plan, routes, at)?;
        p.active_solution_id = Some(laid.solution);
        tx.update_plan(scope, &p)?;
        Ok::<_, ServiceError>(laid)
    })
    .unwrap()
}

fn add_solution(
    tx: &mut dyn dispatch_core::ports::store::StoreTx,
    scope: DepotScope,
    plan: i64,
    routes: &[(Option<i64>, Vec<i64>)],
    at: Timestamp,
) -> Result<Laid, ServiceError> {
    let date = Date::parse(DAY).unwrap();
    let solution = tx.insert_solution(scope, plan, "laid-out", &[], at)?;
    let mut ids = Vec::new();
    for (n, (vehicle, orders)) in routes.iter().enumerate() {
        let route = tx.insert_route(
            scope,
            &NewRoute {
                plan_id: plan,
                solution_id: solution.id,
                name: format!("Route {}", n + 1),
                date,
                vehicle_id: *vehicle,
                timing: RouteTiming {
                    start_time_s: 9 * 3600 - 600,
                    end_time_s: 9 * 3600 + 600 * orders.len() as i64,
                    total_time_s: 600 * (orders.len() as i64 + 1),
                    travel_time_s: 300 * (orders.len() as i64 + 1),
                    operation_time_s: 300 * (orders.len() as i64 + 1),
                    distance_m: 1000 * (orders.len() as i64 + 1),
                    breaks: Vec::new(),
                },
            },
            at,
        )?;
        let mut visits = Vec::new();
        for (i, id) in orders.iter().enumerate() {
            let order = tx.get_order(scope, *id)?.unwrap();
            let t = 9 * 3600 + 600 * i as i64;
            visits.push(StopVisit {
                order_ids: vec![*id],
                side: Side::Delivery,
                lat: order.delivery.lat,
                lng: order.delivery.lng,
                address: order.delivery.address.clone(),
                postcode: order.delivery.postcode.clone(),
                phone: order.delivery.contact_number.clone(),
                arrival_date: date,
                arrival_s: t,
                wait_s: 0,
                departure_date: date,
                departure_s: t + 300,
                planned_distance_m: 1000,
            });
        }
        tx.replace_stops(scope, route.id, &visits, at)?;
        ids.push(route.id);
    }
    Ok(Laid {
        plan,
        solution: solution.id,
        routes: ids,
    })
}

/// Queues an optimisation job for `plan` (it is then "still optimising").
pub fn queue_job(app: &TestApp, plan: i64) -> String {
    let scope = north_scope(app);
    let at = now(app);
    let id = format!("00000000-0000-4000-8000-{plan:012}");
    let date = Date::parse(DAY).unwrap();
    let job = Optimisation::queued(
        id.clone(),
        scope,
        plan,
        date,
        Queue::Standard,
        JobSpec::due_on_date(),
        at,
    );
    app.write(|tx| tx.insert_optimisation(&job)).unwrap();
    id
}

/// Sets an order's status as a driver's outcome would.
pub fn set_status(app: &TestApp, order: i64, status: &str) {
    let scope = north_scope(app);
    let at = now(app);
    app.write(|tx| {
        apply_status_event(
            tx,
            scope,
            order,
            OrderEvent::StatusSet(Status::from_stored(status)),
            at,
        )
    })
    .unwrap();
}

/// North's outbox, oldest first.
pub fn events(app: &TestApp) -> Vec<DomainEvent> {
    let scope = north_scope(app);
    app.read(|tx| tx.list_events(scope)).unwrap()
}

/// `orders.status` events of one order, as statuses.
pub fn status_events(app: &TestApp, order: i64) -> Vec<String> {
    events(app)
        .into_iter()
        .filter_map(|e| match e {
            DomainEvent::OrderStatus {
                order_id, status, ..
            } if order_id == order => Some(status),
            _ => None,
        })
        .collect()
}

/// How many events equal `e`.
pub fn count(app: &TestApp, e: &DomainEvent) -> usize {
    events(app).iter().filter(|x| *x == e).count()
}

/// POST /v2/plans/{plan}/dispatch with North's key.
pub async fn dispatch_plan(app: &TestApp, plan: i64) -> Resp {
    let path = format!("/v2/plans/{plan}/dispatch");
    app.post(&path, &app.north(), json!(null)).await
}

/// POST /v2/routes/{route}/dispatch with North's key.
pub async fn dispatch_route(app: &TestApp, route: i64) -> Resp {
    let path = format!("/v2/routes/{route}/dispatch");
    app.post(&path, &app.north(), json!(null)).await
}

/// How many `plans.dispatched` events `plan` fired.
pub fn plan_dispatched(app: &TestApp, plan: i64) -> usize {
    count(app, &DomainEvent::PlanDispatched { id: plan })
}

/// An order's status as GET /orders/{id} reads it.
pub async fn status_of(app: &TestApp, order: i64) -> String {
    let r = app.get(&format!("/v2/orders/{order}"), &app.north()).await;
    let body = r.ok();
    let o = if body["order"].is_object() {
        &body["order"]
    } else {
        body
    };
    o["status"].as_str().unwrap().to_owned()
}
