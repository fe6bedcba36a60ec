//! The breaks the optimiser plans are kept with their routes and read by the board
//! (`GET /console/breaks`): each inside its vehicle's break window, as long as the vehicle's
//! break, clear of every stop's service and inside the route's day; timed again when the
//! dispatcher edits the route. Checked against the plan's own stop times, not the service's
//! bookkeeping of the break.

use serde_json::{json, Value};

use super::common::TestApp;
use super::{delivery, optimise, post_orders, start_workers, wait_for, DAY};

/// `HH:mm` as minutes after midnight.
fn minutes(hhmm: &Value) -> i64 {
    let text = hhmm.as_str().unwrap_or_else(|| panic!("a time: {hhmm}"));
    let (h, m) = text.split_once(':').unwrap();
    h.parse::<i64>().unwrap() * 60 + m.parse::<i64>().unwrap()
}

/// Checks `route`'s one break against the vehicle's rules (window 11:00-13:00, 30 minutes)
/// and the route's stops.
fn check_break(route: &Value, breaks: &Value) {
    let list = breaks["breaks"].as_array().unwrap();
    assert_eq!(list.len(), 1, "one break: {breaks:#}");
    let b = &list[0];
    assert_eq!(b["start_date"], DAY, "{b}");
    assert_eq!(b["end_date"], DAY, "{b}");
    let (start, end) = (minutes(&b["start_time"]), minutes(&b["end_time"]));
    // Times of day are whole minutes on the API: a minute of rounding either way.
    assert!((29..=31).contains(&(end - start)), "a 30-minute break: {b}");
    assert!(
        (11 * 60..=13 * 60 - 29).contains(&start),
        "taken inside its window 11:00-13:00: {b}"
    );
    assert!(
        start >= minutes(&route["start_time"]) && end <= minutes(&route["end_time"]),
        "inside the route's day: {b} in {}-{}",
        route["start_time"],
        route["end_time"]
    );
    for stop in route["stops"].as_array().unwrap() {
        let (arrive, leave) = (
            minutes(&stop["estimated_arrival_time"]),
            minutes(&stop["estimated_departure_time"]),
        );
        assert!(
            leave <= start + 1 || arrive >= end - 1,
            "the break {b} overlaps stop {arrive}-{leave}"
        );
    }
}

async fn breaks_of(app: &TestApp, plan: i64) -> Value {
    let r = app
        .get(&format!("/console/breaks?plan={plan}"), &app.north())
        .await;
    r.ok().clone()
}

#[tokio::test]
async fn the_optimisers_breaks_are_kept_with_the_route_and_timed_again_after_an_edit() {
    let app = TestApp::new();
    let workers = start_workers(&app, 300);
    let van = app
        .post(
            "/v2/vehicles",
            &app.north(),
            json!({
                "name": "Van 1", "availability": "shift", "shift_start": "08:00",
                "shift_end": "18:00", "start_location": "depot", "end_location": "depot",
                "break": true, "break_start": "11:00", "break_end": "13:00",
                "break_duration": 30,
            }),
        )
        .await;
    let van = van.ok()["vehicle"]["id"].as_i64().unwrap();
    // Ten stops of 40 minutes from 09:00: the day runs through the break window.
    let orders: Vec<Value> = (0..10)
        .map(|i| {
            let mut o = delivery(
                &format!("BR-{i}"),
                51.50 + 0.003 * f64::from(i),
                -0.12 + 0.002 * f64::from(i % 3),
            );
            o["delivery_duration"] = json!(40);
            o["delivery_time_windows"] = json!([{"from": "09:00", "to": "18:00"}]);
            o
        })
        .collect();
    let ids = post_orders(&app, orders).await;
    let (job, plan) = optimise(
        &app,
        "/v2/plans/optimise/orders",
        json!({"delivery_date": DAY, "settings": {}, "vehicles": [{"id": van}]}),
    )
    .await;
    wait_for(&app, &job).await;
    let read = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    let routes = read.ok()["plan"]["routes"].as_array().unwrap().clone();
    assert_eq!(routes.len(), 1, "{routes:#?}");
    assert!(
        routes[0].get("breaks").is_none(),
        "the spec's route object lists no breaks"
    );
    let route_id = routes[0]["id"].as_i64().unwrap();

    let breaks = breaks_of(&app, plan).await;
    assert_eq!(breaks["plan_id"], plan);
    assert_eq!(breaks["routes"].as_array().unwrap().len(), 1);
    assert_eq!(breaks["routes"][0]["route_id"], route_id);
    check_break(&routes[0], &breaks["routes"][0]);

    // An edit times the route again, break included: taking the first two orders off moves
    // every later stop earlier, and the break keeps clear of them on the new clock.
    let first_two: Vec<Value> = routes[0]["stops"].as_array().unwrap()[..2]
        .iter()
        .map(|s| json!({"id": s["orders"][0]["id"]}))
        .collect();
    let removed = app
        .post(
            &format!("/v2/routes/{route_id}/remove-orders"),
            &app.north(),
            json!({"orders": first_two, "settings": {}}),
        )
        .await;
    assert_eq!(removed.ok()["errors"], json!([]));
    let edited = app
        .get(&format!("/v2/routes/{route_id}"), &app.north())
        .await;
    let edited = edited.ok()["route"].clone();
    assert_eq!(edited["stops"].as_array().unwrap().len(), ids.len() - 2);
    check_break(&edited, &breaks_of(&app, plan).await["routes"][0]);

    app.get("/console/breaks?plan=999999", &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    workers.shutdown();
}
