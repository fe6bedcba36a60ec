//! Several nodes on one database: the real `dispatch serve` and `dispatch worker` processes on
//! loopback, SQLite and a throwaway PostgreSQL side by side.
//!
//! `cargo run --release --example bench_nodes -- [ORDERS] [JOBS]` (defaults 3000 and 8) prints:
//! 1. Order ingest (POST /v2/orders, batches of 50, 6 client threads spread over the nodes)
//!    and paging (GET /v2/orders?limit=100 through every page, 6 clients) on SQLite with one
//!    API node, PostgreSQL with one and PostgreSQL with three (`serve --workers off`), with
//!    the API processes' CPU seconds per 1000 orders and per 100 pages.
//! 2. Optimisation jobs per minute with one and with two `dispatch worker`s (one job at a time
//!    each, one solver thread, a fixed 2 s budget): JOBS jobs of 40 orders queued at once,
//!    how many each worker ran (the job's holder in the store), and the workers' CPU seconds
//!    per job.
//!
//! On one small machine all processes share the same cores: the figures show that several
//! nodes are correct and what each costs, not a speed-up. See benches/README.md for the sizing
//! model drawn from them.

#[path = "../tests/support/mod.rs"]
mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use dispatch_core::ports::store::Store;
use dispatch_store_postgres::throwaway::Cluster;
use dispatch_store_postgres::PostgresStore;
use serde_json::{json, Value};
use support::worker::{cpu_seconds, Worker};
use support::{Fixture, Server};

const CLIENTS: usize = 6;
const BATCH: usize = 50;
const JOB_ORDERS: usize = 40;

fn order(number: &str, date: &str, i: usize) -> Value {
    let (a, b) = ((i % 7) as f64, ((i / 7) % 7) as f64);
    json!({"order_number": number, "type": "delivery", "delivery_date": date,
           "delivery_lat": 51.45 + 0.015 * a, "delivery_lng": -0.20 + 0.02 * b,
           "delivery_duration": 4})
}

fn cpu_of(nodes: &[Server]) -> f64 {
    nodes.iter().map(|n| cpu_seconds(n.pid())).sum()
}

/// (orders/s, CPU s per 1000 orders, pages/s, CPU s per 100 pages).
fn api_run(db: &Path, nodes: usize, orders: usize) -> (f64, f64, f64, f64) {
    let fx = Fixture::seed(db);
    let key = fx.key.as_str();
    let servers: Vec<Server> = (0..nodes)
        .map(|_| Server::start_with(db, &["--rate-limits", "off", "--workers", "off"]))
        .collect();
    let batches = orders / BATCH;
    let cpu = cpu_of(&servers);
    let start = Instant::now();
    std::thread::scope(|s| {
        for c in 0..CLIENTS {
            let servers = &servers;
            s.spawn(move || {
                for b in (c..batches).step_by(CLIENTS) {
                    let batch: Vec<Value> = (0..BATCH)
                        .map(|i| order(&format!("B{b}-{i}"), "2026-12-01", i))
                        .collect();
                    let r =
                        servers[b % servers.len()].post("/v2/orders", key, &Value::Array(batch));
                    assert_eq!(r.status, 200, "{}", r.text());
                }
            });
        }
    });
    let ingest = start.elapsed().as_secs_f64();
    let ingest_cpu = cpu_of(&servers) - cpu;
    let cpu = cpu_of(&servers);
    let expected = batches * BATCH;
    let start = Instant::now();
    let pages: usize = std::thread::scope(|s| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|c| {
                let servers = &servers;
                s.spawn(move || {
                    let node = &servers[c % servers.len()];
                    let mut path = "/v2/orders?limit=100".to_owned();
                    let (mut pages, mut seen) = (0, std::collections::HashSet::new());
                    loop {
                        let r = node.get(&path, key);
                        assert_eq!(r.status, 200);
                        pages += 1;
                        for order in r.json()["orders"].as_array().expect("orders") {
                            assert!(seen.insert(order["id"].clone()), "an order paged twice");
                        }
                        match r.next_link() {
                            Some(next) => path = next,
                            None => break,
                        }
                    }
                    // Every acknowledged order, whichever node took it, is read back once.
                    assert_eq!(seen.len(), expected, "orders read back through one node");
                    pages
                })
            })
            .collect();
        clients.into_iter().map(|c| c.join().unwrap()).sum()
    });
    let paging = start.elapsed().as_secs_f64();
    let paging_cpu = cpu_of(&servers) - cpu;
    (
        expected as f64 / ingest,
        ingest_cpu / expected as f64 * 1000.0,
        pages as f64 / paging,
        paging_cpu / pages as f64 * 100.0,
    )
}

