//! A depot without a position: an optimisation or booking whose vehicles start or end there can
//! only fail, so it is refused at once (400, naming the fix) instead of failing in the
//! background; once `PUT /depots/{id}` gives the depot a position the same request plans.

use serde_json::{json, Value};

use super::common::TestApp;
use super::{ended, optimise_south, start_workers, DAY};

/// South's id (South is seeded without an address or position).
fn south(app: &TestApp) -> i64 {
    app.depot(0, 1)["id"].as_i64().unwrap()
}

async fn south_day(app: &TestApp, start_location: &str) -> i64 {
    let mut van = json!({"name": "Van S", "availability": "always",
                         "start_location": start_location, "end_location": "depot"});
    if start_location == "other" {
        van["start_lat"] = json!(50.8);
        van["start_lng"] = json!(-1.1);
        van["end_location"] = json!("none");
    }
    let r = app.post("/v2/vehicles", &app.south(), van).await;
    let vehicle = r.ok()["vehicle"]["id"].as_i64().unwrap();
    let order = json!({"order_number": "S1", "type": "delivery", "delivery_address": "1 Sea Rd",
                       "delivery_lat": 50.81, "delivery_lng": -1.09, "delivery_date": DAY});
    app.post("/v2/orders", &app.south(), json!([order]))
        .await
        .ok();
    vehicle
}

fn names_the_fix(r: &Value, depot: i64) {
    let text = r.to_string();
    assert!(text.contains(&format!("PUT /v2/depots/{depot}")), "{r:#}");
}

#[tokio::test]
async fn an_optimisation_that_needs_a_depot_without_a_position_is_refused_at_once() {
    let app = TestApp::new();
    south_day(&app, "depot").await;
    let body = json!({"delivery_date": DAY, "settings": {}});
    let r = app
        .post("/v2/plans/optimise/orders", &app.south(), body.clone())
        .await;
    r.envelope(400, "INVALID_INPUT");
    names_the_fix(&r.body, south(&app));
    let plans = app.get("/v2/plans", &app.south()).await;
    assert_eq!(plans.ok()["plans"], json!([]), "no plan was left behind");
    let put = app
        .put(
            &format!("/v2/depots/{}", south(&app)),
            &app.south(),
            json!({"lat": 50.8, "lng": -1.1}),
        )
        .await;
    put.ok();
    let workers = start_workers(&app, 300);
    let r = app
        .post("/v2/plans/optimise/orders", &app.south(), body)
        .await;
    let job = r.ok()["optimisation"]["id"].as_str().unwrap().to_owned();
    let plan = r.body["plan"]["id"].as_i64().unwrap();
    let done = ended(&app, &app.south(), &job).await;
    assert_eq!(done["state"], "succeeded", "{done:#}");
    workers.shutdown();
    let p = app.get(&format!("/v2/plans/{plan}"), &app.south()).await;
    assert_eq!(p.ok()["plan"]["routes"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn vehicles_that_never_touch_the_depot_plan_without_its_position() {
    let app = TestApp::new();
    south_day(&app, "other").await;
    let r = optimise_south(&app).await;
    r.ok();
}

#[tokio::test]
async fn a_listed_vehicle_that_needs_the_depot_is_named_at_its_place() {
    let app = TestApp::new();
    let vehicle = south_day(&app, "depot").await;
    let r = app
        .post(
            "/v2/plans/optimise/orders",
            &app.south(),
            json!({"delivery_date": DAY, "settings": {}, "vehicles": [{"id": vehicle}]}),
        )
        .await;
    assert_eq!(r.invalid_paths(), vec!["vehicles.0.id"]);
}

#[tokio::test]
async fn a_booking_check_at_a_depot_without_a_position_names_the_fix() {
    let app = TestApp::new();
    south_day(&app, "depot").await;
    let r = app
        .post(
            "/v2/booking/availability",
            &app.south(),
            json!({"date": DAY, "order": {"type": "delivery",
                   "delivery_lat": 50.82, "delivery_lng": -1.08}}),
        )
        .await;
    r.envelope(400, "INVALID_INPUT");
    names_the_fix(&r.body, south(&app));
}

#[tokio::test]
async fn a_depot_that_loses_its_position_after_queueing_fails_the_job_with_the_fix() {
    let app = TestApp::new();
    south_day(&app, "depot").await;
    let depot = format!("/v2/depots/{}", south(&app));
    app.put(&depot, &app.south(), json!({"lat": 50.8, "lng": -1.1}))
        .await
        .ok();
    let r = optimise_south(&app).await;
    let job = r.ok()["optimisation"]["id"].as_str().unwrap().to_owned();
    app.put(&depot, &app.south(), json!({"lat": null, "lng": null}))
        .await
        .ok();
    let workers = start_workers(&app, 300);
    let done = ended(&app, &app.south(), &job).await;
    workers.shutdown();
    assert_eq!(done["state"], "failed", "{done:#}");
    names_the_fix(&done, south(&app));
}
