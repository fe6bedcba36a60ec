//! Orders deleted while their optimisation runs.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::*;

/// Waits until the job has been claimed by a worker (it then solves the day it read).
async fn until_running(app: &TestApp, job: &str) {
    let started = Instant::now();
    loop {
        let r = app
            .get(&format!("/v2/plans/optimise/{job}"), &app.north())
            .await;
        if r.ok()["optimisation"]["state"] == "running" {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "{:#}", r.body);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn an_order_deleted_while_its_day_is_solved_gets_no_stop_in_the_result() {
    let app = TestApp::new();
    let workers = start_workers(&app, 1_500);
    post_vehicle(&app, "Van 1").await;
    let orders: Vec<Value> = (0..4)
        .map(|i| {
            delivery(
                &format!("E{i}"),
                51.50 + 0.004 * f64::from(i),
                -0.12 + 0.003 * f64::from(i),
            )
        })
        .collect();
    let ids = post_orders(&app, orders).await;
    let (job, plan) = optimise(
        &app,
        "/v2/plans/optimise/orders",
        json!({"delivery_date": DAY, "settings": {}}),
    )
    .await;
    until_running(&app, &job).await;
    let r = app.delete("/v2/orders/order-number/E1", &app.north()).await;
    assert_eq!(r.ok()["deleted"]["orders_count"], 1);
    wait_for(&app, &job).await;
    workers.shutdown();
    let p = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    let p = p.ok()["plan"].clone();
    let stops: Vec<Value> = p["routes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["stops"].as_array().unwrap().clone())
        .collect();
    let served = stop_order_ids(&stops);
    let mut expected = vec![vec![ids[0]], vec![ids[2]], vec![ids[3]]];
    let mut got = served.clone();
    got.sort();
    expected.sort();
    assert_eq!(got, expected, "{p:#}");
    assert_eq!(p["unserved"], json!([]));
}
