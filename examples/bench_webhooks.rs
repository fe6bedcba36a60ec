//! Webhook delivery benchmark: the real `dispatch serve` delivering to a receiver on loopback.
//!
//! `cargo run --release --example bench_webhooks -- [EVENTS]` (default 5000) prints:
//! 1. throughput (events delivered per second, first commit to last receipt) and latency from
//!    commit to receipt (p50, p99) for a healthy receiver, alone and while another depot's
//!    receiver is dead (accepts connections, never answers) with a backlog of its own;
//! 2. kill -9 during a burst of 10 000 events: the server is killed half-way, the rest is
//!    committed while it is down, and after the restart every committed event must arrive;
//!    duplicates are counted and printed.
//!
//! Events are committed to the outbox through the store port (`append_event`, 100 per
//! transaction) by this process, as a change of another process would; the service delivers
//! whatever the outbox holds.

#[path = "../tests/webhooks/receiver.rs"]
mod receiver;
#[path = "../tests/support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use dispatch_core::events::DomainEvent;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::time::Timestamp;
use dispatch_store_sqlite::SqliteStore;
use serde_json::json;

use receiver::{Behaviour, Receiver};
use support::Server;

const BATCH: usize = 100;

fn millis(t: SystemTime) -> i64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

/// Commits events with order ids `ids` to `scope`, `BATCH` per transaction; the commit time of
/// each id.
fn commit(store: &dyn Store, scope: DepotScope, ids: std::ops::Range<i64>) -> HashMap<i64, i64> {
    let mut committed = HashMap::new();
    let all: Vec<i64> = ids.collect();
    for chunk in all.chunks(BATCH) {
        store
            .transaction(|tx| {
                for id in chunk {
                    let e = DomainEvent::OrderStatus {
                        order_id: *id,
                        order_number: format!("B{id}"),
                        status: "DELIVERED".into(),
                    };
                    tx.append_event(scope, &e, Timestamp::from_millis(millis(SystemTime::now())))?;
                }
                Ok::<_, StoreError>(())
            })
            .expect("commit");
        let at = millis(SystemTime::now());
        for id in chunk {
            committed.insert(*id, at);
        }
    }
    committed
}

fn wait_for_ids(
    hook: &Receiver,
    ids: &std::ops::Range<i64>,
    within: Duration,
) -> Vec<receiver::Hit> {
    let deadline = Instant::now() + within;
    loop {
        let hits: Vec<_> = hook
            .hits()
            .into_iter()
            .filter(|h| {
                h.body["data"]["order_id"]
                    .as_i64()
                    .is_some_and(|i| ids.contains(&i))
            })
            .collect();
        let distinct: std::collections::HashSet<i64> = hits
            .iter()
            .map(|h| h.body["data"]["order_id"].as_i64().unwrap())
            .collect();
        if distinct.len() as i64 == ids.end - ids.start || Instant::now() > deadline {
            return hits;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn run(
    label: &str,
    store: &dyn Store,
    scope: DepotScope,
    hook: &Receiver,
    ids: std::ops::Range<i64>,
) {
    let start = millis(SystemTime::now());
    let committed = commit(store, scope, ids.clone());
    let hits = wait_for_ids(hook, &ids, Duration::from_secs(120));
    let mut first_receipt: HashMap<i64, i64> = HashMap::new();
    for h in &hits {
        let id = h.body["data"]["order_id"].as_i64().unwrap();
        first_receipt.entry(id).or_insert(millis(h.wall));
    }
    let last = first_receipt.values().max().copied().unwrap_or(start);
    let mut latency: Vec<i64> = first_receipt
        .iter()
        .map(|(id, at)| at - committed[id])
        .collect();
    latency.sort_unstable();
    let seconds = (last - start).max(1) as f64 / 1000.0;
    println!(
        "| {label} | {} | {} | {:.0} | {} | {} |",
        ids.end - ids.start,
        first_receipt.len(),
        first_receipt.len() as f64 / seconds,
        percentile(&latency, 0.5),
        percentile(&latency, 0.99),
    );
}

fn seed(db: &Path, healthy: &str, dead: &str) -> (DepotScope, DepotScope) {
    let out = support::seed(
        db,
        &json!({"organisations": [{"name": "Bench", "depots": [
            {"name": "Healthy", "settings": {"webhook": {"url": healthy, "username": "u", "password": "p"}}},
            {"name": "Dead", "settings": {"webhook": {"url": dead, "username": "u", "password": "p"}}}
        ]}]}),
    );
    let org = out["organisations"][0]["id"].as_i64().unwrap();
    let scope = |i: usize| DepotScope {
        organisation_id: org,
        depot_id: out["organisations"][0]["depots"][i]["id"].as_i64().unwrap(),
    };
    (scope(0), scope(1))
}

fn main() {
    let events: i64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(5000);
    let healthy = Receiver::start(Behaviour::Ok);
    let dead = Receiver::start(Behaviour::Silent);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let (a, b) = seed(&db, &healthy.url(), &dead.url());
    let server = Server::start(&db);
    let store = SqliteStore::open(&db).unwrap();

    println!("| run | committed | delivered | events/s | p50 ms | p99 ms |");
    println!("|---|---:|---:|---:|---:|---:|");
    run("healthy receiver alone", &store, a, &healthy, 0..events);
    commit(&store, b, 1_000_000..1_000_000 + 3000);
    std::thread::sleep(Duration::from_millis(500));
    run(
        "healthy, while another depot's receiver is dead (3000 backlog)",
        &store,
        a,
        &healthy,
        events..2 * events,
    );
    println!("(dead receiver saw {} attempts in flight)", dead.count());
    drop(server);

    // kill -9 during a burst of 10 000 events.
    let burst = 10_000i64;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let hook = Receiver::start(Behaviour::Ok);
    let (a, _) = seed(&db, &hook.url(), &dead.url());
    let server = Server::start(&db);
    let store = SqliteStore::open(&db).unwrap();
    commit(&store, a, 0..burst / 2);
    server.kill_hard();
    let before_restart = hook.count();
    commit(&store, a, burst / 2..burst);
    let restarted = Instant::now();
    let _server = Server::start(&db);
    let hits = wait_for_ids(&hook, &(0..burst), Duration::from_secs(120));
    let mut seen: HashMap<i64, usize> = HashMap::new();
    for h in &hits {
        *seen
            .entry(h.body["data"]["order_id"].as_i64().unwrap())
            .or_default() += 1;
    }
    let duplicates: usize = seen.values().map(|n| n - 1).sum();
    let lost = burst as usize - seen.len();
    println!();
    println!("| kill -9 burst | committed | received before kill | delivered after restart (distinct) | duplicates | lost | restart to all delivered |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {burst} events, killed after {} | {burst} | {before_restart} | {} | {duplicates} | {lost} | {:.1} s |",
        burst / 2,
        seen.len(),
        restarted.elapsed().as_secs_f64()
    );
    assert_eq!(lost, 0, "every committed event is delivered");
}
