//! Which travel times a plan was made on: the optimisation read and the plan name them, and a
//! plan made on straight lines because OSRM could not be reached carries a warning, counted on
//! /metrics, instead of passing for a road plan.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use dispatch_adapters::travel::{FallbackPolicy, OsrmMatrix, WithFallback};
use dispatch_core::ports::matrix::{GreatCircle, TravelMatrix};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

use super::common::TestApp;
use super::{delivery, optimise_day, post_orders, post_vehicle, start_workers, start_workers_on};

/// A loopback address nothing listens on.
fn dead_osrm() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

async fn metric(app: &TestApp, name: &str) -> f64 {
    let request = Request::get("/metrics").body(Body::empty()).unwrap();
    let response = app.router.clone().oneshot(request).await.unwrap();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    text.lines()
        .find_map(|l| l.strip_prefix(&format!("{name} ")))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("{name} is not on /metrics:\n{text}"))
}

/// Plans a small day and returns the optimisation read and the plan read.
async fn plan_a_day(app: &TestApp) -> (Value, Value) {
    post_vehicle(app, "Van 1").await;
    post_orders(
        app,
        vec![
            delivery("T1", 51.501, -0.121),
            delivery("T2", 51.507, -0.115),
        ],
    )
    .await;
    let (job, plan) = optimise_day(app).await;
    let read = app
        .get(&format!("/v2/plans/optimise/{job}"), &app.north())
        .await;
    let plan = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    (read.ok()["optimisation"].clone(), plan.ok()["plan"].clone())
}

#[tokio::test]
async fn a_plan_made_while_osrm_is_unreachable_says_so_and_warns_on_metrics() {
    let app = TestApp::new();
    let before = metric(&app, "dispatch_travel_fallbacks_total").await;
    let osrm = OsrmMatrix::new(&dead_osrm(), "driving", 100, Duration::from_secs(2)).unwrap();
    let great_circle = GreatCircle::new(GreatCircle::DEFAULT_SPEED_KMH).unwrap();
    let matrix: Arc<dyn TravelMatrix> = Arc::new(WithFallback::new(
        Arc::new(osrm),
        great_circle,
        FallbackPolicy::GreatCircle,
    ));
    let workers = start_workers_on(&app, 300, matrix);
    let (job, plan) = plan_a_day(&app).await;
    workers.shutdown();
    assert_eq!(job["state"], "succeeded", "{job:#}");
    assert_eq!(job["travel_times"], "great-circle (OSRM unreachable)");
    let warning = job["warnings"][0].as_str().unwrap_or_default();
    assert!(warning.contains("OSRM"), "{job:#}");
    assert_eq!(plan["optimisation"], job, "the plan shows the same marks");
    assert_eq!(plan["routes"].as_array().map(Vec::len), Some(1), "{plan:#}");
    let after = metric(&app, "dispatch_travel_fallbacks_total").await;
    assert!(after > before, "{before} -> {after}");
}

#[tokio::test]
async fn a_plan_on_the_configured_great_circle_times_names_them_without_a_warning() {
    let app = TestApp::new();
    let workers = start_workers(&app, 300);
    let (job, plan) = plan_a_day(&app).await;
    workers.shutdown();
    assert_eq!(job["travel_times"], "great-circle");
    assert_eq!(job["warnings"], json!([]));
    assert_eq!(plan["optimisation"], job);
}
