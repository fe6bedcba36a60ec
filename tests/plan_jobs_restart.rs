//! Optimisation jobs across process deaths, with the real `dispatch` binary: a job running when
//! the process is killed with SIGKILL is taken up again after restart and finishes (never
//! `in_progress` forever); a job running at SIGTERM saves the best solution found so far.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod support;
use support::{Fixture, Server};

/// Forty orders around North and two vans; returns the optimisation and plan ids.
fn queue_a_day(server: &Server, key: &str) -> (String, i64) {
    for name in ["Van 1", "Van 2"] {
        let r = server.post(
            "/v2/vehicles",
            key,
            &json!({"name": name, "availability": "full_day", "start_location": "depot", "end_location": "depot"}),
        );
        assert_eq!(r.status, 200, "{}", String::from_utf8_lossy(&r.raw));
    }
    let orders: Vec<Value> = (0..40)
        .map(|i| {
            let (a, b) = (f64::from(i % 7), f64::from(i / 7));
            json!({"order_number": format!("K{i}"), "type": "delivery",
                   "delivery_lat": 51.45 + 0.015 * a, "delivery_lng": -0.20 + 0.02 * b,
                   "delivery_duration": 4, "delivery_date": "2026-11-24"})
        })
        .collect();
    let r = server.post("/v2/orders", key, &Value::Array(orders));
    assert_eq!(r.status, 200);
    let r = server.post(
        "/v2/plans/optimise/orders",
        key,
        &json!({"delivery_date": "2026-11-24", "settings": {}}),
    );
    assert_eq!(r.status, 200);
    let body = r.json();
    (
        body["optimisation"]["id"].as_str().unwrap().to_owned(),
        body["plan"]["id"].as_i64().unwrap(),
    )
}

fn in_progress(server: &Server, key: &str, job: &str) -> bool {
    let r = server.get(&format!("/v2/plans/optimise/{job}"), key);
    assert_eq!(r.status, 200);
    r.json()["optimisation"]["in_progress"].as_bool().unwrap()
}

fn routes(server: &Server, key: &str, plan: i64) -> usize {
    let r = server.get(&format!("/v2/plans/{plan}"), key);
    assert_eq!(r.status, 200);
    r.json()["plan"]["routes"].as_array().unwrap().len()
}

#[test]
fn a_job_running_at_kill_9_is_resumed_after_restart_and_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("jobs.db");
    let fixture = Fixture::seed(&db);
    let key = fixture.key.as_str();
    let server = Server::start_with(
        &db,
        &[
            "--rate-limits",
            "off",
            "--workers",
            "1",
            "--solve-time",
            "30",
            "--solve-time-min",
            "30",
            "--job-lease",
            "1",
        ],
    );
    let (job, plan) = queue_a_day(&server, key);
    std::thread::sleep(Duration::from_millis(800));
    assert!(in_progress(&server, key, &job));
    server.kill_hard();

    let server = Server::start_with(
        &db,
        &[
            "--rate-limits",
            "off",
            "--workers",
            "1",
            "--solve-time",
            "1",
            "--job-lease",
            "1",
        ],
    );
    let started = Instant::now();
    while in_progress(&server, key, &job) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the interrupted job never ended"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(
        routes(&server, key, plan) > 0,
        "the resumed job produced routes"
    );
}

#[cfg(unix)]
#[test]
fn a_job_running_at_sigterm_saves_its_best_solution_before_exit() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("term.db");
    let fixture = Fixture::seed(&db);
    let key = fixture.key.as_str();
    let server = Server::start_with(
        &db,
        &[
            "--rate-limits",
            "off",
            "--workers",
            "1",
            "--solve-time",
            "60",
            "--solve-time-min",
            "60",
        ],
    );
    let (job, plan) = queue_a_day(&server, key);
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    assert!(server.terminate().success());
    assert!(started.elapsed() < Duration::from_secs(20));
    let server = Server::start_with(&db, &["--rate-limits", "off", "--workers", "0"]);
    assert!(!in_progress(&server, key, &job));
    assert!(routes(&server, key, plan) > 0);
}
