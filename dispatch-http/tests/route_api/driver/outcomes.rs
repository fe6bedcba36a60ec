//! Start, arrive, complete (in full, in part, per line item), fail, notes, phone calls and
//! route completion, and what every read and event shows of them.

use dispatch_core::events::DomainEvent;

use super::*;

/// Three orders with line items on one dispatched route, started: (credential, route, orders,
/// stops).
async fn started_day(app: &TestApp) -> (String, i64, Vec<i64>, Vec<i64>) {
    morning(app);
    let o = post_orders(
        app,
        vec![
            with_items("W-1", 51.501, -0.121, &[("A", 2), ("B", 3)]),
            with_items("W-2", 51.502, -0.122, &[("C", 4), ("D", 1)]),
            with_items("W-3", 51.503, -0.123, &[("E", 5)]),
            delivery("W-4", 51.504, -0.124),
        ],
    )
    .await;
    let (_, key, route) = drive(app, "Van W", &o).await;
    start(app, &key, route).await;
    let stops = stop_ids(app, &key, route).await;
    (key, route, o, stops)
}

fn line_item_ids(order: &Value) -> Vec<i64> {
    order["line_items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|li| li["id"].as_i64().unwrap())
        .collect()
}

async fn order(app: &TestApp, id: i64) -> Value {
    let body = app.get(&format!("/v2/orders/{id}"), &app.north()).await;
    let body = body.ok();
    if body["order"].is_object() {
        body["order"].clone()
    } else {
        body.clone()
    }
}

#[tokio::test]
async fn a_route_can_be_started_only_on_its_own_day() {
    let app = TestApp::new();
    // The fixture's clock stands two days before the routes' day.
    let (_, key, route, _) = driven_route(&app, "E", 1).await;
    let r = on_route(&app, &key, route, "start", json!({})).await;
    r.envelope(400, "INVALID_INPUT");
    let issue = &r.body["details"]["validationErrors"][0];
    assert_eq!(
        issue["expected"],
        format!("a start on the route's day, {DAY}")
    );
    assert_eq!(depot_route(&app, route).await["started_ts"], Value::Null);
    morning(&app);
    let r = on_route(&app, &key, route, "start", json!({}));
    assert!(r.await.ok()["route"]["started_ts"].is_string());
}

#[tokio::test]
async fn starting_sets_started_ts_once_and_a_repeat_changes_nothing() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "S", 2).await;
    let r = on_route(
        &app,
        &key,
        route,
        "start",
        json!({"time": now_text(&app), "lat": 51.5, "lng": -0.12}),
    )
    .await;
    assert_eq!(r.ok()["route"]["started_ts"], json!(now_text(&app)));
    app.clock.advance_millis(60_000);
    let again = start(&app, &key, route).await;
    assert_eq!(again["started_ts"], r.body["route"]["started_ts"]);
    let depot = depot_route(&app, route).await;
    assert_eq!(depot["started_ts"], r.body["route"]["started_ts"]);
    assert_eq!(
        depot["stops"][0]["route"]["started_ts"],
        depot["started_ts"]
    );
    // An empty body is fine too.
    let (_, key2, route2, _) = driven_route(&app, "S2", 1).await;
    let r = app
        .call(
            axum::http::Method::POST,
            &format!("/driver/routes/{route2}/start"),
            Some(&key2),
            None,
        )
        .await;
    assert_eq!(r.ok()["route"]["started_ts"], json!(now_text(&app)));
}

#[tokio::test]
async fn stops_cannot_be_worked_before_the_start_or_after_completion() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "N", 2).await;
    let stops = stop_ids(&app, &key, route).await;
    for action in ["arrive", "complete"] {
        on_stop(&app, &key, stops[0], action, json!({}))
            .await
            .envelope(400, "INVALID_INPUT");
    }
    on_route(&app, &key, route, "complete", json!({}))
        .await
        .envelope(400, "INVALID_INPUT");
    start(&app, &key, route).await;
    on_route(&app, &key, route, "complete", json!({}))
        .await
        .ok();
    on_stop(&app, &key, stops[0], "complete", json!({}))
        .await
        .envelope(400, "INVALID_INPUT");
    on_route(&app, &key, route, "start", json!({}))
        .await
        .envelope(400, "INVALID_INPUT");
    assert_eq!(
        status_of(&app, stops_order(&app, route, 0).await).await,
        "ROUTED"
    );
}

async fn stops_order(app: &TestApp, route: i64, stop: usize) -> i64 {
    depot_route(app, route).await["stops"][stop]["orders"][0]["id"]
        .as_i64()
        .unwrap()
}

