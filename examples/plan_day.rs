//! Plan-a-day benchmark: a depot day of 1000 orders and 40 vehicles loaded through the API of
//! the real `dispatch serve` binary, optimised by the service, and compared with a 60 s
//! `dispatch solve` of the very problem the service solved (`dispatch export-problem`).
//!
//! It prints one table: time from `POST /v2/plans/optimise/orders` to routes visible on
//! `GET /v2/plans/{id}`, routed and unserved orders, total distance and driving time, the same
//! for the 60 s solve, and the latency of `GET /v2/orders/{id}` (p50, p99, max) measured by a
//! client polling throughout the optimisation.
//!
//! ```text
//! cargo build --release -p dispatch-server --bin dispatch
//! cargo run --release --example plan_day -- [--orders N] [--vehicles N] [--solve-secs S] [-- SERVE FLAGS...]
//! ```
//! Flags after `--` go to `dispatch serve` (for example `--workers 1`).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

const DATE: &str = "2026-11-24";

struct Options {
    orders: usize,
    vehicles: usize,
    solve_secs: u64,
    serve_flags: Vec<String>,
}

fn options() -> Options {
    let mut o = Options {
        orders: 1000,
        vehicles: 40,
        solve_secs: 60,
        serve_flags: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut number = |name: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{name} takes a number"))
        };
        match a.as_str() {
            "--orders" => o.orders = number("--orders") as usize,
            "--vehicles" => o.vehicles = number("--vehicles") as usize,
            "--solve-secs" => o.solve_secs = number("--solve-secs"),
            "--" => {
                o.serve_flags = args.by_ref().collect();
            }
            other => panic!("unknown argument {other} (see the example's documentation)"),
        }
    }
    o
}

/// `target/<profile>/dispatch`, next to `target/<profile>/examples/plan_day`.
fn binary() -> PathBuf {
    let exe = std::env::current_exe().expect("own path");
    let dir = exe.parent().and_then(Path::parent).expect("target dir");
    let bin = dir.join(format!("dispatch{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: cargo build --release -p dispatch-server --bin dispatch",
        bin.display()
    );
    bin
}

/// One request over a fresh connection; (status, body).
fn call(addr: &str, method: &str, path: &str, key: &str, body: Option<&Value>) -> (u16, Vec<u8>) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_nodelay(true).expect("nodelay");
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nx-access-key: {key}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).expect("send head");
    stream.write_all(body.as_bytes()).expect("send body");
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).expect("read reply");
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a reply head");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let status = head[9..12].parse().expect("status code");
    let mut payload = raw[split + 4..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        payload = dechunk(&payload);
    }
    (status, payload)
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let Some(end) = data.windows(2).position(|w| w == b"\r\n") else {
            return out;
        };
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&data[end + 2..end + 2 + size]);
        data = &data[end + 2 + size + 2..];
    }
}

fn json_call(addr: &str, method: &str, path: &str, key: &str, body: Option<&Value>) -> Value {
    let (status, bytes) = call(addr, method, path, key, body);
    let value: Value = serde_json::from_slice(&bytes).expect("a JSON reply");
    assert!(
        (200..300).contains(&status),
        "{method} {path}: {status} {value}"
    );
    value
}

struct Service {
    child: Child,
    addr: String,
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(db: &Path, flags: &[String]) -> Service {
    let mut child = Command::new(binary())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--rate-limits",
            "off",
            "--db",
        ])
        .arg(db)
        .args(flags)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start dispatch serve");
    let stdout = child.stdout.take().expect("stdout");
    // The guard owns the child from here on: a failed start still kills and reaps it.
    let mut service = Service {
        child,
        addr: String::new(),
    };
    let mut lines = BufReader::new(stdout);
    loop {
        let mut line = String::new();
        assert!(
            lines.read_line(&mut line).expect("read") > 0,
            "serve exited"
        );
        if let Some(url) = line.trim().strip_prefix("listening on http://") {
            service.addr = url.trim_end_matches("/v2").to_owned();
            return service;
        }
    }
}

/// A deterministic pseudo-random stream (xorshift), so every run loads the same day.
struct Rng(u64);

