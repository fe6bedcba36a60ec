//! How route edits time the route they write: a re-solved route (`reoptimize`) is timed as
//! planning times its routes, every visit as early as its windows allow.

use serde_json::{json, Value};

use super::*;

/// A vehicle working the whole plan date from midnight: an untimed visit is served in the
/// first minutes of the day.
async fn full_day_van(app: &TestApp) -> i64 {
    app.post(
        "/v2/vehicles",
        &app.north(),
        json!({"name": "Day", "availability": "full_day",
            "start_location": "depot", "end_location": "depot"}),
    )
    .await
    .ok()["vehicle"]["id"]
        .as_i64()
        .unwrap()
}

/// Orders east of the depot laid out far, near, far, near: any solver beats that sequence.
async fn zigzag(app: &TestApp, prefix: &str) -> Vec<i64> {
    let list = [0.03, 0.005, 0.025, 0.01, 0.02]
        .iter()
        .enumerate()
        .map(|(i, d)| delivery(&format!("{prefix}-{i}"), 51.50, -0.12 + d))
        .collect();
    post_orders(app, list).await
}

/// `(start_time, end_time, [estimated_arrival_time])` of a route.
async fn times(app: &TestApp, route: i64) -> (String, String, Vec<String>) {
    let r = app.get(&format!("/v2/routes/{route}"), &app.north()).await;
    let route: &Value = &r.ok()["route"];
    let s = |v: &Value| v.as_str().unwrap().to_owned();
    let stops = route["stops"].as_array().unwrap();
    (
        s(&route["start_time"]),
        s(&route["end_time"]),
        stops
            .iter()
            .map(|x| s(&x["estimated_arrival_time"]))
            .collect(),
    )
}

fn assert_early(t: &(String, String, Vec<String>)) {
    assert_eq!(t.0, "00:00", "the van leaves at midnight: {t:?}");
    assert!(t.0 < t.1, "the route ends after it starts: {t:?}");
    assert!(t.2.iter().all(|a| a.as_str() < "01:00"), "{t:?}");
}

#[tokio::test]
async fn adding_with_reoptimize_times_the_re_solved_route_as_early_as_planning_does() {
    let app = TestApp::new();
    let van = full_day_van(&app).await;
    let o = zigzag(&app, "Z").await;
    let laid = lay_out(&app, &[(Some(van), o[..4].to_vec())]);
    let r = app
        .post(
            &format!("/v2/routes/{}/add-orders", laid.routes[0]),
            &app.north(),
            json!({"orders": [{"id": o[4]}], "settings": {"reoptimize": true}}),
        )
        .await;
    assert_eq!(r.ok()["errors"], json!([]));
    assert_early(&times(&app, laid.routes[0]).await);
}

#[tokio::test]
async fn removing_with_reoptimize_times_the_re_solved_route_as_early_as_planning_does() {
    let app = TestApp::new();
    let van = full_day_van(&app).await;
    let o = zigzag(&app, "Y").await;
    let laid = lay_out(&app, &[(Some(van), o.clone())]);
    let r = app
        .post(
            &format!("/v2/routes/{}/remove-orders", laid.routes[0]),
            &app.north(),
            json!({"orders": [{"id": o[4]}], "settings": {"reoptimize": true}}),
        )
        .await;
    assert_eq!(r.ok()["errors"], json!([]));
    assert_early(&times(&app, laid.routes[0]).await);
}

/// What a user compares between two routes: the totals and every stop's orders and times.
async fn timed_view(app: &TestApp, route: i64) -> Value {
    let r = app.get(&format!("/v2/routes/{route}"), &app.north()).await;
    let route = &r.ok()["route"];
    let stops: Vec<Value> = route["stops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            json!([
                stop_order_ids(std::slice::from_ref(s)),
                s["estimated_arrival_time"],
                s["estimated_departure_time"],
                s["planned_distance"]
            ])
        })
        .collect();
    json!({
        "start_time": route["start_time"], "end_time": route["end_time"],
        "total_time": route["total_time"], "travel_time": route["travel_time"],
        "planned_distance": route["planned_distance"], "stops": stops,
    })
}

#[tokio::test]
async fn deleting_an_order_re_times_its_undispatched_route_as_remove_orders_does() {
    let app = TestApp::new();
    let removed_from = full_day_van(&app).await;
    let deleted_from = full_day_van(&app).await;
    let o = zigzag(&app, "X").await;
    let by_removal = lay_out(&app, &[(Some(removed_from), o.clone())]);
    let by_delete = lay_out(&app, &[(Some(deleted_from), o.clone())]);
    let r = app
        .post(
            &format!("/v2/routes/{}/remove-orders", by_removal.routes[0]),
            &app.north(),
            json!({"orders": [{"id": o[2]}]}),
        )
        .await;
    assert_eq!(r.ok()["errors"], json!([]));
    app.delete("/v2/orders/order-number/X-2", &app.north())
        .await
        .ok();
    assert_early(&times(&app, by_delete.routes[0]).await);
    assert_eq!(
        timed_view(&app, by_delete.routes[0]).await,
        timed_view(&app, by_removal.routes[0]).await
    );
}

#[tokio::test]
async fn adding_with_reoptimize_to_an_overloaded_route_declines_the_addition_instead_of_appending_it(
) {
    let app = TestApp::new();
    let weight = app.depot(0, 0)["capacity_types"][0]["id"].as_i64().unwrap();
    let van = app
        .post(
            "/v2/vehicles",
            &app.north(),
            json!({"name": "Small", "availability": "full_day", "start_location": "depot",
                "end_location": "depot", "capacities": [{"id": weight, "capacity": 10}]}),
        )
        .await
        .ok()["vehicle"]["id"]
        .as_i64()
        .unwrap();
    let heavy = |n: usize, load: i64| {
        let mut o = delivery(&format!("H-{n}"), 51.50, -0.12 + 0.005 * n as f64);
        o["capacities"] = json!([{"id": weight, "capacity": load}]);
        o
    };
    // Laid out by hand, the route already carries 12 of the van's 10: the solver cannot keep
    // every order on it, and the light addition only fits in place of one of them.
    let on_route = post_orders(&app, (1..=3).map(|n| heavy(n, 4)).collect()).await;
    let light = post_orders(&app, vec![heavy(4, 1)]).await[0];
    let laid = lay_out(&app, &[(Some(van), on_route.clone())]);
    let r = app
        .post(
            &format!("/v2/routes/{}/add-orders", laid.routes[0]),
            &app.north(),
            json!({"orders": [{"id": light}], "settings": {"reoptimize": true}}),
        )
        .await;
    let body = r.ok();
    assert_eq!(body["errors"][0]["name"], "NOT_PLACED", "{body}");
    let route = app
        .get(&format!("/v2/routes/{}", laid.routes[0]), &app.north())
        .await;
    let served = first_order_ids(&route.ok()["route"]);
    assert_eq!(served.len(), 3, "only the present orders: {served:?}");
    assert!(!served.contains(&light), "{served:?}");
}
