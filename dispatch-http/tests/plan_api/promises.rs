//! What customers are promised counts to the planned service start, never to an early arrival:
//! a van that reaches an order at 13:0x and waits for its 14:30-15:00 window is promised at
//! 14:30 on the tracking page and in the planned-start SMS, also when the SMS is scheduled
//! after the dispatch; the stop's `estimated_arrival_time` stays the arrival.

use axum::body::Body;
use axum::http::Request;
use dispatch_core::ports::clock::Clock;
use dispatch_core::service::seed;
use dispatch_http::keys::DerivedKeys;
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

use super::common::{fixture_seed, TestApp};
use super::{delivery, optimise_day, post_orders, post_vehicle, start_workers};

/// North's "On the way" SMS becomes its planned-start template rendering `{eta}` and
/// `{tracking_link}`; its id.
fn planned_start_sms(app: &TestApp) -> i64 {
    let mut seed = fixture_seed();
    let north = &mut seed["organisations"][0]["depots"][0];
    north["notification_templates"][0]["body"] = json!("{order_number} at {eta} {tracking_link}");
    north["settings"] = json!({"notifications": {"planned_start_template": "On the way"}});
    let parsed = seed::parse(&seed.to_string()).expect("seed parses");
    let out = app
        .with_store(|store| seed::apply(store, &DerivedKeys, &parsed, app.clock.now()))
        .expect("seed applies");
    out["organisations"][0]["depots"][0]["notification_templates"][0]["id"]
        .as_i64()
        .unwrap()
}

async fn messages(app: &TestApp, order: i64) -> Vec<String> {
    let r = app
        .get("/v2/notification-tasks?limit=100", &app.north())
        .await;
    r.ok()["notification_tasks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["order"]["id"] == order && t["status"] != "Cancelled")
        .map(|t| t["message"].as_str().unwrap().to_owned())
        .collect()
}

async fn page(app: &TestApp, link: &str) -> String {
    let path = link.trim_start_matches("http://127.0.0.1:8080");
    let request = Request::get(path).body(Body::empty()).unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    String::from_utf8_lossy(&bytes).into_owned()
}

fn window(number: &str, lat: f64, from: &str, to: &str) -> Value {
    let mut o = delivery(number, lat, -0.12);
    o["delivery_time_windows"] = json!([{"from": from, "to": to}]);
    o
}

#[tokio::test]
async fn a_van_that_waits_for_the_window_is_promised_at_the_service_start() {
    let app = TestApp::new();
    let sms = planned_start_sms(&app);
    let workers = start_workers(&app, 300);
    post_vehicle(&app, "Van 1").await;
    // Served 13:00-13:20 first, so the van reaches W2 long before its window opens.
    let ids = post_orders(
        &app,
        vec![
            window("W1", 51.501, "13:00", "13:20"),
            window("W2", 51.506, "14:30", "15:00"),
        ],
    )
    .await;
    let (_, plan) = optimise_day(&app).await;
    workers.shutdown();
    let p = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    let stops = p.ok()["plan"]["routes"][0]["stops"]
        .as_array()
        .unwrap()
        .clone();
    let w2 = stops
        .iter()
        .find(|s| s["orders"][0]["id"] == ids[1])
        .expect("W2 is planned");
    let arrival = w2["estimated_arrival_time"].as_str().unwrap().to_owned();
    assert!(
        arrival.as_str() < "14:00",
        "the van arrives early: {arrival}"
    );
    let key = app.north();
    let path = format!("/v2/plans/{plan}/dispatch");
    app.call(axum::http::Method::POST, &path, Some(&key), None)
        .await
        .ok();
    let order = app
        .get(&format!("/v2/orders/{}", ids[1]), &app.north())
        .await;
    let link = order.ok()["order"]["stops"][0]["tracking_link"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        messages(&app, ids[1]).await,
        vec![format!("W2 at 14:30 {link}")],
        "the planned-start SMS promises the service start"
    );
    let html = page(&app, &link).await;
    assert!(
        html.contains("between <time>14:00</time> and <time>15:00</time>"),
        "the window contains 14:30: {html}"
    );
    assert!(!html.contains("Running late"), "{html}");
    // Scheduled after the dispatch, the same placeholders render.
    let r = app
        .post(
            "/v2/notifications/schedule/orders",
            &app.north(),
            json!({"orders": [ids[1]], "templates": [sms]}),
        )
        .await;
    assert_eq!(r.ok()["notifications"].as_array().map(Vec::len), Some(1));
    let all = messages(&app, ids[1]).await;
    assert_eq!(all, vec![format!("W2 at 14:30 {link}"); 2]);
}

#[tokio::test]
async fn an_order_not_yet_dispatched_renders_no_eta_or_link() {
    let app = TestApp::new();
    let sms = planned_start_sms(&app);
    let ids = post_orders(&app, vec![delivery("U1", 51.5, -0.12)]).await;
    let r = app
        .post(
            "/v2/notifications/schedule/orders",
            &app.north(),
            json!({"orders": [ids[0]], "templates": [sms]}),
        )
        .await;
    r.ok();
    assert_eq!(messages(&app, ids[0]).await, vec!["U1 at  ".to_owned()]);
}
