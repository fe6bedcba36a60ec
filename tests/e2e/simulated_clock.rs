//! `serve --simulate --clock-start --clock-speed`, through the real binary: the clock flags are
//! refused without `--simulate`; with it the service's time (GET /healthz, the times it writes)
//! starts where asked and runs at the given speed, and the background work keeps its leases
//! (an optimisation on a clock running a thousand times as fast still succeeds).

use crate::support;
use std::process::Command;
use std::time::{Duration, Instant};

use dispatch_core::time::Timestamp;
use serde_json::{json, Value};

use support::{binary, Server};

const START: &str = "2026-12-02T06:00:00.000Z";

fn millis(timestamp: &str) -> i64 {
    Timestamp::parse(timestamp).expect(timestamp).millis()
}

/// The service's clock as /healthz shows it, with the wall-clock interval the read took place in.
fn clock(server: &Server) -> (Value, Instant, Instant) {
    let before = Instant::now();
    let r = server.call("GET", "/healthz", None, None);
    let after = Instant::now();
    assert_eq!(r.status, 200, "{}", r.text());
    (r.json()["clock"].clone(), before, after)
}

#[test]
fn clock_flags_without_simulate_stop_the_start_and_name_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let refused = |flags: &[&str], env: &[(&str, &str)]| {
        let out = Command::new(binary())
            .args(["serve", "--listen", "127.0.0.1:0", "--db"])
            .arg(support::db_arg(&dir.path().join("refused.db")))
            .args(flags)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{flags:?} {env:?} started");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(
            stderr.contains("--simulate") && stderr.contains("production"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    };
    refused(&["--clock-speed", "600"], &[]);
    refused(&["--clock-start", "2026-12-02T06:00:00Z"], &[]);
    refused(&[], &[("DISPATCH_CLOCK_SPEED", "600")]);
    refused(&["--clock-speed", "600"], &[("DISPATCH_SIMULATE", "false")]);
    let out = Command::new(binary())
        .args(["serve", "--simulate", "--clock-speed", "0", "--db"])
        .arg(dir.path().join("zero.db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("clock speed"));
}

#[test]
fn the_simulated_clock_starts_where_asked_and_runs_at_its_speed_through_the_api() {
    let dir = tempfile::tempdir().unwrap();
    let speed = 600.0;
    let server = Server::start_with_env(
        &dir.path().join("sim.db"),
        &["--rate-limits", "off", "--simulate", "--clock-start", START],
        &[("DISPATCH_CLOCK_SPEED", "600")],
    );
    let key = server.access_key.clone().unwrap();
    let (first, _, first_after) = clock(&server);
    assert_eq!(first["simulated"], json!(true), "{first}");
    assert_eq!(first["speed"], json!(speed), "{first}");
    let t0 = millis(first["now"].as_str().unwrap());
    assert!(t0 >= millis(START), "{first}");

    let order = json!([{"order_number": "S-1", "type": "delivery", "delivery_date": "2026-12-02",
                        "delivery_lat": 51.52, "delivery_lng": -0.10}]);
    assert_eq!(server.post("/v2/orders", &key, &order).status, 200);
    std::thread::sleep(Duration::from_millis(1500));
    let (second, second_before, _) = clock(&server);
    let t1 = millis(second["now"].as_str().unwrap());
    // The reads happened within these wall-clock bounds of each other: the clock moved by the
    // speed times a wall time between them (loose only by the time the reads themselves took).
    let least = speed * (second_before - first_after).as_secs_f64() * 1000.0;
    let (_, _, late) = clock(&server);
    let most = speed * (late - first_after).as_secs_f64() * 1000.0 + speed * 1000.0;
    let moved = (t1 - t0) as f64;
    assert!(
        moved >= least * 0.95 && moved <= most,
        "the clock moved {moved} ms in {least}..{most}"
    );

    // What the service writes carries the simulated time: the order was made on the simulated
    // day, between the two reads.
    let read = server.get("/v2/orders?order_number=S-1", &key).json();
    let created = millis(read["orders"][0]["created"].as_str().unwrap());
    assert!((t0..=t1).contains(&created), "{read}");
}

#[test]
fn an_optimisation_on_a_clock_a_thousand_times_as_fast_keeps_its_lease_and_succeeds() {
    let dir = tempfile::tempdir().unwrap();
    // A one-second lease is 1000 s on this clock: unscaled it would run out a millisecond after
    // each renewal and the job would be taken from its worker again and again.
    let server = Server::start_with(
        &dir.path().join("lease.db"),
        &[
            "--rate-limits",
            "off",
            "--simulate",
            "--clock-start",
            START,
            "--clock-speed",
            "1000",
            "--job-lease",
            "1",
            "--solve-time-min",
            "2",
            "--workers",
            "2",
            "--depot-lat",
            "51.5",
            "--depot-lng",
            "-0.12",
        ],
    );
    let key = server.access_key.clone().unwrap();
    let van = json!({"name": "Van 1", "availability": "full_day",
                     "start_location": "depot", "end_location": "depot"});
    assert_eq!(server.post("/v2/vehicles", &key, &van).status, 200);
    let orders: Vec<Value> = (0..5)
        .map(|i| {
            json!({"order_number": format!("L-{i}"), "type": "delivery",
                   "delivery_date": "2026-12-02", "delivery_lat": 51.5 + 0.01 * f64::from(i),
                   "delivery_lng": -0.1})
        })
        .collect();
    assert_eq!(server.post("/v2/orders", &key, &json!(orders)).status, 200);
    let job = server.optimise_and_wait(&key, "2026-12-02");
    let read = server
        .get(&format!("/v2/plans/optimise/{job}"), &key)
        .json();
    assert_eq!(read["optimisation"]["state"], "succeeded", "{read}");
}
