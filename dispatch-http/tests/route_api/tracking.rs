//! Customer tracking over the real router and SQLite file: the link each dispatched stop gets,
//! the public page (only its order's status, the ETA window, the proof-of-delivery time), and
//! what the driver's reports change on it.

use axum::http::StatusCode;
use dispatch_adapters::images::Codec;
use dispatch_core::service::pod::{self, SignatureInput};
use serde_json::json;

use super::driver::{credential, morning, start, stop_ids};
use super::pod::{dispatched_day, driver_of, png, raw_get, route_stops, seed_questionnaires};
use super::*;

#[tokio::test]
async fn dispatch_gives_each_stop_a_tracking_link_that_the_notification_carries() {
    let app = TestApp::new();
    seed_questionnaires(&app);
    let (_, o, laid) = dispatched_day(&app, 2).await;
    let stops = route_stops(&app, laid.routes[0]).await;
    let links: Vec<&str> = stops
        .iter()
        .map(|s| s["tracking_link"].as_str().unwrap())
        .collect();
    for link in &links {
        let token = link.strip_prefix("http://127.0.0.1:8080/track/").unwrap();
        assert_eq!(token.len(), 32);
        assert!(token.bytes().all(|c| c.is_ascii_hexdigit()));
        // Not derived from ids: no id appears in it.
        assert!(!o.iter().any(|id| token == id.to_string()));
    }
    assert_ne!(links[0], links[1]);
    // The same link on the order read and in the planned-start SMS.
    let order = app.get(&format!("/v2/orders/{}", o[0]), &app.north()).await;
    assert_eq!(order.ok()["order"]["stops"][0]["tracking_link"], links[0]);
    let tasks = app.get("/v2/notification-tasks", &app.north()).await;
    let messages: Vec<String> = tasks.ok()["notification_tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["message"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        messages
            .iter()
            .any(|m| m == &format!("Track P-0: {}", links[0])),
        "{messages:?}"
    );
    // An undispatched route has no links yet.
    let v2 = vehicle(&app, "Van 2").await;
    let more = orders(&app, "Q", 1).await;
    let other = lay_out(&app, &[(Some(v2), more)]);
    let stops = route_stops(&app, other.routes[0]).await;
    assert_eq!(stops[0]["tracking_link"], Value::Null);
}

