//! The driver API (`/driver/...`) over the real router: credentials, who may touch what, the
//! driver's day, stop outcomes, the track and ETAs, and the feed of route changes. Routes are
//! laid out through the store and dispatched through the API.

mod contract;
mod credentials;
mod day;
mod deleted_orders;
mod feed;
mod feed_retention;
mod input;
mod outcomes;
mod retries;
mod time_order;
mod track;

use dispatch_core::model::notification::NotificationSettings;
use dispatch_core::ports::store::NewDepot;
use serde_json::{json, Value};

use super::*;

/// 2026-11-24T08:00:00.000Z: the morning of [`DAY`].
pub const MORNING: i64 = common::START + 2 * 86_400_000;

/// Moves the clock to the morning of [`DAY`].
pub fn morning(app: &TestApp) {
    use dispatch_core::ports::clock::Clock;
    let now = app.clock.now().millis();
    app.clock.advance_millis(MORNING - now);
}

/// The clock's time as the API writes it.
pub fn now_text(app: &TestApp) -> String {
    now(app).to_string()
}

/// Creates a driver credential for `vehicle` with North's `all` key; the clear credential.
pub async fn credential(app: &TestApp, vehicle: i64) -> String {
    let r = app
        .post(
            &format!("/v2/vehicles/{vehicle}/driver-credentials"),
            &app.north(),
            json!({"name": "Sam"}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 201, "{:#}", r.body);
    r.body["driver_credential"]["credential"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Dispatches a laid-out route through the API.
pub async fn dispatch(app: &TestApp, route: i64) {
    super::dispatch_route(app, route).await.ok();
}

/// A vehicle with a credential and one dispatched route over `orders`: (vehicle, credential,
/// route).
pub async fn drive(app: &TestApp, name: &str, orders: &[i64]) -> (i64, String, i64) {
    let v = vehicle(app, name).await;
    let laid = lay_out(app, &[(Some(v), orders.to_vec())]);
    dispatch(app, laid.routes[0]).await;
    let key = credential(app, v).await;
    (v, key, laid.routes[0])
}

/// A vehicle with a credential and one dispatched route of `n` orders: (vehicle, credential,
/// route, orders).
pub async fn driven_route(app: &TestApp, prefix: &str, n: usize) -> (i64, String, i64, Vec<i64>) {
    let o = orders(app, prefix, n).await;
    let (v, key, route) = drive(app, &format!("Van {prefix}"), &o).await;
    (v, key, route, o)
}

/// A delivery order with line items `(code, quantity)`.
pub fn with_items(number: &str, lat: f64, lng: f64, items: &[(&str, i64)]) -> Value {
    let mut o = delivery(number, lat, lng);
    o["line_items"] = Value::Array(
        items
            .iter()
            .map(|(code, q)| json!({"product_code": code, "product_name": format!("Product {code}"), "product_quantity": q}))
            .collect(),
    );
    o
}

/// The stop ids of a route as the driver reads it.
pub async fn stop_ids(app: &TestApp, key: &str, route: i64) -> Vec<i64> {
    let r = app.get(&format!("/driver/routes/{route}"), key).await;
    r.ok()["route"]["stops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect()
}

/// POST /driver/stops/{stop}/{action} as the driver holding `key`.
pub async fn on_stop(app: &TestApp, key: &str, stop: i64, action: &str, body: Value) -> Resp {
    let path = format!("/driver/stops/{stop}/{action}");
    app.post(&path, key, body).await
}

/// POST /driver/routes/{route}/{action} as the driver holding `key`.
pub async fn on_route(app: &TestApp, key: &str, route: i64, action: &str, body: Value) -> Resp {
    let path = format!("/driver/routes/{route}/{action}");
    app.post(&path, key, body).await
}

/// Starts a route as its driver.
pub async fn start(app: &TestApp, key: &str, route: i64) -> Value {
    on_route(app, key, route, "start", json!({})).await.ok()["route"].clone()
}

/// The route as the depot reads it.
pub async fn depot_route(app: &TestApp, route: i64) -> Value {
    app.get(&format!("/v2/routes/{route}"), &app.north())
        .await
        .ok()["route"]
        .clone()
}

/// Changes North's settings through the store (what seeding again does).
pub fn north_settings(app: &TestApp, change: impl FnOnce(&mut NewDepot) + Send) {
    let scope = north_scope(app);
    let at = now(app);
    app.write(|tx| {
        let d = tx.get_depot(scope)?.unwrap();
        let mut depot = NewDepot {
            name: d.name,
            address: d.address,
            location: None,
            settings: d.settings,
        };
        if let (Some(lat), Some(lng)) = (d.lat, d.lng) {
            depot.location = Some(dispatch_core::model::location::Coordinates { lat, lng });
        }
        change(&mut depot);
        tx.update_depot(scope, &depot, at)
    })
    .unwrap();
}

/// North's on-delivery notifications: the SMS template "On the way" and a window.
pub fn on_delivery_notifications(app: &TestApp, window_minutes: Option<u32>) {
    let scope = north_scope(app);
    app.write(|tx| {
        let template = tx
            .list_notification_templates(scope)?
            .into_iter()
            .find(|t| t.name == "On the way")
            .unwrap();
        tx.set_notification_settings(
            scope,
            &NotificationSettings {
                planned_start_template: None,
                on_delivery_template: Some(template.id),
                on_delivery_window_minutes: window_minutes,
            },
        )
    })
    .unwrap();
}
