//! The driver's day: the routes dispatched to the vehicle on a date, the depot's today by
//! default.

use super::*;

#[tokio::test]
async fn the_day_lists_the_routes_dispatched_to_the_vehicle_on_the_depots_today() {
    let app = TestApp::new();
    let (v, key, route, o) = driven_route(&app, "D", 2).await;
    // The fixture's routes are on DAY; the clock starts two days earlier.
    let r = app.get("/driver/day", &key).await;
    assert_eq!(r.ok()["date"], "2026-11-22");
    assert_eq!(r.ok()["routes"], json!([]));
    morning(&app);
    let r = app.get("/driver/day", &key).await;
    assert_eq!(r.ok()["date"], DAY);
    let routes = r.ok()["routes"].as_array().unwrap().clone();
    assert_eq!(routes.len(), 1);
    assert_eq!(routes[0]["id"], route);
    assert_eq!(routes[0]["stops"][1]["orders"][0]["id"], o[1]);
    assert_eq!(routes[0]["vehicle"]["vehicle_id"], v.to_string());
    // Undispatched routes of the vehicle and other vehicles' routes are not listed.
    let extra = orders(&app, "E", 1).await;
    lay_out(&app, &[(Some(v), extra)]);
    driven_route(&app, "F", 1).await;
    let r = app.get(&format!("/driver/day?date={DAY}"), &key).await;
    assert_eq!(r.ok()["routes"].as_array().unwrap().len(), 1);
    let r = app.get("/driver/day?date=2026-11-25", &key).await;
    assert_eq!(r.ok()["routes"], json!([]));
}

#[tokio::test]
async fn today_is_the_depots_date_in_its_time_zone() {
    let app = TestApp::new();
    let (_, key, _, _) = driven_route(&app, "Z", 1).await;
    // 2026-11-23T23:30Z is already the 24th in Auckland (UTC+13).
    app.clock
        .advance_millis(MORNING - 8 * 3_600_000 - 30 * 60_000 - common::START);
    north_settings(&app, |d| d.settings.timezone = "Pacific/Auckland".into());
    let r = app.get("/driver/day", &key).await;
    assert_eq!(r.ok()["date"], DAY);
    assert_eq!(r.ok()["routes"].as_array().unwrap().len(), 1);
    north_settings(&app, |d| d.settings.timezone = "UTC".into());
    assert_eq!(
        app.get("/driver/day", &key).await.ok()["date"],
        "2026-11-23"
    );
}
