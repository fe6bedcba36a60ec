//! Dispatch checks the live order book: orders deleted, completed, routed by another active
//! route or re-dated since the plan was made are left off the dispatched route, which is
//! re-timed without them, and the answer lists them in `dropped_orders`.

use super::driver::{credential, drive, morning, on_stop, start, stop_ids};
use super::*;

fn dropped(r: &Value) -> Vec<(i64, String, String)> {
    r["dropped_orders"]
        .as_array()
        .unwrap_or_else(|| panic!("no dropped_orders: {r:#}"))
        .iter()
        .map(|d| {
            (
                d["id"].as_i64().unwrap(),
                d["order_number"].as_str().unwrap().to_owned(),
                d["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn a_stale_plan_leaves_redated_completed_and_elsewhere_routed_orders_off_and_is_retimed() {
    let app = TestApp::new();
    morning(&app);
    let v = vehicle(&app, "Van A").await;
    let o = orders(&app, "L", 6).await;
    let stale = lay_out(&app, &[(Some(v), o.clone())]);
    let route = stale.routes[0];
    let before = app.get(&format!("/v2/routes/{route}"), &app.north()).await;
    let before = before.ok()["route"].clone();
    // o[1] is re-dated to the next day.
    let mut redated = delivery("L-1", 51.504, -0.12);
    redated["delivery_date"] = json!("2026-11-25");
    post_orders(&app, vec![redated]).await;
    // o[2] is delivered by a driver on another plan's route.
    let (_, key, other) = drive(&app, "Van B", &[o[2]]).await;
    start(&app, &key, other).await;
    let stop = stop_ids(&app, &key, other).await[0];
    on_stop(&app, &key, stop, "complete", json!({})).await.ok();
    // o[3] is on a third plan's dispatched route its driver has not completed.
    drive(&app, "Van C", &[o[3]]).await;
    // o[4] was attempted and not delivered.
    set_status(&app, o[4], "UNDELIVERED");
    let r = dispatch_plan(&app, stale.plan).await;
    let body = r.ok();
    assert_eq!(body["plan"]["routes"], json!([{"id": route}]));
    assert_eq!(body["plan"]["dispatched"], true);
    assert_eq!(
        dropped(body),
        vec![
            (o[1], "L-1".to_owned(), "DELIVERY_DATE".to_owned()),
            (o[2], "L-2".to_owned(), "ORDER_COMPLETED".to_owned()),
            (o[3], "L-3".to_owned(), "ALREADY_ROUTED".to_owned()),
            (o[4], "L-4".to_owned(), "ORDER_COMPLETED".to_owned()),
        ]
    );
    assert_eq!(body["dropped_orders"][0]["route_id"], route);
    // The route keeps o[0] and o[5], timed from the travel matrix rather than the laid-out
    // ten-minute steps.
    assert_eq!(
        route_orders(&app, route).await,
        vec![vec![o[0]], vec![o[5]]]
    );
    let read = app.get(&format!("/v2/routes/{route}"), &app.north()).await;
    let read = read.ok()["route"].clone();
    assert_eq!(read["dispatched"], true);
    let last = &read["stops"][1];
    assert_ne!(
        last["estimated_arrival_time"], before["stops"][5]["estimated_arrival_time"],
        "{read:#}"
    );
    assert_ne!(read["end_time"], before["end_time"], "{read:#}");
    // Only the kept orders were dispatched; the others keep their status and events.
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED"]);
    assert_eq!(status_events(&app, o[5]), vec!["ROUTED"]);
    assert_eq!(status_of(&app, o[1]).await, "OPEN");
    assert_eq!(status_events(&app, o[2]), vec!["ROUTED", "DELIVERED"]);
    assert_eq!(status_events(&app, o[3]), vec!["ROUTED"]);
    assert_eq!(status_of(&app, o[4]).await, "UNDELIVERED");
    // The driver's day shows the route as dispatched: without the dropped orders.
    let key = credential(&app, v).await;
    let day = app.get(&format!("/driver/day?date={DAY}"), &key).await;
    let day = day.ok();
    let shown: Vec<Vec<i64>> = day["routes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| stop_order_ids(r["stops"].as_array().unwrap()))
        .collect();
    assert_eq!(shown, vec![vec![o[0]], vec![o[5]]], "{day:#}");
}

#[tokio::test]
async fn a_route_left_without_stops_is_still_dispatched_and_an_unchanged_one_drops_nothing() {
    let app = TestApp::new();
    let v1 = vehicle(&app, "Van 1").await;
    let v2 = vehicle(&app, "Van 2").await;
    let o = orders(&app, "E", 2).await;
    let laid = lay_out(&app, &[(Some(v1), vec![o[0]]), (Some(v2), vec![o[1]])]);
    set_status(&app, o[0], "DELIVERED");
    let r = dispatch_route(&app, laid.routes[0]).await;
    let body = r.ok();
    assert_eq!(
        body,
        &json!({
            "route": {"id": laid.routes[0], "dispatched": true},
            "dropped_orders": [{
                "id": o[0], "order_number": "E-0", "reason": "ORDER_COMPLETED",
                "reason_description": "the order is already delivered or undelivered",
                "route_id": laid.routes[0]
            }]
        })
    );
    assert!(stops_of(&app, laid.routes[0]).await.is_empty());
    let r = dispatch_route(&app, laid.routes[1]).await;
    assert_eq!(r.ok()["dropped_orders"], json!([]));
    assert_eq!(plan_dispatched(&app, laid.plan), 1);
    assert_eq!(status_of(&app, o[1]).await, "ROUTED");
}

#[tokio::test]
async fn an_order_routed_by_another_dispatched_route_is_dropped_not_refused() {
    let app = TestApp::new();
    let v1 = vehicle(&app, "Van 1").await;
    let v2 = vehicle(&app, "Van 2").await;
    let o = orders(&app, "R", 2).await;
    let first = lay_out(&app, &[(Some(v1), vec![o[0], o[1]])]);
    let second = lay_out(&app, &[(Some(v2), vec![o[1]])]);
    dispatch_plan(&app, first.plan).await.ok();
    let r = dispatch_plan(&app, second.plan).await;
    assert_eq!(
        dropped(r.ok()),
        vec![(o[1], "R-1".to_owned(), "ALREADY_ROUTED".to_owned())]
    );
    assert_eq!(status_events(&app, o[1]), vec!["ROUTED"]);
    assert!(stops_of(&app, second.routes[0]).await.is_empty());
}

#[tokio::test]
async fn a_failed_delivery_re_dated_is_open_again_and_can_be_routed_once_its_route_is_completed() {
    let app = TestApp::new();
    morning(&app);
    let o = orders(&app, "F", 1).await;
    let (_, key, first) = drive(&app, "Van 1", &o).await;
    start(&app, &key, first).await;
    let stop = stop_ids(&app, &key, first).await[0];
    on_stop(&app, &key, stop, "fail", json!({"reason": "nobody home"}))
        .await
        .ok();
    assert_eq!(status_of(&app, o[0]).await, "UNDELIVERED");
    // Re-dated to another day: OPEN again, with one event.
    let mut again = delivery("F-0", 51.50, -0.12);
    again["delivery_date"] = json!("2026-11-26");
    post_orders(&app, vec![again.clone()]).await;
    assert_eq!(status_of(&app, o[0]).await, "OPEN");
    assert_eq!(
        status_events(&app, o[0]),
        vec!["ROUTED", "UNDELIVERED", "OPEN"]
    );
    // Sent again unchanged, nothing more happens.
    post_orders(&app, vec![again]).await;
    assert_eq!(status_events(&app, o[0]).len(), 3);
    // While the route it failed on is active the order stays there; once the driver completed
    // it, the order can go onto another route.
    let v2 = vehicle(&app, "Van 2").await;
    let next = lay_out(&app, &[(Some(v2), vec![])]);
    let add = json!({"orders": [{"id": o[0]}]});
    let path = format!("/v2/routes/{}/add-orders", next.routes[0]);
    let r = app.post(&path, &app.north(), add.clone()).await;
    assert_eq!(
        r.ok()["errors"][0]["name"],
        "ALREADY_ROUTED",
        "{:#}",
        r.body
    );
    super::driver::on_route(&app, &key, first, "complete", json!({}))
        .await
        .ok();
    let r = app.post(&path, &app.north(), add.clone()).await;
    assert_eq!(r.ok()["errors"], json!([]), "{:#}", r.body);
    assert_eq!(route_orders(&app, next.routes[0]).await, vec![vec![o[0]]]);
}
