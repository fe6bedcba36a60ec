//! Webhook delivery benchmark: the real `dispatch serve` delivering to a receiver on loopback.
//!
//! `cargo run --release --example bench_webhooks -- [EVENTS] [RATE] [API_RATE]` (defaults 5000,
//! 1000, 200) prints three tables:
//! 1. Throughput, saturated: EVENTS committed to the outbox as fast as possible (100 per
//!    transaction); events delivered per second from the first commit to the last receipt.
//!    Latency is not reported here: with a producer faster than delivery it is the age of a
//!    backlog, not a delay.
//! 2. Latency from commit to receipt (p50/p99/max) at an offered rate below saturation:
//!    - outbox commits of another process at RATE events/s (10 per transaction every
//!      10 ms): the service finds them by its periodic scan (`--webhook-poll`);
//!    - API changes at API_RATE requests/s (`PUT /v2/orders/{id}` delivering one line item:
//!      one `orders.status` event each), measured from sending the request, so an upper bound
//!      of commit-to-receipt; the commit wakes the delivery worker at once.
//!
//!    Both tables are run for a healthy receiver alone and again while another depot's receiver
//!    is dead (accepts connections, never answers) with a backlog of its own.
//! 3. kill -9 during a burst of 10 000 events: the server is killed half-way, the rest is
//!    committed while it is down, and after the restart every committed event must arrive;
//!    duplicates are counted and printed.

#[path = "../tests/e2e/webhooks/receiver.rs"]
mod receiver;
#[path = "../tests/support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use dispatch_core::events::DomainEvent;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::time::Timestamp;
use dispatch_store_sqlite::SqliteStore;
use serde_json::{json, Value};

use receiver::{Behaviour, Receiver};
use support::Server;

/// Events per transaction of the saturating producer.
const BATCH: usize = 100;
/// How long each paced run offers its rate.
const PACED: Duration = Duration::from_secs(5);
/// Client threads of the paced API producer.
const API_THREADS: usize = 4;

fn millis(t: SystemTime) -> i64 {
    t.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn now_ms() -> i64 {
    millis(SystemTime::now())
}

/// Commits `orders.status` events for the order ids `ids`, all in one transaction; the time
/// the commit returned.
fn commit(store: &dyn Store, scope: DepotScope, ids: Range<i64>) -> i64 {
    store
        .transaction(|tx| {
            for id in ids {
                let e = DomainEvent::OrderStatus {
                    order_id: id,
                    order_number: format!("B{id}"),
                    status: "DELIVERED".into(),
                };
                tx.append_event(scope, &e, Timestamp::from_millis(now_ms()))?;
            }
            Ok::<_, StoreError>(())
        })
        .expect("commit");
    now_ms()
}

/// First receipt of each order id the receiver has seen, read incrementally.
struct Receipts<'a> {
    hook: &'a Receiver,
    read: usize,
    first: HashMap<i64, i64>,
    hits: usize,
}

impl<'a> Receipts<'a> {
    fn new(hook: &'a Receiver) -> Self {
        Receipts {
            hook,
            read: hook.count(),
            first: HashMap::new(),
            hits: 0,
        }
    }

    fn poll(&mut self) {
        let new = self.hook.hits_since(self.read);
        self.read += new.len();
        for h in new {
            if let Some(id) = h.body["data"]["order_id"].as_i64() {
                self.hits += 1;
                self.first.entry(id).or_insert(millis(h.wall));
            }
        }
    }