impl Rng {
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn seed(db: &Path, dir: &Path) -> (String, i64) {
    let file = dir.join("seed.json");
    let setup = json!({"organisations": [{"name": "Bench", "depots": [{
        "name": "Day", "address": "Depot", "lat": 51.5, "lng": -0.12,
        "access_keys": [{"name": "bench", "permission": "all"}],
        "capacity_types": [{"type": "Weight", "default": "0"}]}]}]});
    std::fs::write(&file, setup.to_string()).expect("write seed file");
    let out = Command::new(binary())
        .args(["seed", "--db"])
        .arg(db)
        .arg(&file)
        .output()
        .expect("run dispatch seed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seeded: Value = serde_json::from_slice(&out.stdout).expect("seed output");
    let depot = &seeded["organisations"][0]["depots"][0];
    (
        depot["access_keys"][0]["key"].as_str().unwrap().to_owned(),
        depot["capacity_types"][0]["id"].as_i64().unwrap(),
    )
}

fn load_day(addr: &str, key: &str, weight: i64, o: &Options) -> Vec<i64> {
    for v in 0..o.vehicles {
        json_call(
            addr,
            "POST",
            "/v2/vehicles",
            key,
            Some(&json!({
            "name": format!("Van {v}"), "availability": "shift",
            "shift_start": "07:00", "shift_end": "19:00",
            "start_location": "depot", "end_location": "depot",
            "capacities": [{"id": weight, "capacity": 200}]})),
        );
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut ids = Vec::new();
    let orders: Vec<Value> = (0..o.orders)
        .map(|i| {
            let lat = 51.5 + (rng.unit() - 0.5) * 0.36;
            let lng = -0.12 + (rng.unit() - 0.5) * 0.58;
            let mut order = json!({
                "order_number": format!("B{i:05}"), "type": "delivery",
                "delivery_address": format!("{i} Bench Road"),
                "delivery_lat": lat, "delivery_lng": lng,
                "delivery_duration": 3 + (rng.unit() * 5.0) as i64,
                "delivery_date": DATE,
                "capacities": [{"id": weight, "capacity": 1 + (rng.unit() * 9.0) as i64}]});
            if rng.unit() < 0.3 {
                let start = 8 + (rng.unit() * 8.0) as i64;
                order["delivery_time_windows"] =
                    json!([{"from": format!("{start:02}:00"), "to": format!("{:02}:00", start + 2)}]);
            }
            order
        })
        .collect();
    for batch in orders.chunks(100) {
        let r = json_call(
            addr,
            "POST",
            "/v2/orders",
            key,
            Some(&Value::Array(batch.to_vec())),
        );
        ids.extend(
            r["orders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["id"].as_str().unwrap().parse::<i64>().unwrap()),
        );
    }
    ids
}

/// Latencies of GET /v2/orders/{id} until `stop`, in microseconds.
fn poll_orders(addr: String, key: String, ids: Vec<i64>, stop: Arc<AtomicBool>) -> Vec<u64> {
    let mut out = Vec::new();
    let mut n = 0usize;
    while !stop.load(Ordering::Relaxed) {
        let id = ids[n * 7919 % ids.len()];
        n += 1;
        let t = Instant::now();
        let (status, _) = call(&addr, "GET", &format!("/v2/orders/{id}"), &key, None);
        out.push(t.elapsed().as_micros() as u64);
        assert_eq!(status, 200);
        std::thread::sleep(Duration::from_millis(20));
    }
    out
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// Distance and duration of `dispatch solve`'s routes on the exported matrices.
fn solve_totals(problem: &Value, solved: &Value) -> (usize, i64, i64) {
    let car = &problem["matrices"]["car"];
    let at = |m: &str, a: usize, b: usize| car[m][a][b].as_i64().unwrap_or(0);
    let job_index: std::collections::HashMap<i64, usize> = problem["jobs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|j| {
            (
                j["id"].as_i64().unwrap(),
                j["location_index"].as_u64().unwrap() as usize,
            )
        })
        .collect();
    let vehicles: std::collections::HashMap<i64, &Value> = problem["vehicles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["id"].as_i64().unwrap(), v))
        .collect();
    let (mut routed, mut distance, mut duration) = (0, 0, 0);
    for route in solved["routes"].as_array().unwrap() {
        let vehicle = vehicles[&route["vehicle"].as_i64().unwrap()];
        let mut points: Vec<usize> = Vec::new();
        points.extend(vehicle["start_index"].as_u64().map(|i| i as usize));
        for step in route["steps"].as_array().unwrap() {
            if step["type"] == "job" {
                routed += 1;
                points.push(job_index[&step["id"].as_i64().unwrap()]);
            }
        }
        points.extend(vehicle["end_index"].as_u64().map(|i| i as usize));
        for w in points.windows(2) {
            distance += at("distances", w[0], w[1]);
            duration += at("durations", w[0], w[1]);
        }
    }
    (routed, distance, duration)
}

fn main() {
    let o = options();
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("day.db");
    let (key, weight) = seed(&db, dir.path());
    let service = serve(&db, &o.serve_flags);
    let addr = service.addr.clone();
    let ids = load_day(&addr, &key, weight, &o);
    eprintln!("loaded {} orders and {} vehicles", ids.len(), o.vehicles);

    let stop = Arc::new(AtomicBool::new(false));
    let poller = {
        let (addr, key, ids, stop) = (addr.clone(), key.clone(), ids.clone(), stop.clone());
        std::thread::spawn(move || poll_orders(addr, key, ids, stop))
    };
    let posted = Instant::now();
    let r = json_call(
        &addr,
        "POST",
        "/v2/plans/optimise/orders",
        &key,
        Some(
            &json!({"delivery_date": DATE, "settings": {"active_vehicles": true, "auto_dispatch": false}}),
        ),
    );
    let plan_id = r["plan"]["id"].as_i64().unwrap();
    let plan = loop {
        let p = json_call(&addr, "GET", &format!("/v2/plans/{plan_id}"), &key, None);
        let done = !p["plan"]["routes"].as_array().unwrap().is_empty()
            || !p["plan"]["unserved"].as_array().unwrap().is_empty();
        if done {
            break p["plan"].clone();
        }
        assert!(
            posted.elapsed() < Duration::from_secs(600),
            "no result in 10 minutes"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let visible = posted.elapsed();
    stop.store(true, Ordering::Relaxed);
    let mut latencies = poller.join().expect("poller");
    latencies.sort_unstable();

    let routes = plan["routes"].as_array().unwrap();
    let routed: usize = routes
        .iter()
        .flat_map(|r| r["stops"].as_array().unwrap())
        .map(|s| s["orders"].as_array().unwrap().len())
        .sum();
    let distance: i64 = routes
        .iter()
        .map(|r| r["planned_distance"].as_i64().unwrap())
        .sum();
    let travel: i64 = routes
        .iter()
        .map(|r| r["travel_time"].as_i64().unwrap())
        .sum();
    let unserved = plan["unserved"].as_array().unwrap().len();
    drop(service);

    let problem_file = dir.path().join("problem.json");
    let out = Command::new(binary())
        .args(["export-problem", "--db"])
        .arg(&db)
        .args(["--plan", &plan_id.to_string(), "--out"])
        .arg(&problem_file)
        .output()
        .expect("run dispatch export-problem");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let problem: Value =
        serde_json::from_slice(&std::fs::read(&problem_file).expect("problem file")).unwrap();
    eprintln!("solving the exported problem for {} s", o.solve_secs);
    let out = Command::new(binary())
        .args([
            "solve",
            "--format",
            "vroom",
            "--time-limit",
            &o.solve_secs.to_string(),
        ])
        .arg(&problem_file)
        .stderr(Stdio::null())
        .output()
        .expect("run dispatch solve");
    assert!(out.status.success(), "dispatch solve failed");
    let solved: Value = serde_json::from_slice(&out.stdout).expect("solve output");
    let (solve_routed, solve_distance, solve_travel) = solve_totals(&problem, &solved);

    let km = |m: i64| m as f64 / 1000.0;
    let h = |s: i64| s as f64 / 3600.0;
    println!(
        "plan a day: {} orders, {} vehicles ({DATE})",
        o.orders, o.vehicles
    );
    println!("| run | time to routes | routed | unserved | routes | distance km | driving h |");
    println!("|---|---|---|---|---|---|---|");
    println!(
        "| service (POST -> routes visible) | {:.1} s | {routed} | {unserved} | {} | {:.1} | {:.1} |",
        visible.as_secs_f64(),
        routes.len(),
        km(distance),
        h(travel)
    );
    println!(
        "| dispatch solve, exported problem | {} s | {solve_routed} | {} | {} | {:.1} | {:.1} |",
        o.solve_secs,
        solved["unassigned"].as_array().map_or(0, Vec::len),
        solved["routes"].as_array().map_or(0, Vec::len),
        km(solve_distance),
        h(solve_travel)
    );
    println!(
        "distance vs the {} s solve: {:+.2} %; driving time: {:+.2} %",
        o.solve_secs,
        (distance as f64 / solve_distance.max(1) as f64 - 1.0) * 100.0,
        (travel as f64 / solve_travel.max(1) as f64 - 1.0) * 100.0
    );
    println!(
        "GET /v2/orders/{{id}} during the optimisation: {} requests, p50 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        latencies.len(),
        percentile(&latencies, 0.5),
        percentile(&latencies, 0.99),
        percentile(&latencies, 1.0)
    );
}
