//! Plans and optimisation over the real router and a real SQLite file: requests, validation,
//! the plan and job rows, `plans.created`, reads while optimising, paging, and (with the
//! optimisation workers running) the finished plan, its routes and stops, re-optimisation and
//! cancellation.

#[path = "../api/common/mod.rs"]
#[allow(dead_code)]
mod common;

mod requests;

use common::TestApp;
use serde_json::{json, Value};

/// The day every fixture order is due.
pub const DAY: &str = "2026-11-24";

/// A delivery order near the North depot (51.50, -0.12), due on [`DAY`].
pub fn delivery(number: &str, lat: f64, lng: f64) -> Value {
    json!({
        "order_number": number,
        "type": "delivery",
        "delivery_address": format!("{number} High St"),
        "delivery_postcode": "AB1 2CD",
        "delivery_contact_number": "0123",
        "delivery_notes": "ring twice",
        "delivery_lat": lat,
        "delivery_lng": lng,
        "delivery_duration": 5,
        "delivery_date": DAY,
    })
}

/// Posts orders to North and returns their ids.
pub async fn post_orders(app: &TestApp, orders: Vec<Value>) -> Vec<i64> {
    let r = app
        .post("/v2/orders", &app.north(), Value::Array(orders))
        .await;
    r.ok()["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().parse().unwrap())
        .collect()
}

/// Posts a vehicle to North and returns its id.
pub async fn post_vehicle(app: &TestApp, name: &str) -> i64 {
    let r = app
        .post("/v2/vehicles", &app.north(), common::van(name))
        .await;
    r.ok()["vehicle"]["id"].as_i64().unwrap()
}
