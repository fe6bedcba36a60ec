//! A stop whose order the depot deleted after dispatch: the driver at the door still records
//! the outcome; the deleted order is left as it is (no status change, no `orders.status`).

use super::*;

/// A started route over an order with line items and an order without; the first deleted by
/// its number after dispatch: (credential, route, orders, stops).
async fn deleted_after_dispatch(app: &TestApp) -> (String, i64, Vec<i64>, Vec<i64>) {
    morning(app);
    let o = post_orders(
        app,
        vec![
            with_items("GONE-1", 51.501, -0.121, &[("A", 2)]),
            delivery("KEPT-2", 51.502, -0.122),
        ],
    )
    .await;
    let (_, key, route) = drive(app, "Van D", &o).await;
    start(app, &key, route).await;
    let stops = stop_ids(app, &key, route).await;
    let r = app
        .delete("/v2/orders/order-number/GONE-1", &app.north())
        .await;
    assert_eq!(r.ok()["deleted"]["orders_count"], 1);
    (key, route, o, stops)
}

#[tokio::test]
async fn completing_a_stop_whose_order_was_deleted_records_the_visit_and_leaves_the_order() {
    let app = TestApp::new();
    let (key, route, o, stops) = deleted_after_dispatch(&app).await;
    let r = on_stop(
        &app,
        &key,
        stops[0],
        "complete",
        json!({"lat": 51.501, "lng": -0.121, "notes": "handed over anyway"}),
    )
    .await;
    let stop = r.ok()["stop"].clone();
    assert_eq!(stop["actual_completed_ts"], json!(&now_text(&app)[..19]));
    assert_eq!(stop["driver_notes"], "handed over anyway");
    assert_eq!(stop["orders"], json!([]), "a deleted order is not shown");
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED"]);
    app.get(&format!("/v2/orders/{}", o[0]), &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    // The depot's route read shows the outcome; finishing it again is refused as for any stop.
    let depot = depot_route(&app, route).await;
    assert_eq!(
        depot["stops"][0]["actual_completed_ts"],
        stop["actual_completed_ts"]
    );
    on_stop(&app, &key, stops[0], "fail", json!({"reason": "again"}))
        .await
        .envelope(400, "INVALID_INPUT");
    // The other stop is untouched and works as usual.
    on_stop(&app, &key, stops[1], "complete", json!({}))
        .await
        .ok();
    assert_eq!(status_events(&app, o[1]), vec!["ROUTED", "DELIVERED"]);
}

#[tokio::test]
async fn failing_a_stop_whose_order_was_deleted_records_why() {
    let app = TestApp::new();
    let (key, route, o, stops) = deleted_after_dispatch(&app).await;
    let r = on_stop(
        &app,
        &key,
        stops[0],
        "fail",
        json!({"reason": "order cancelled at the door"}),
    )
    .await;
    assert_eq!(
        r.ok()["stop"]["failed_reason"],
        json!({"reason": "order cancelled at the door"})
    );
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED"]);
    assert_eq!(
        depot_route(&app, route).await["stops"][0]["failed_reason"],
        json!({"reason": "order cancelled at the door"})
    );
}
