//! The day the single-read examples (`read_latency`, `read_tail`) optimise while they read: one
//! depot, `VANS` vans and `ORDERS` orders around it.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::support::Server;

/// The delivery date of every order.
pub const DATE: &str = "2026-12-02";
/// Orders on the day.
pub const ORDERS: usize = 1000;
/// Vans on the day.
pub const VANS: usize = 40;

/// The seed: one organisation, one depot, one key with every permission.
fn seed_file() -> Value {
    json!({"organisations": [{"name": "Latency", "depots": [{
        "name": "Central", "address": "1 Depot Way", "lat": 51.50, "lng": -0.12,
        "settings": {"timezone": "UTC"},
        "access_keys": [{"name": "bench", "permission": "all"}]
    }]}]})
}

/// Seeds the database at `db`; the depot's access key.
pub fn seed(db: &Path) -> String {
    let seeded = crate::support::seed(db, &seed_file());
    seeded["organisations"][0]["depots"][0]["access_keys"][0]["key"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// `dispatch serve` on `db` with `threads` solver threads, a minute's solve and no rate limits,
/// then `extra` flags.
pub fn serve(db: &Path, threads: usize, extra: &[&str]) -> Server {
    let threads = threads.to_string();
    let flags: Vec<&str> = [
        "--rate-limits",
        "off",
        "--workers",
        "1",
        "--solver-threads",
        &threads,
        "--solve-time",
        "60",
        "--solve-time-min",
        "60",
    ]
    .into_iter()
    .chain(extra.iter().copied())
    .collect();
    Server::start_with(db, &flags)
}

/// The day: `VANS` vans and `ORDERS` orders spread around the depot, some with windows.
pub fn fill(server: &Server, key: &str) -> Vec<i64> {
    for n in 0..VANS {
        let van = json!({"name": format!("Van {n}"), "availability": "shift",
            "shift_start": "08:00", "shift_end": "18:00",
            "start_location": "depot", "end_location": "depot"});
        assert_eq!(server.post("/v2/vehicles", key, &van).status, 200);
    }
    let mut ids = Vec::new();
    for batch in 0..ORDERS / 100 {
        let orders: Vec<Value> = (0..100)
            .map(|k| {
                let i = batch * 100 + k;
                let a = i as f64 * 2.399_963;
                let r = 0.01 + 0.08 * ((i * 37 % 100) as f64 / 100.0);
                let mut o = json!({"order_number": format!("L-{i:04}"), "type": "delivery",
                    "delivery_date": DATE, "delivery_address": format!("{i} Bench Road"),
                    "delivery_lat": 51.50 + r * a.sin() * 0.65, "delivery_lng": -0.12 + r * a.cos(),
                    "delivery_duration": 3});
                if i % 3 == 0 {
                    let from = 8 + 2 * (i / 3 % 4);
                    o["delivery_time_windows"] = json!([{"from": format!("{from:02}:00"),
                        "to": format!("{:02}:00", from + 3)}]);
                }
                o
            })
            .collect();
        let reply = server.post("/v2/orders", key, &json!(orders));
        assert_eq!(reply.status, 200, "{}", reply.text());
        ids.extend(
            reply.json()["orders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["id"].as_str().unwrap().parse::<i64>().unwrap()),
        );
    }
    ids
}

/// Starts optimising the day and gives the search two seconds to be under way; the job's id.
pub fn start_solve(server: &Server, key: &str) -> String {
    let started = server.post(
        "/v2/plans/optimise/orders",
        key,
        &json!({"delivery_date": DATE, "settings": {}}),
    );
    assert_eq!(started.status, 200, "{}", started.text());
    let job = started.json()["optimisation"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    std::thread::sleep(Duration::from_secs(2));
    job
}
