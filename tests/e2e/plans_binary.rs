//! Optimisation jobs with the real `dispatch` binary: a job running when the process is killed
//! with SIGKILL is taken up again after restart and finishes (never `in_progress` forever); a
//! job running at SIGTERM goes back to the queue with its best solution so far and resumes
//! from it after the restart; `dispatch export-problem`
//! writes the problem a job solved, which `dispatch solve` reads.

use crate::support;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use support::{binary, db_arg, run_ok, Fixture, Server};

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

/// `serve` with one worker, a fixed job budget and a lease, all in seconds.
fn start(db: &std::path::Path, budget: &str, lease: &str) -> Server {
    Server::start_with(
        db,
        &[
            "--rate-limits",
            "off",
            "--workers",
            "1",
            "--solve-time",
            budget,
            "--solve-time-min",
            budget,
            "--job-lease",
            lease,
        ],
    )
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
    let server = start(&db, "30", "1");
    let (job, plan) = queue_a_day(&server, key);
    std::thread::sleep(Duration::from_millis(800));
    assert!(server.job_in_progress(key, &job));
    server.kill_hard();

    let server = start(&db, "1", "1");
    server.await_job(
        key,
        &job,
        Duration::from_secs(60),
        "the interrupted job never ended",
    );
    assert!(
        routes(&server, key, plan) > 0,
        "the resumed job produced routes"
    );
}

#[cfg(unix)]
#[test]
fn a_job_running_at_sigterm_is_handed_back_and_resumes_after_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("term.db");
    let fixture = Fixture::seed(&db);
    let key = fixture.key.as_str();
    let server = start(&db, "60", "10");
    let (job, plan) = queue_a_day(&server, key);
    std::thread::sleep(Duration::from_millis(1500));
    let started = Instant::now();
    assert!(server.terminate().success());
    assert!(started.elapsed() < Duration::from_secs(20));
    // Handed back, not finished: still in progress, no solution yet, and nobody holds it
    // (no lease to wait for).
    let server = Server::start_with(&db, &["--rate-limits", "off", "--workers", "0"]);
    assert!(server.job_in_progress(key, &job));
    assert_eq!(routes(&server, key, plan), 0);
    assert!(server.terminate().success());
    let server = start(&db, "2", "10");
    server.await_job(
        key,
        &job,
        Duration::from_secs(20),
        "the handed-back job never resumed",
    );
    assert!(routes(&server, key, plan) > 0);
}

#[test]
fn export_problem_writes_the_solved_problem_and_dispatch_solve_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("export.db");
    let fixture = Fixture::seed(&db);
    let key = fixture.key.as_str();
    let server = start(&db, "1", "10");
    let (job, plan) = queue_a_day(&server, key);
    server.await_job(key, &job, Duration::from_secs(60), "the job never ended");
    let served = server.get(&format!("/v2/plans/optimise/{job}/problem"), key);
    assert_eq!(served.status, 200);
    assert_eq!(served.header("content-type"), Some("application/json"));
    let other = server.get(
        &format!("/v2/plans/optimise/{job}/problem"),
        &fixture.south_key,
    );
    assert_eq!(other.status, 404);
    drop(server);

    let file = dir.path().join("problem.json");
    run_ok(
        Command::new(binary())
            .args(["export-problem", "--db"])
            .arg(db_arg(&db))
            .args(["--plan", &plan.to_string(), "--out"])
            .arg(&file),
    );
    let problem: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(problem, served.json());
    assert_eq!(problem["jobs"].as_array().unwrap().len(), 40);
    assert_eq!(problem["vehicles"].as_array().unwrap().len(), 2);
    let size = problem["matrices"]["car"]["durations"]
        .as_array()
        .unwrap()
        .len();
    assert!(size > 40, "a matrix over every location: {size}");
    let out = Command::new(binary())
        .args(["export-problem", "--db"])
        .arg(db_arg(&db))
        .args(["--optimisation", &job])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).unwrap(),
        problem
    );
    let out = Command::new(binary())
        .args(["export-problem", "--db"])
        .arg(db_arg(&db))
        .args(["--plan", "999999"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no plan 999999"));

    let out = run_ok(
        Command::new(binary())
            .args(["solve", "--format", "vroom", "--time-limit", "1"])
            .arg(&file),
    );
    let solved: Value = serde_json::from_slice(&out.stdout).unwrap();
    let routed: usize = solved["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r["steps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["type"] == "job")
                .count()
        })
        .sum();
    assert_eq!(routed + solved["unassigned"].as_array().unwrap().len(), 40);
}