#[tokio::test]
async fn completing_in_full_delivers_every_line_item_and_fires_orders_status_once() {
    let app = TestApp::new();
    let (key, route, o, stops) = started_day(&app).await;
    app.clock.advance_millis(10 * 60_000);
    let arrived = now_text(&app);
    let r = on_stop(&app, &key, stops[0], "arrive", json!({})).await;
    assert_eq!(r.ok()["stop"]["actual_arrival_time"], json!(&arrived[..19]));
    app.clock.advance_millis(4 * 60_000);
    let r = on_stop(
        &app,
        &key,
        stops[0],
        "complete",
        json!({"lat": 51.5011, "lng": -0.1211, "notes": "left with neighbour"}),
    )
    .await;
    let stop = r.ok()["stop"].clone();
    assert_eq!(stop["actual_completed_ts"], json!(&now_text(&app)[..19]));
    assert_eq!(stop["actual_completed_lat"], 51.5011);
    assert_eq!(stop["actual_completed_lng"], -0.1211);
    assert_eq!(stop["actual_duration"], 240);
    assert_eq!(stop["driver_notes"], "left with neighbour");
    assert!(stop["failed_reason"].is_null());
    let items = stop["orders"][0]["line_items"].as_array().unwrap();
    assert!(
        items.iter().all(|li| li["status"] == "DELIVERED"),
        "{items:#?}"
    );
    assert_eq!(items[0]["delivered_quantity"], 2);
    assert_eq!(status_of(&app, o[0]).await, "DELIVERED");
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED", "DELIVERED"]);
    // The same on the depot's reads: route, plan and order.
    let depot = depot_route(&app, route).await;
    assert_eq!(
        depot["stops"][0]["actual_completed_ts"],
        stop["actual_completed_ts"]
    );
    assert_eq!(depot["stops"][0]["driver_notes"], "left with neighbour");
    let plan_id = depot["plan_id"].as_i64().unwrap();
    let plan = app.get(&format!("/v2/plans/{plan_id}"), &app.north()).await;
    assert_eq!(
        plan.ok()["plan"]["routes"][0]["stops"][0]["actual_duration"],
        240
    );
    let read = order(&app, o[0]).await;
    assert_eq!(
        read["stops"][0]["actual_arrival_time"],
        json!(&arrived[..19])
    );
    assert_eq!(read["status"], "DELIVERED");
    // A finished stop cannot be finished again, and nothing changes.
    on_stop(
        &app,
        &key,
        stops[0],
        "fail",
        json!({"reason": "changed my mind"}),
    )
    .await
    .envelope(400, "INVALID_INPUT");
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED", "DELIVERED"]);
}

#[tokio::test]
async fn a_partial_stop_derives_partially_delivered_and_keeps_what_is_outstanding() {
    let app = TestApp::new();
    let (key, _route, o, stops) = started_day(&app).await;
    let before = order(&app, o[1]).await;
    let ids = line_item_ids(&before);
    // Out of 0..=quantity: below is too small, above too big (the code says which side).
    for (delivered, code) in [(-1, "too_small"), (99, "too_big")] {
        let body = json!({"line_items": [{"id": ids[0], "delivered_quantity": delivered}]});
        let r = on_stop(&app, &key, stops[1], "complete", body).await;
        let issue = &r.envelope(400, "INVALID_INPUT")["details"]["validationErrors"][0];
        assert_eq!(issue["code"], code, "{issue}");
        assert_eq!(
            issue["path"],
            json!(["line_items", 0, "delivered_quantity"])
        );
    }
    let r = on_stop(
        &app,
        &key,
        stops[1],
        "complete",
        json!({"line_items": [
            {"id": ids[0], "delivered_quantity": 3, "failed_reason": "one damaged"},
            {"id": ids[1], "delivered_quantity": 0, "failed_reason": "refused"}
        ]}),
    )
    .await;
    let items = r.ok()["stop"]["orders"][0]["line_items"].clone();
    assert_eq!(items[0]["status"], "DELIVERED");
    assert_eq!(items[0]["delivered_quantity"], 3);
    assert_eq!(items[0]["failed_reason"], "one damaged");
    assert_eq!(items[1]["status"], "UNDELIVERED");
    assert_eq!(items[1]["failed_reason"], "refused");
    let after = order(&app, o[1]).await;
    assert_eq!(after["status"], "PARTIALLY_DELIVERED");
    assert_eq!(after["line_items"][0]["quantity_outstanding"], 1);
    assert_eq!(after["line_items"][1]["quantity_outstanding"], 1);
    assert_eq!(
        status_events(&app, o[1]),
        vec!["ROUTED", "PARTIALLY_DELIVERED"]
    );
}