    /// Waits until every id in `ids` arrived (or `within` passed); how many did.
    fn wait_all(&mut self, ids: impl Iterator<Item = i64> + Clone, within: Duration) -> usize {
        let deadline = Instant::now() + within;
        loop {
            self.poll();
            let arrived = ids.clone().filter(|i| self.first.contains_key(i)).count();
            if arrived == ids.clone().count() || Instant::now() > deadline {
                return arrived;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    if sorted.is_empty() {
        return -1;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn throughput(label: &str, store: &dyn Store, scope: DepotScope, hook: &Receiver, ids: Range<i64>) {
    let mut receipts = Receipts::new(hook);
    let start = now_ms();
    let mut next = ids.start;
    while next < ids.end {
        let end = (next + BATCH as i64).min(ids.end);
        commit(store, scope, next..end);
        next = end;
    }
    let committed = now_ms();
    let delivered = receipts.wait_all(ids.clone(), Duration::from_secs(300));
    let last = ids
        .clone()
        .filter_map(|i| receipts.first.get(&i).copied())
        .max()
        .unwrap_or(start);
    let seconds = (last - start).max(1) as f64 / 1000.0;
    println!(
        "| {label} | {} | {delivered} | {:.1} | {:.1} | {:.0} |",
        ids.end - ids.start,
        (committed - start) as f64 / 1000.0,
        seconds,
        delivered as f64 / seconds,
    );
}

/// Latencies (ms) of `ids` from their send/commit times to their first receipt.
fn latency_row(
    label: &str,
    offered: f64,
    sent: &HashMap<i64, i64>,
    receipts: &mut Receipts,
    took: Duration,
) {
    let delivered = receipts.wait_all(sent.keys().copied(), Duration::from_secs(120));
    let mut latency: Vec<i64> = sent
        .iter()
        .filter_map(|(id, at)| receipts.first.get(id).map(|r| r - at))
        .collect();
    latency.sort_unstable();
    println!(
        "| {label} | {offered:.0} | {:.0} | {} | {delivered} | {} | {} | {} |",
        sent.len() as f64 / took.as_secs_f64(),
        sent.len(),
        percentile(&latency, 0.5),
        percentile(&latency, 0.99),
        latency.last().copied().unwrap_or(-1),
    );
}

/// Commits `rate` events/s for [`PACED`] (10 per transaction every 10 ms, on a fixed schedule).
fn paced_outbox(
    label: &str,
    store: &dyn Store,
    scope: DepotScope,
    hook: &Receiver,
    first_id: i64,
    rate: f64,
) {
    let mut receipts = Receipts::new(hook);
    let per_tick = ((rate / 100.0).round() as i64).max(1);
    let ticks = (PACED.as_millis() / 10) as i64;
    let mut sent = HashMap::new();
    let start = Instant::now();
    for tick in 0..ticks {
        let due = start + Duration::from_millis(10 * tick as u64);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
        let ids = first_id + tick * per_tick..first_id + (tick + 1) * per_tick;
        let at = commit(store, scope, ids.clone());
        sent.extend(ids.map(|i| (i, at)));
        if tick % 10 == 0 {
            receipts.poll();
        }
    }
    let took = start.elapsed();
    latency_row(label, rate, &sent, &mut receipts, took);
}

/// Creates `n` orders with two line items each; their ids.
fn api_orders(server: &Server, key: &str, prefix: &str, n: usize) -> Vec<i64> {
    let mut ids = Vec::new();
    for chunk in (0..n).collect::<Vec<_>>().chunks(100) {
        let orders: Vec<Value> = chunk
            .iter()
            .map(|i| {
                json!({"order_number": format!("{prefix}-{i}"), "type": "delivery",
                "delivery_lat": 51.5, "delivery_lng": -0.1,
                "line_items": [{"product_code": "P1", "product_name": "a", "product_quantity": 1},
                               {"product_code": "P2", "product_name": "b", "product_quantity": 1}]})
            })
            .collect();
        let r = server.post("/v2/orders", key, &Value::Array(orders));
        assert_eq!(r.status, 200, "{}", r.json());
        for o in r.json()["orders"].as_array().unwrap() {
            ids.push(o["id"].as_str().unwrap().parse().unwrap());
        }
    }
    ids
}

/// Sends one status change per order at `rate` requests/s over [`API_THREADS`] clients.
fn paced_api(label: &str, server: &Server, key: &str, orders: &[i64], hook: &Receiver, rate: f64) {
    let mut receipts = Receipts::new(hook);
    let start = Instant::now();
    let sent: HashMap<i64, i64> = std::thread::scope(|s| {
        let clients: Vec<_> = (0..API_THREADS)
            .map(|t| {
                s.spawn(move || {
                    let mut sent = Vec::new();
                    for (i, id) in orders.iter().enumerate().skip(t).step_by(API_THREADS) {
                        let due = start + Duration::from_secs_f64(i as f64 / rate);
                        if let Some(wait) = due.checked_duration_since(Instant::now()) {
                            std::thread::sleep(wait);
                        }
                        let at = now_ms();
                        let r = server.put(
                            &format!("/v2/orders/{id}"),
                            key,
                            &json!({"line_items": [{"product_code": "P1", "status": "DELIVERED"},
                                                   {"product_code": "P2"}]}),
                        );
                        assert_eq!(r.status, 200, "{}", r.json());
                        sent.push((*id, at));
                    }
                    sent
                })
            })
            .collect();
        clients
            .into_iter()
            .flat_map(|c| c.join().unwrap())
            .collect()
    });
    let took = start.elapsed();
    latency_row(label, rate, &sent, &mut receipts, took);
}

fn seed(db: &Path, healthy: &str, dead: &str) -> (DepotScope, DepotScope, String) {
    let out = support::seed(
        db,
        &json!({"organisations": [{"name": "Bench", "depots": [
            {"name": "Healthy", "access_keys": [{"name": "bench", "permission": "all"}],
             "settings": {"webhook": {"url": healthy, "username": "u", "password": "p"}}},
            {"name": "Dead", "settings": {"webhook": {"url": dead, "username": "u", "password": "p"}}}
        ]}]}),
    );
    let depots = &out["organisations"][0]["depots"];
    let org = out["organisations"][0]["id"].as_i64().unwrap();
    let scope = |i: usize| DepotScope {
        organisation_id: org,
        depot_id: depots[i]["id"].as_i64().unwrap(),
    };
    let key = depots[0]["access_keys"][0]["key"]
        .as_str()
        .expect("access key")
        .to_owned();
    (scope(0), scope(1), key)
}

fn arg(n: usize, default: f64) -> f64 {
    std::env::args()
        .nth(n)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let events = arg(1, 5000.0) as i64;
    let rate = arg(2, 1000.0);
    let api_rate = arg(3, 200.0);
    let healthy = Receiver::start(Behaviour::Ok);
    let dead = Receiver::start(Behaviour::Silent);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bench.db");
    let (a, b, key) = seed(&db, &healthy.url(), &dead.url());
    let server = Server::start_with(&db, &["--rate-limits", "off"]);
    let store = SqliteStore::open(&db).unwrap();
    let api_n = (api_rate * PACED.as_secs_f64()) as usize;
    let orders = api_orders(&server, &key, "A", 2 * api_n);
    let (alone_orders, beside_orders) = orders.split_at(api_n);
    let (t1, t2) = (0..events, events..2 * events);
    let (p1, p2) = (10_000_000, 20_000_000);

    for beside_dead in [false, true] {
        if beside_dead {
            let mut next = 1_000_000_000;
            while next < 1_000_000_000 + 3000 {
                commit(&store, b, next..next + BATCH as i64);
                next += BATCH as i64;
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        let suffix = if beside_dead {
            ", beside a dead receiver (3000 backlog)"
        } else {
            " alone"
        };
        println!("\n| throughput (saturated), healthy receiver{suffix} | committed | delivered | commit s | drain s | events/s |");
        println!("|---|---:|---:|---:|---:|---:|");
        throughput(
            "outbox, 100 per transaction, as fast as possible",
            &store,
            a,
            &healthy,
            if beside_dead { t2.clone() } else { t1.clone() },
        );
        println!("\n| latency at an offered rate, healthy receiver{suffix} | offered/s | achieved/s | sent | delivered | p50 ms | p99 ms | max ms |");
        println!("|---|---:|---:|---:|---:|---:|---:|---:|");
        paced_outbox(
            "outbox commits of another process (found by the scan)",
            &store,
            a,
            &healthy,
            if beside_dead { p2 } else { p1 },
            rate,
        );
        paced_api(
            "API changes, PUT /orders/{id} (commit wakes the worker)",
            &server,
            &key,
            if beside_dead {
                beside_orders
            } else {
                alone_orders
            },
            &healthy,
            api_rate,
        );
    }
    println!("\n(dead receiver saw {} attempts)", dead.count());
    drop(server);
    kill_burst(&dead);
}

/// kill -9 during a burst of 10 000 events.
fn kill_burst(dead: &Receiver) {
    let burst = 10_000i64;
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let hook = Receiver::start(Behaviour::Ok);
    let (a, _, _) = seed(&db, &hook.url(), &dead.url());
    let server = Server::start(&db);
    let store = SqliteStore::open(&db).unwrap();
    let mut next = 0;
    while next < burst / 2 {
        commit(&store, a, next..next + BATCH as i64);
        next += BATCH as i64;
    }
    // Killed mid-delivery: once a quarter of the burst has arrived.
    let deadline = Instant::now() + Duration::from_secs(60);
    while hook.count() < burst as usize / 4 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
    server.kill_hard();
    let before_restart = hook.count();
    while next < burst {
        commit(&store, a, next..next + BATCH as i64);
        next += BATCH as i64;
    }
    let restarted = Instant::now();
    let _server = Server::start(&db);
    let mut receipts = Receipts {
        hook: &hook,
        read: 0,
        first: HashMap::new(),
        hits: 0,
    };
    receipts.wait_all(0..burst, Duration::from_secs(120));
    let duplicates = receipts.hits - receipts.first.len();
    let lost = burst as usize - receipts.first.len();
    println!();
    println!("| kill -9 burst | committed | received before kill | delivered after restart (distinct) | duplicates | lost | restart to all delivered |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    println!(
        "| {burst} events, killed after {} | {burst} | {before_restart} | {} | {duplicates} | {lost} | {:.1} s |",
        burst / 2,
        receipts.first.len(),
        restarted.elapsed().as_secs_f64()
    );
    assert_eq!(lost, 0, "every committed event is delivered");
}