/// (jobs/min, jobs per worker, worker CPU s per job).
fn jobs_run(url: &str, workers: usize, jobs: usize) -> (f64, Vec<(String, usize)>, f64) {
    let db = Path::new(url);
    let fx = Fixture::seed(db);
    let key = fx.key.as_str();
    let api = Server::start_with(db, &["--rate-limits", "off", "--workers", "off"]);
    for name in ["Van 1", "Van 2"] {
        let r = api.post(
            "/v2/vehicles",
            key,
            &json!({"name": name, "availability": "full_day", "start_location": "depot", "end_location": "depot"}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }
    let dates: Vec<String> = (0..jobs).map(|d| format!("2026-12-{:02}", d + 1)).collect();
    for (d, date) in dates.iter().enumerate() {
        let batch: Vec<Value> = (0..JOB_ORDERS)
            .map(|i| order(&format!("J{d}-{i}"), date, i))
            .collect();
        assert_eq!(
            api.post("/v2/orders", key, &Value::Array(batch)).status,
            200
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let flags = [
        "--workers",
        "1",
        "--solver-threads",
        "1",
        "--solve-time",
        "2",
        "--solve-time-min",
        "2",
    ];
    let pool: Vec<Worker> = (0..workers)
        .map(|w| Worker::start(url, &format!("worker-{}", w + 1), dir.path(), &flags))
        .collect();
    let cpu: f64 = pool.iter().map(|w| cpu_seconds(w.pid())).sum();
    let start = Instant::now();
    let ids: Vec<String> = dates
        .iter()
        .map(|date| {
            let r = api.post(
                "/v2/plans/optimise/orders",
                key,
                &json!({"delivery_date": date, "settings": {}}),
            );
            assert_eq!(r.status, 200, "{}", r.text());
            r.json()["optimisation"]["id"].as_str().unwrap().to_owned()
        })
        .collect();
    for id in &ids {
        loop {
            let r = api.get(&format!("/v2/plans/optimise/{id}"), key);
            if r.json()["optimisation"]["in_progress"] == false {
                assert_eq!(r.json()["optimisation"]["error"], Value::Null);
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(600),
                "job {id} never ended"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let elapsed = start.elapsed().as_secs_f64();
    let used: f64 = pool.iter().map(|w| cpu_seconds(w.pid())).sum::<f64>() - cpu;
    let store = PostgresStore::open(url).unwrap();
    let store: &dyn Store = &store;
    let mut spread: BTreeMap<String, usize> = pool.iter().map(|w| (w.node.clone(), 0)).collect();
    for id in &ids {
        let holder = store.read(|tx| tx.optimisation_holder(id)).unwrap();
        *spread
            .entry(holder.unwrap_or_else(|| "?".into()))
            .or_default() += 1;
    }
    (
        jobs as f64 / elapsed * 60.0,
        spread.into_iter().collect(),
        used / jobs as f64,
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let orders: usize = args.next().map_or(3000, |a| a.parse().expect("ORDERS"));
    let jobs: usize = args.next().map_or(8, |a| a.parse().expect("JOBS"));
    let cluster = Cluster::shared().expect("a throwaway PostgreSQL (apt-get install postgresql)");
    let profile = if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    };
    println!(
        "bench_nodes: {orders} orders, {jobs} jobs, {} cores, {profile} build\n",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!("| store | API nodes | ingest orders/s | CPU s / 1000 orders | paging pages/s | CPU s / 100 pages |");
    println!("|---|---|---|---|---|---|");
    let sqlite = tempfile::tempdir().unwrap();
    let runs: Vec<(&str, usize, String)> = vec![
        (
            "SQLite",
            1,
            sqlite.path().join("bench.db").display().to_string(),
        ),
        ("PostgreSQL", 1, cluster.create_empty_database().unwrap()),
        ("PostgreSQL", 3, cluster.create_empty_database().unwrap()),
    ];
    for (store, nodes, db) in runs {
        let (ingest, ingest_cpu, paging, paging_cpu) = api_run(Path::new(&db), nodes, orders);
        println!(
            "| {store} | {nodes} | {ingest:.0} | {ingest_cpu:.2} | {paging:.0} | {paging_cpu:.2} |"
        );
    }
    println!("\n| workers | jobs | jobs/min | jobs per worker | worker CPU s / job |");
    println!("|---|---|---|---|---|");
    for workers in [1, 2] {
        let url = cluster.create_empty_database().unwrap();
        let (per_minute, spread, cpu) = jobs_run(&url, workers, jobs);
        let spread: Vec<String> = spread.iter().map(|(w, n)| format!("{w}: {n}")).collect();
        println!(
            "| {workers} | {jobs} | {per_minute:.1} | {} | {cpu:.2} |",
            spread.join(", ")
        );
    }
}
