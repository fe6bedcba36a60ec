//! Plans and optimisation over the real router and a real SQLite file: requests, validation,
//! the plan and job rows, `plans.created`, reads while optimising, paging, and (with the
//! optimisation workers running) the finished plan, its routes and stops, re-optimisation and
//! cancellation; and the web console showing an optimised day in headless Chromium.

use crate::{browser, common};

mod console_browser;
mod console_page;
mod deleted_orders;
mod depot_position;
mod planned_breaks;
mod promises;
mod reoptimising;
mod requests;
mod search_thread;
mod solving;
mod travel_times;

use std::time::Duration;

use common::TestApp;
pub use common::{first_order_ids, post_orders, post_vehicle, stop_order_ids, DAY};
use dispatch_core::ports::matrix::GreatCircle;
use dispatch_core::service::optimisation::NoFollowUp;
use dispatch_server::runtime::{Optimiser, OptimiserConfig};
use serde_json::{json, Value};

/// [`common::delivery`] with driver notes, which plan and route reads carry through.
pub fn delivery(number: &str, lat: f64, lng: f64) -> Value {
    let mut order = common::delivery(number, lat, lng);
    order["delivery_notes"] = json!("ring twice");
    order
}

/// Starts the optimisation workers over the app's store with a short budget per job.
pub fn start_workers(app: &TestApp, budget_ms: u64) -> Optimiser {
    let great_circle = GreatCircle::new(GreatCircle::DEFAULT_SPEED_KMH).unwrap();
    start_workers_on(app, budget_ms, std::sync::Arc::new(great_circle))
}

/// [`start_workers`] planning on `matrix`.
pub fn start_workers_on(
    app: &TestApp,
    budget_ms: u64,
    matrix: std::sync::Arc<dyn dispatch_core::ports::matrix::TravelMatrix>,
) -> Optimiser {
    Optimiser::start(
        app.state.store.clone(),
        app.state.clock.clone(),
        matrix,
        std::sync::Arc::new(NoFollowUp),
        app.state.jobs.clone(),
        OptimiserConfig {
            workers: 2,
            solver_threads: 1,
            min_budget: Duration::from_millis(budget_ms),
            max_budget: Duration::from_millis(budget_ms),
            lease: Duration::from_secs(10),
            poll: Duration::from_millis(50),
            nice: 0,
            idle: true,
        },
        "test-node".to_owned(),
    )
}

/// Polls `GET /plans/optimise/{id}` with `key` until the job stops: its optimisation object.
/// Panics after 30 s.
pub async fn ended(app: &TestApp, key: &str, job: &str) -> Value {
    let started = std::time::Instant::now();
    loop {
        let r = app.get(&format!("/v2/plans/optimise/{job}"), key).await;
        let optimisation = &r.ok()["optimisation"];
        if optimisation["in_progress"] == false {
            return optimisation.clone();
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "job {job} never ended"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Waits until North's job `job` stops ([`ended`]).
pub async fn wait_for(app: &TestApp, job: &str) {
    ended(app, &app.north(), job).await;
}

/// Posts an optimisation to North; returns (job id, plan id).
pub async fn optimise(app: &TestApp, path: &str, body: Value) -> (String, i64) {
    let r = app.post(path, &app.north(), body).await;
    let body = r.ok();
    (
        body["optimisation"]["id"].as_str().unwrap().to_owned(),
        body["plan"]["id"].as_i64().unwrap(),
    )
}

/// `POST /plans/optimise/orders` for South's orders of [`DAY`] with the default settings.
pub async fn optimise_south(app: &TestApp) -> common::Resp {
    app.post(
        "/v2/plans/optimise/orders",
        &app.south(),
        json!({"delivery_date": DAY, "settings": {}}),
    )
    .await
}

/// Optimises North's orders of [`DAY`] with the default settings and waits for the job to
/// finish: the job id and the plan id.
pub async fn optimise_day(app: &TestApp) -> (String, i64) {
    let (job, plan) = optimise(
        app,
        "/v2/plans/optimise/orders",
        json!({"delivery_date": DAY, "settings": {}}),
    )
    .await;
    wait_for(app, &job).await;
    (job, plan)
}
