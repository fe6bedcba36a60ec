//! Many nodes on one database: a throwaway PostgreSQL, three `serve --workers off` API nodes and
//! two `dispatch worker`s on loopback. Orders and optimisations go through different nodes; a
//! worker is killed with `kill -9` in the middle of a job and an API node in the middle of
//! traffic. Afterwards: every acknowledged order is there, every job finished exactly once
//! (one `optimisation succeeded` across all workers' logs, one solution per plan), the killed
//! worker's job was finished by the other worker, an idempotency key used on one node
//! replays on another, and a key's rate limit is counted across the three nodes.
//!
//! The API nodes run with rate limits on, as in production: every request takes the next key
//! of a pool of the depot's keys, so the traffic stays within each key's tiers (the write
//! stream on the killed node may still be refused, which acknowledges nothing), while one key
//! kept apart exhausts its strict tier across the nodes.

use crate::support;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dispatch_core::ports::store::Store;
use dispatch_store_postgres::throwaway::Cluster;
use dispatch_store_postgres::PostgresStore;
use serde_json::{json, Value};
use support::worker::{job_log, jobs_logged, Worker};
use support::{Request, Server};

/// Plans (one per date), each one optimisation job.
const DAYS: usize = 6;
const ORDERS_PER_DAY: usize = 12;
/// Keys of the depot the traffic takes in turn.
const POOL: usize = 48;

/// The depot's keys, handed out in turn.
struct Keys {
    keys: Vec<String>,
    next: AtomicUsize,
}

impl Keys {
    fn next(&self) -> &str {
        &self.keys[self.next.fetch_add(1, Ordering::Relaxed) % self.keys.len()]
    }
}

/// The support fixture with `POOL` more keys in North: (the pool, a key kept apart).
fn seed_keys(db: &Path) -> (Keys, String) {
    let mut file = support::fixture_file();
    let north = &mut file["organisations"][0]["depots"][0]["access_keys"];
    for i in 0..POOL {
        north
            .as_array_mut()
            .unwrap()
            .push(json!({"name": format!("pool-{i}"), "permission": "all"}));
    }
    let seeded = support::seed(db, &file);
    let keys: Vec<String> = seeded["organisations"][0]["depots"][0]["access_keys"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|k| k["name"].as_str().unwrap().starts_with("pool-"))
        .map(|k| k["key"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(keys.len(), POOL);
    let apart = seeded["organisations"][0]["depots"][0]["access_keys"][0]["key"]
        .as_str()
        .unwrap()
        .to_owned();
    let pool = Keys {
        keys,
        next: AtomicUsize::new(0),
    };
    (pool, apart)
}

/// POST that never panics: `None` when the node is gone (connection refused or cut).
fn try_post(addr: &str, key: &str, path: &str, body: &Value) -> Option<u16> {
    let body = body.to_string();
    let mut stream = TcpStream::connect(addr).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .ok()?;
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nx-access-key: {key}\r\n\
         content-type: application/json\r\ncontent-length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).ok()?;
    stream.write_all(body.as_bytes()).ok()?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw).ok()?;
    raw.split(' ').nth(1)?.parse().ok()
}

fn day(d: usize) -> String {
    format!("2026-12-{:02}", d + 1)
}

fn order(number: &str, d: usize, i: usize) -> Value {
    let (a, b) = ((i % 4) as f64, (i / 4) as f64);
    json!({"order_number": number, "type": "delivery", "delivery_date": day(d),
           "delivery_lat": 51.45 + 0.015 * a, "delivery_lng": -0.20 + 0.02 * b,
           "delivery_duration": 4})
}

/// Every order number of the depot, through `node`'s paging.
fn order_numbers(node: &Server, keys: &Keys) -> BTreeSet<String> {
    let mut numbers = BTreeSet::new();
    let mut path = "/v2/orders?limit=100".to_owned();
    loop {
        let reply = node.get(&path, keys.next());
        assert_eq!(reply.status, 200);
        for o in reply.json()["orders"].as_array().unwrap() {
            numbers.insert(o["order_number"].as_str().unwrap().to_owned());
        }
        match reply.next_link() {
            Some(next) => path = next,
            None => return numbers,
        }
    }
}