#[tokio::test]
async fn with_partial_orders_a_stop_lists_only_the_line_items_delivered_on_it() {
    let app = TestApp::new();
    north_settings(&app, |d| d.settings.partial_orders = true);
    let (key, route, o, stops) = started_day(&app).await;
    let ids = line_item_ids(&order(&app, o[1]).await);
    // Before an outcome, every line item is listed.
    let depot = depot_route(&app, route).await;
    assert_eq!(
        depot["stops"][1]["orders"][0]["line_items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    on_stop(
        &app,
        &key,
        stops[1],
        "complete",
        json!({"line_items": [
            {"id": ids[0], "delivered_quantity": 3},
            {"id": ids[1], "delivered_quantity": 0}
        ]}),
    )
    .await
    .ok();
    let depot = depot_route(&app, route).await;
    let listed = depot["stops"][1]["orders"][0]["line_items"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(listed.len(), 1, "{listed:#?}");
    assert_eq!(listed[0]["id"], ids[0]);
    assert_eq!(listed[0]["quantity"], 3);
    // Without the setting, both are listed.
    north_settings(&app, |d| d.settings.partial_orders = false);
    let depot = depot_route(&app, route).await;
    assert_eq!(
        depot["stops"][1]["orders"][0]["line_items"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[tokio::test]
async fn a_failed_stop_makes_its_line_items_undelivered_and_says_why() {
    let app = TestApp::new();
    let (key, route, o, stops) = started_day(&app).await;
    let r = on_stop(
        &app,
        &key,
        stops[2],
        "fail",
        json!({"reason": "nobody home", "lat": 51.503, "lng": -0.123}),
    )
    .await;
    let stop = r.ok()["stop"].clone();
    assert_eq!(stop["failed_reason"], json!({"reason": "nobody home"}));
    assert!(stop["actual_completed_ts"].is_string());
    assert_eq!(stop["orders"][0]["line_items"][0]["status"], "UNDELIVERED");
    assert_eq!(status_of(&app, o[2]).await, "UNDELIVERED");
    assert_eq!(status_events(&app, o[2]), vec!["ROUTED", "UNDELIVERED"]);
    // An order without line items fails as a whole.
    on_stop(&app, &key, stops[3], "fail", json!({"reason": "closed"}))
        .await
        .ok();
    assert_eq!(status_of(&app, o[3]).await, "UNDELIVERED");
    // The routes issue's ORDER_COMPLETED sees the outcome.
    let r = app
        .post(
            &format!("/v2/routes/{route}/remove-orders"),
            &app.north(),
            json!({"orders": [{"id": o[2]}], "settings": {"allow_dispatched": true}}),
        )
        .await;
    assert_eq!(r.ok()["errors"][0]["name"], "ORDER_COMPLETED");
}

#[tokio::test]
async fn notes_and_phone_calls_show_on_the_stop() {
    let app = TestApp::new();
    let (key, route, _, stops) = started_day(&app).await;
    let r = app
        .put(
            &format!("/driver/stops/{}/notes", stops[0]),
            &key,
            json!({"notes": "dog in garden"}),
        )
        .await;
    assert_eq!(r.ok()["stop"]["driver_notes"], "dog in garden");
    let initiated = now_text(&app);
    app.clock.advance_millis(30_000);
    let r = app
        .post(
            &format!("/driver/stops/{}/phone-calls", stops[0]),
            &key,
            json!({"initiated_at": initiated, "lat": 51.5, "lng": -0.12}),
        )
        .await;
    assert_eq!(r.status.as_u16(), 201, "{:#}", r.body);
    assert_eq!(
        r.body["driver_phone_call"],
        json!({"initiated_at": initiated, "recorded_at": now_text(&app), "lat": 51.5, "lng": -0.12})
    );
    app.post(
        &format!("/driver/stops/{}/phone-calls", stops[0]),
        &key,
        json!({}),
    )
    .await;
    let depot = depot_route(&app, route).await;
    let calls = depot["stops"][0]["driver_phone_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    assert!(calls[1]["lat"].is_null() && calls[1]["lng"].is_null());
    assert_eq!(depot["stops"][0]["driver_notes"], "dog in garden");
    assert!(depot["stops"][1]["driver_phone_calls"]
        .as_array()
        .unwrap()
        .is_empty());
    // Empty notes clear them.
    let r = app
        .put(
            &format!("/driver/stops/{}/notes", stops[0]),
            &key,
            json!({"notes": ""}),
        )
        .await;
    assert!(r.ok()["stop"]["driver_notes"].is_null());
}

#[tokio::test]
async fn completing_the_route_sets_completed_ts_and_fires_routes_completed_once() {
    let app = TestApp::new();
    let (key, route, _, stops) = started_day(&app).await;
    on_stop(&app, &key, stops[0], "complete", json!({}))
        .await
        .ok();
    app.clock.advance_millis(3_600_000);
    let r = on_route(
        &app,
        &key,
        route,
        "complete",
        json!({"lat": 51.5, "lng": -0.12}),
    )
    .await;
    assert_eq!(r.ok()["route"]["completed_ts"], json!(now_text(&app)));
    on_route(&app, &key, route, "complete", json!({}))
        .await
        .ok();
    assert_eq!(count(&app, &DomainEvent::RouteCompleted { id: route }), 1);
    let depot = depot_route(&app, route).await;
    assert_eq!(depot["completed_ts"], json!(now_text(&app)));
    let list = app.get("/v2/routes", &app.north()).await;
    let summary = list.ok()["routes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == route)
        .unwrap()
        .clone();
    assert_eq!(summary["completed_ts"], json!(now_text(&app)));
}
