//! Re-optimising a plan (the body's `plan: {id}`) under the spec's poll rule: while the new
//! job is queued or running the plan reads show no routes and no unserved orders, so a client
//! polling for non-empty `routes` does not stop on the previous solution; once the job ends
//! they show its result, or the plan as it was when the job failed or was cancelled.

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::service::plans::cancel_plan_jobs;
use serde_json::{json, Value};

use super::common::TestApp;
use super::{
    delivery, optimise, optimise_day, post_orders, post_vehicle, start_workers, wait_for, DAY,
};

async fn plan_read(app: &TestApp, plan: i64) -> Value {
    app.get(&format!("/v2/plans/{plan}"), &app.north())
        .await
        .ok()["plan"]
        .clone()
}

/// The routes of `plan` in the `GET /plans` summaries.
async fn summary_routes(app: &TestApp, plan: i64) -> Value {
    let plans = app.get("/v2/plans", &app.north()).await.ok()["plans"].clone();
    let summary = plans
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["id"] == plan)
        .unwrap()
        .clone();
    summary["routes"].clone()
}

fn reoptimise(plan: i64) -> Value {
    json!({"delivery_date": DAY, "settings": {}, "plan": {"id": plan}})
}

#[tokio::test]
async fn a_queued_re_optimisation_reads_as_empty_until_its_job_ends() {
    let app = TestApp::new();
    post_vehicle(&app, "Van 1").await;
    let mut orders = vec![delivery("D0", 51.50, -0.12), delivery("D1", 51.505, -0.115)];
    let mut crane = delivery("CRANE", 51.505, -0.125);
    crane["skills"] = json!(["Crane"]);
    orders.push(crane);
    post_orders(&app, orders).await;
    let workers = start_workers(&app, 200);
    let (_, plan) = optimise_day(&app).await;
    // No worker runs from here on, so the next job stays queued.
    workers.shutdown();
    let first = plan_read(&app, plan).await;
    assert_eq!(first["routes"].as_array().unwrap().len(), 1, "{first:#}");
    assert_eq!(first["unserved"].as_array().unwrap().len(), 1, "{first:#}");

    let (queued, again) = optimise(&app, "/v2/plans/optimise/orders", reoptimise(plan)).await;
    assert_eq!(again, plan);
    let held = plan_read(&app, plan).await;
    assert_eq!(held["optimisation"]["id"], queued.as_str());
    assert_eq!(held["optimisation"]["in_progress"], true);
    assert_eq!(held["routes"], json!([]));
    assert_eq!(held["unserved"], json!([]));
    assert_eq!(summary_routes(&app, plan).await, json!([]));
    // The previous routes stay readable on their own.
    assert_eq!(
        app.get("/v2/routes", &app.north()).await.ok()["routes"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // A cancelled job leaves the plan as it was.
    let s = DepotScope {
        organisation_id: app.seed_output["organisations"][0]["id"].as_i64().unwrap(),
        depot_id: app.depot(0, 0)["id"].as_i64().unwrap(),
    };
    let now = dispatch_core::ports::clock::Clock::now(&*app.clock);
    assert!(app
        .write(|tx| cancel_plan_jobs(tx, s, plan, "test cancels", now))
        .unwrap());
    let restored = plan_read(&app, plan).await;
    assert_eq!(restored["optimisation"]["state"], "cancelled");
    assert_eq!(restored["routes"], first["routes"]);
    assert_eq!(restored["unserved"], first["unserved"]);
    assert_eq!(
        summary_routes(&app, plan).await.as_array().unwrap().len(),
        1
    );

    // A succeeded job shows its own solution.
    let (job, _) = optimise(&app, "/v2/plans/optimise/orders", reoptimise(plan)).await;
    assert_eq!(plan_read(&app, plan).await["routes"], json!([]));
    let workers = start_workers(&app, 200);
    wait_for(&app, &job).await;
    workers.shutdown();
    let second = plan_read(&app, plan).await;
    assert_eq!(second["optimisation"]["state"], "succeeded");
    assert_ne!(second["solution_id"], first["solution_id"]);
    let routes = second["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 1, "{second:#}");
    assert_ne!(routes[0]["id"], first["routes"][0]["id"]);
    assert_eq!(second["unserved"].as_array().unwrap().len(), 1);
    assert_eq!(summary_routes(&app, plan).await[0]["id"], routes[0]["id"]);
}

/// A full-day van at the depot with `skills`; its id as plan reads spell it.
async fn skilled_van(app: &TestApp, name: &str, skills: &[&str]) -> String {
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            json!({"name": name, "availability": "full_day", "start_location": "depot",
                   "end_location": "depot", "skills": skills}),
        )
        .await;
    r.ok()["vehicle"]["id"].as_i64().unwrap().to_string()
}

fn needing(number: &str, lat: f64, lng: f64, skill: &str) -> Value {
    let mut o = delivery(number, lat, lng);
    o["skills"] = json!([skill]);
    o
}

#[tokio::test]
async fn a_vehicle_with_a_dispatched_route_is_left_out_of_a_re_optimisation() {
    let app = TestApp::new();
    let crane = skilled_van(&app, "Crane van", &["Crane"]).await;
    let fridge = skilled_van(&app, "Fridge van", &["Fridge"]).await;
    post_orders(
        &app,
        vec![
            needing("D0", 51.50, -0.12, "Crane"),
            needing("D1", 51.505, -0.115, "Fridge"),
        ],
    )
    .await;
    let workers = start_workers(&app, 200);
    let (_, plan) = optimise_day(&app).await;
    let first = plan_read(&app, plan).await;
    let on = |read: &Value, vehicle: &str| -> Vec<Value> {
        read["routes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["vehicle"]["vehicle_id"] == vehicle)
            .cloned()
            .collect()
    };
    let dispatched = on(&first, &crane).remove(0);
    app.post(
        &format!("/v2/routes/{}/dispatch", dispatched["id"]),
        &app.north(),
        json!(null),
    )
    .await
    .ok();
    // More work arrives: one order only the crane van can serve, one any van can.
    post_orders(
        &app,
        vec![
            needing("LIFT", 51.505, -0.125, "Crane"),
            delivery("D2", 51.502, -0.118),
        ],
    )
    .await;
    let (job, _) = optimise(&app, "/v2/plans/optimise/orders", reoptimise(plan)).await;
    wait_for(&app, &job).await;
    workers.shutdown();
    let second = plan_read(&app, plan).await;
    // The dispatched route stays; the crane van gets no second route in its hours.
    let crane_routes: Vec<Value> = on(&second, &crane)
        .iter()
        .map(|r| r["id"].clone())
        .collect();
    assert_eq!(crane_routes, vec![dispatched["id"].clone()], "{second:#}");
    assert_eq!(on(&second, &fridge).len(), 1, "{second:#}");
    let unserved = second["unserved"].as_array().unwrap();
    assert_eq!(unserved.len(), 1, "{second:#}");
    assert_eq!(unserved[0]["reason"], "SKILLS", "{second:#}");
}