fn in_progress(node: &Server, keys: &Keys, job: &str) -> bool {
    let r = node.get(&format!("/v2/plans/optimise/{job}"), keys.next());
    assert_eq!(r.status, 200);
    r.json()["optimisation"]["in_progress"].as_bool().unwrap()
}

#[test]
fn three_api_nodes_and_two_workers_lose_nothing_and_finish_every_job_once() {
    let started = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let url = Cluster::shared().unwrap().create_empty_database().unwrap();
    let db = Path::new(&url);
    let (keys, apart) = seed_keys(db);
    let keys = &keys;
    let api = ["--rate-limits", "on", "--workers", "off"];
    let a = Server::start_with(db, &api);
    let b = Server::start_with(db, &api);
    let c = Server::start_with(db, &api);
    let flags = [
        "--workers",
        "1",
        "--solver-threads",
        "1",
        "--job-lease",
        "4",
        "--solve-time",
        "3",
        "--solve-time-min",
        "3",
    ];
    let w1 = Worker::start(&url, "worker-1", dir.path(), &flags);
    let w2 = Worker::start(&url, "worker-2", dir.path(), &flags);

    for (node, name) in [(&a, "Van 1"), (&b, "Van 2")] {
        let r = node.post(
            "/v2/vehicles",
            keys.next(),
            &json!({"name": name, "availability": "full_day", "start_location": "depot", "end_location": "depot"}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
    }
    // The days' orders, each day's batch through another node.
    let nodes = [&a, &b, &c];
    let mut acknowledged = BTreeSet::new();
    for d in 0..DAYS {
        let numbers: Vec<String> = (0..ORDERS_PER_DAY).map(|i| format!("D{d}-{i}")).collect();
        let batch: Vec<Value> = numbers
            .iter()
            .enumerate()
            .map(|(i, n)| order(n, d, i))
            .collect();
        let r = nodes[d % 3].post("/v2/orders", keys.next(), &Value::Array(batch));
        assert_eq!(r.status, 200, "{}", r.text());
        acknowledged.extend(numbers);
    }
    // An idempotent request on one node replays on another, creating nothing twice.
    // (A replay is answered before the rate limit: the same key within the bulk tier's two
    // seconds is not refused.)
    let once = json!([order("IDEM-1", 0, 0)]);
    let key = keys.next();
    let first = a.send(
        Request::new("POST", "/v2/orders", Some(key))
            .json(&once)
            .header("idempotency-key", "nodes-test-1"),
    );
    let replay = b.send(
        Request::new("POST", "/v2/orders", Some(key))
            .json(&once)
            .header("idempotency-key", "nodes-test-1"),
    );
    assert_eq!((first.status, replay.status), (200, 200));
    assert_eq!(first.json(), replay.json(), "replayed on another node");
    acknowledged.insert("IDEM-1".to_owned());

    // One key's strict tier (2 calls in any 15 s) counted across the nodes: a call on A and
    // one on B use it up, so C refuses the third (a refused body still counts: the limit is
    // charged before the handler runs); another key is not affected.
    let booking = |node: &Server, key: &str| node.post("/v2/booking/availability", key, &json!({}));
    assert_eq!(booking(&a, &apart).status, 400);
    assert_eq!(booking(&b, &apart).status, 400);
    let refused = booking(&c, &apart);
    assert_eq!(refused.status, 403, "{}", refused.text());
    assert_eq!(refused.json()["name"], "FORBIDDEN");
    let wait: i64 = refused.header("retry-after").unwrap().parse().unwrap();
    assert!((1..=15).contains(&wait), "{wait}");
    assert_eq!(booking(&c, keys.next()).status, 400, "another key's quota");

    // One optimisation per day, queued through the three nodes in turn.
    let mut jobs = BTreeMap::new();
    for d in 0..DAYS {
        let r = nodes[(d + 1) % 3].post(
            "/v2/plans/optimise/orders",
            keys.next(),
            &json!({"delivery_date": day(d), "settings": {}}),
        );
        assert_eq!(r.status, 200, "{}", r.text());
        let body = r.json();
        jobs.insert(
            body["optimisation"]["id"].as_str().unwrap().to_owned(),
            body["plan"]["id"].as_i64().unwrap(),
        );
    }

    eprintln!("orders and jobs queued after {:?}", started.elapsed());
    // kill -9 worker-1 in the middle of a job, and node C in the middle of a stream of writes.
    let deadline = Instant::now() + Duration::from_secs(60);
    let killed_job = loop {
        let started_jobs = w1.jobs("optimisation started");
        let done = w1.jobs("optimisation succeeded");
        if let Some(j) = started_jobs.iter().find(|j| !done.contains(j)) {
            break j.clone();
        }
        assert!(Instant::now() < deadline, "worker-1 never started a job");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(w1.node, "worker-1");
    let w1_log = w1.log.clone();
    drop(w1);
    let c_addr = c.addr.clone();
    let streamed = std::thread::scope(|s| {
        let writer = s.spawn(|| {
            let mut acked = Vec::new();
            for i in 0.. {
                let number = format!("C-{i}");
                let body = json!([order(&number, 0, i)]);
                match try_post(&c_addr, keys.next(), "/v2/orders", &body) {
                    Some(200) => acked.push(number),
                    // A key of the pool used again within its bulk tier: refused, not written.
                    Some(403) => {}
                    Some(status) => panic!("node C answered {status}"),
                    None => return acked,
                }
            }
            acked
        });
        std::thread::sleep(Duration::from_millis(700));
        c.kill_hard();
        writer.join().unwrap()
    });
    assert!(!streamed.is_empty(), "node C took writes before it died");
    acknowledged.extend(streamed);

    // Every job ends, each finished once, the killed one by worker-2.
    let deadline = Instant::now() + Duration::from_secs(90);
    for job in jobs.keys() {
        while in_progress(&a, keys, job) {
            assert!(Instant::now() < deadline, "job {job} never ended");
            std::thread::sleep(Duration::from_millis(200));
        }
    }
    eprintln!("jobs ended after {:?}", started.elapsed());
    // A worker logs a success just after its commit, which the API may show first.
    let logged_by = Instant::now() + Duration::from_secs(10);
    let (w1_succeeded, w2_succeeded) = loop {
        let w1 = jobs_logged(&w1_log, "optimisation succeeded");
        let w2 = w2.jobs("optimisation succeeded");
        if w1.len() + w2.len() >= jobs.len() || Instant::now() > logged_by {
            break (w1, w2);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let logs = format!(
        "worker-1:\n{}\nworker-2:\n{}",
        job_log(&w1_log),
        job_log(&w2.log)
    );
    for job in jobs.keys() {
        let r = b.get(&format!("/v2/plans/optimise/{job}"), keys.next());
        assert_eq!(
            r.json()["optimisation"]["error"],
            Value::Null,
            "{}\n{logs}",
            r.text()
        );
    }
    assert!(
        !w1_succeeded.contains(&killed_job) && w2_succeeded.contains(&killed_job),
        "worker-2 finished the job worker-1 died in\n{logs}"
    );
    let mut finished: Vec<&String> = w1_succeeded.iter().chain(&w2_succeeded).collect();
    finished.sort();
    let expected: Vec<&String> = jobs.keys().collect();
    assert_eq!(
        finished, expected,
        "every job finished exactly once\n{logs}"
    );
    let opened = PostgresStore::open(&url).unwrap();
    let store: &dyn Store = &opened;
    let scope = store
        .read(|tx| tx.plan_scope(*jobs.values().next().unwrap()))
        .unwrap()
        .unwrap();
    for (job, plan) in &jobs {
        let solutions: BTreeSet<i64> = store
            .read(|tx| tx.routes_of_plan(scope, *plan))
            .unwrap()
            .iter()
            .map(|r| r.solution_id)
            .collect();
        assert_eq!(
            solutions.len(),
            1,
            "plan {plan}: one solution, {solutions:?}"
        );
        let holder = store.read(|tx| tx.optimisation_holder(job)).unwrap();
        assert!(
            matches!(holder.as_deref(), Some("worker-1" | "worker-2")),
            "{holder:?}"
        );
    }

    // No acknowledged write lost, read through a node that was never killed.
    let stored = order_numbers(&b, keys);
    let lost: Vec<&String> = acknowledged.difference(&stored).collect();
    assert!(lost.is_empty(), "acknowledged but lost: {lost:?}");

    eprintln!(
        "jobs finished: worker-1 {}, worker-2 {}; {} orders acknowledged; {:?}",
        w1_succeeded.len(),
        w2_succeeded.len(),
        acknowledged.len(),
        started.elapsed()
    );
}