#[tokio::test]
async fn the_tracking_page_shows_only_its_orders_status_and_eta_window() {
    let app = TestApp::new();
    let (_, _, laid) = dispatched_day(&app, 2).await;
    let stops = route_stops(&app, laid.routes[0]).await;
    let path = stops[1]["tracking_link"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://127.0.0.1:8080")
        .to_owned();
    let (status, headers, body) = raw_get(&app, &path, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert_eq!(headers["x-content-type-options"], "nosniff");
    assert_eq!(headers["referrer-policy"], "no-referrer");
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("default-src 'none'"), "{csp}");
    let html = String::from_utf8(body).unwrap();
    assert!(html.contains("P-1"), "{html}");
    assert!(html.contains("Scheduled for delivery"));
    // Stop 2 is planned at 09:10: a window of an hour around it, on quarter hours.
    assert!(
        html.contains("between <time>08:30</time> and <time>09:45</time>"),
        "{html}"
    );
    // Nothing of the other stop, the address or the route.
    for secret in ["P-0", "High St", "Route 1", "51.5", "Van"] {
        assert!(!html.contains(secret), "{secret} leaked: {html}");
    }
    let (status, headers, body) =
        raw_get(&app, "/track/0123456789abcdef0123456789abcdef", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert!(String::from_utf8(body).unwrap().contains("not valid"));
}

/// A link no token can be (NUL, bytes that are not UTF-8, anything but letters, digits, `-`
/// and `_`) is
/// the same "not valid" page as an unknown token, on every store: PostgreSQL answered a NUL
/// with 503 (its TEXT cannot hold one), and undecodable bytes got a plain-text 400.
#[tokio::test]
async fn a_link_no_token_can_be_is_the_not_found_page_on_every_store() {
    let app = TestApp::new();
    for path in [
        "/track/%00",
        "/track/0123456789abcdef0123456789abcde%00",
        "/track/%FF%FE",
        "/track/%C0%80",
        "/track/a%20b",
        "/track/..%2F..%2Fv2%2Fdepots",
    ] {
        let (status, headers, body) = raw_get(&app, path, None).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            headers["content-type"], "text/html; charset=utf-8",
            "{path}"
        );
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
        assert!(
            String::from_utf8(body).unwrap().contains("not valid"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn a_delivered_order_shows_its_proof_of_delivery_time_and_no_eta() {
    let app = TestApp::new();
    let (v, o, laid) = dispatched_day(&app, 1).await;
    let stop = route_stops(&app, laid.routes[0]).await[0].clone();
    let driver = driver_of(&app, v);
    let input = SignatureInput {
        signed_by: "Ann <b>Lee</b>".into(),
        lat: None,
        lng: None,
        image: png(40, 20),
    };
    let at = now(&app);
    app.with_store(|store| {
        pod::add_signature(
            store,
            &Codec,
            &driver,
            stop["id"].as_i64().unwrap(),
            &input,
            at,
        )
    })
    .unwrap();
    set_status(&app, o[0], "DELIVERED");
    let path = stop["tracking_link"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://127.0.0.1:8080")
        .to_owned();
    let (_, _, body) = raw_get(&app, &path, None).await;
    let html = String::from_utf8(body).unwrap();
    assert!(html.contains("Delivered on"), "{html}");
    assert!(html.contains(&at.to_string()[..10]));
    assert!(!html.contains("Expected on"));
    assert!(!html.contains("Ann"), "the signer is not shown: {html}");
}

/// The path of a stop's tracking link.
fn page_path(stop: &Value) -> String {
    stop["tracking_link"]
        .as_str()
        .unwrap()
        .trim_start_matches("http://127.0.0.1:8080")
        .to_owned()
}

/// The tracking page's promise for the one order of [`one_stop_morning`], planned at 09:00.
const PLANNED: &str = "between <time>08:30</time> and <time>09:30</time>";

/// A morning with one order on a dispatched route: the driver's key, the route, the order and
/// the path of its stop's tracking page.
async fn one_stop_morning(app: &TestApp) -> (String, i64, i64, String) {
    morning(app);
    let (v, o, laid) = dispatched_day(app, 1).await;
    let key = credential(app, v).await;
    let route = laid.routes[0];
    let path = page_path(&route_stops(app, route).await[0]);
    (key, route, o[0], path)
}

async fn page(app: &TestApp, path: &str) -> String {
    let (status, _, body) = raw_get(app, path, None).await;
    assert_eq!(status, StatusCode::OK);
    String::from_utf8(body).unwrap()
}

#[tokio::test]
async fn a_stop_the_driver_completed_shows_the_completion_time_on_the_tracking_page() {
    let app = TestApp::new();
    let (key, route, _, path) = one_stop_morning(&app).await;
    // Started and completed before the service heard of either (a device sending its queue).
    let started = now(&app).add_millis(-120_000);
    app.post(
        &format!("/driver/routes/{route}/start"),
        &key,
        json!({"time": started.to_string()}),
    )
    .await
    .ok();
    let stop = stop_ids(&app, &key, route).await[0];
    let done = now(&app).add_millis(-90_000);
    app.post(
        &format!("/driver/stops/{stop}/complete"),
        &key,
        json!({"time": done.to_string()}),
    )
    .await
    .ok();
    let html = page(&app, &path).await;
    assert!(html.contains("Delivered on"), "{html}");
    assert!(
        html.contains(&format!("datetime=\"{done}\"")),
        "the driver's completion time: {html}"
    );
    assert!(!html.contains("Expected on"), "{html}");
}

#[tokio::test]
async fn the_tracking_window_follows_the_live_eta_once_the_driver_reports_positions() {
    let app = TestApp::new();
    let (key, route, order, path) = one_stop_morning(&app).await;
    assert!(page(&app, &path).await.contains(PLANNED));
    start(&app, &key, route).await;
    // At 08:00 the driver is at the stop's door: the live ETA is now, an hour early.
    let order = app.get(&format!("/v2/orders/{order}"), &app.north()).await;
    let order = &order.ok()["order"];
    app.post(
        &format!("/driver/routes/{route}/positions"),
        &key,
        json!({"positions": [{"lat": order["delivery_lat"], "lng": order["delivery_lng"], "time": now(&app).to_string()}]}),
    )
    .await
    .ok();
    let html = page(&app, &path).await;
    assert!(html.contains("On its way"), "{html}");
    assert!(
        html.contains("between <time>07:30</time> and <time>08:30</time>"),
        "a window around the live ETA of 08:00: {html}"
    );
}

#[tokio::test]
async fn a_late_running_route_moves_the_promise_and_says_so() {
    let app = TestApp::new();
    let (key, route, order, path) = one_stop_morning(&app).await;
    assert!(page(&app, &path).await.contains(PLANNED));
    start(&app, &key, route).await;
    // At 09:20 the van is still about 11 km away: service starts well after the planned 09:00.
    app.clock.advance_millis(80 * 60_000);
    let order = app.get(&format!("/v2/orders/{order}"), &app.north()).await;
    let lat = order.ok()["order"]["delivery_lat"].as_f64().unwrap() + 0.1;
    let lng = order.body["order"]["delivery_lng"].clone();
    let r = app
        .post(
            &format!("/driver/routes/{route}/positions"),
            &key,
            json!({"positions": [{"lat": lat, "lng": lng, "time": now(&app).to_string()}]}),
        )
        .await;
    let eta = r.ok()["etas"][0].clone();
    assert_eq!(
        eta["eta"], eta["service_start"],
        "no window: served on arrival"
    );
    let html = page(&app, &path).await;
    assert!(html.contains("Running late"), "{html}");
    assert!(!html.contains(PLANNED), "the promise moved: {html}");
    assert!(
        html.contains("between <time>09:00</time> and <time>10:15</time>"),
        "a window around the late service start (about 09:33): {html}"
    );
}
