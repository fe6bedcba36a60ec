//! Dispatch and the depot's planned-start notifications (spec: States and transitions, the
//! dispatch row), through the real router: dispatching a route cancels each of its orders'
//! earlier Scheduled tasks of the planned-start template and schedules a new one with the
//! stop's ETA; other templates, and orders of routes not dispatched, keep their tasks.

use dispatch_core::service::seed;
use dispatch_http::keys::DerivedKeys;
use serde_json::json;

use super::*;

/// Names the depot's "On the way" SMS template as its planned-start template; the ids of the
/// SMS and the e-mail template.
fn with_planned_start(app: &TestApp) -> (i64, i64) {
    let mut seed = common::fixture_seed();
    let north = &mut seed["organisations"][0]["depots"][0];
    north["notification_templates"][0]["body"] = json!("Order {order_number} at {eta}");
    north["settings"] = json!({"notifications": {"planned_start_template": "On the way"}});
    let parsed = seed::parse(&seed.to_string()).expect("seed parses");
    let out = app
        .with_store(|store| seed::apply(store, &DerivedKeys, &parsed, now(app)))
        .expect("seed applies");
    let templates = &out["organisations"][0]["depots"][0]["notification_templates"];
    let id = |name: &str| {
        templates
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == name)
            .unwrap()["id"]
            .as_i64()
            .unwrap()
    };
    (id("On the way"), id("Delivered"))
}

/// Every task of North, as (order id, template id, status, message).
async fn tasks(app: &TestApp) -> Vec<(i64, i64, String, String)> {
    let r = app
        .get("/v2/notification-tasks?limit=100", &app.north())
        .await;
    let mut all: Vec<_> = r.ok()["notification_tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["order"]["id"].as_i64().unwrap(),
                t["template"]["id"].as_i64().unwrap(),
                t["status"].as_str().unwrap().to_owned(),
                t["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    all.sort();
    all
}

fn task(order: i64, template: i64, status: &str, message: &str) -> (i64, i64, String, String) {
    (order, template, status.to_owned(), message.to_owned())
}

#[tokio::test]
async fn dispatch_cancels_superseded_tasks_and_schedules_the_planned_start_notifications() {
    let app = TestApp::new();
    let (sms, email) = with_planned_start(&app);
    let van = vehicle(&app, "Van 1").await;
    let list = (0..3)
        .map(|i| {
            let mut o = delivery(&format!("N-{i}"), 51.50 + 0.004 * i as f64, -0.12);
            o["emails"] = json!([{"email": format!("n{i}@example.com")}]);
            o
        })
        .collect();
    let o = post_orders(&app, list).await;
    let laid = lay_out(
        &app,
        &[(Some(van), vec![o[0], o[1]]), (Some(van), vec![o[2]])],
    );
    let r = app
        .post(
            "/v2/notifications/schedule/orders",
            &app.north(),
            json!({"orders": [o[0], o[2]], "templates": [sms, email],
                   "send_time_utc": "2026-11-24T07:00:00.000Z"}),
        )
        .await;
    assert_eq!(r.ok()["notifications"].as_array().unwrap().len(), 4);
    let earlier = "Order N-0 at ";
    let earlier_2 = "Order N-2 at ";

    dispatch_route(&app, laid.routes[0]).await.ok();
    let mut expected = vec![
        task(o[0], sms, "Cancelled", earlier),
        task(o[0], sms, "Scheduled", "Order N-0 at 09:00"),
        task(o[0], email, "Scheduled", "Delivered"),
        task(o[1], sms, "Scheduled", "Order N-1 at 09:10"),
        task(o[2], sms, "Scheduled", earlier_2),
        task(o[2], email, "Scheduled", "Delivered"),
    ];
    expected.sort();
    assert_eq!(
        tasks(&app).await,
        expected,
        "only the dispatched route's orders"
    );

    dispatch_route(&app, laid.routes[1]).await.ok();
    expected.retain(|t| t != &task(o[2], sms, "Scheduled", earlier_2));
    expected.push(task(o[2], sms, "Cancelled", earlier_2));
    expected.push(task(o[2], sms, "Scheduled", "Order N-2 at 09:00"));
    expected.sort();
    assert_eq!(tasks(&app).await, expected);
}

#[tokio::test]
async fn a_schedule_call_with_a_misspelt_send_time_is_refused_rather_than_sent_at_once() {
    let app = TestApp::new();
    let (sms, _) = with_planned_start(&app);
    let o = post_orders(&app, vec![delivery("M-1", 51.5, -0.12)]).await;
    let r = app
        .post(
            "/v2/notifications/schedule/orders",
            &app.north(),
            json!({"orders": [o[0]], "templates": [sms],
                   "send_time": "2026-11-30T07:00:00.000Z"}),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["send_time"]);
    assert_eq!(
        r.body["details"]["validationErrors"][0]["code"],
        "unrecognized_keys"
    );
    assert_eq!(tasks(&app).await, vec![], "nothing was scheduled");
}

#[tokio::test]
async fn deleting_an_order_cancels_its_scheduled_notifications() {
    let app = TestApp::new();
    let (sms, email) = with_planned_start(&app);
    let list = ["D-1", "D-2"]
        .iter()
        .map(|n| {
            let mut o = delivery(n, 51.5, -0.12);
            o["emails"] = json!([{"email": "d@example.com"}]);
            o
        })
        .collect();
    let o = post_orders(&app, list).await;
    let r = app
        .post(
            "/v2/notifications/schedule/orders",
            &app.north(),
            json!({"orders": [o[0], o[1]], "templates": [sms, email],
                   "send_time_utc": "2026-11-30T07:00:00.000Z"}),
        )
        .await;
    assert_eq!(r.ok()["notifications"].as_array().unwrap().len(), 4);
    app.delete("/v2/orders/order-number/D-1", &app.north())
        .await
        .ok();
    // A message about an order the depot deleted must not reach its customer.
    let mut expected = vec![
        task(o[0], sms, "Cancelled", "Order D-1 at "),
        task(o[0], email, "Cancelled", "Delivered"),
        task(o[1], sms, "Scheduled", "Order D-2 at "),
        task(o[1], email, "Scheduled", "Delivered"),
    ];
    expected.sort();
    assert_eq!(tasks(&app).await, expected);
}
