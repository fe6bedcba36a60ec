//! Order-load benchmark: writes 100000 orders through `POST /v2/orders` in batches of 100 over
//! loopback, then lists them all back through `GET /v2/orders` page by page (100 per page,
//! following the `Link: rel="next"` URLs), and prints orders/second for both phases.
//!
//! The service runs in-process exactly as `dispatch serve --rate-limits off` builds it: the real
//! router over a fresh SQLite file (WAL, synchronous commits) in a temp dir, on 127.0.0.1:0. The
//! client is a plain HTTP/1.1 keep-alive client on std sockets, one connection per client thread.
//!
//! ```text
//! cargo run --release --example order_load -- [ORDERS] [CLIENT_THREADS]
//! ```

use std::sync::Arc;
use std::time::Instant;

use dispatch_adapters::images::Codec;
use dispatch_core::ports::clock::Clock;
use dispatch_core::service::seed;
use dispatch_http::clock::SystemClock;
use dispatch_http::keys::DerivedKeys;
use dispatch_http::AppState;
use dispatch_store_sqlite::idempotency::SqliteIdempotencyStore;
use dispatch_store_sqlite::{SqliteGazetteer, SqliteStore};
use serde_json::{json, Value};

#[path = "load_ratio/client.rs"]
mod client;
use client::{next_target, Conn};

const BATCH: usize = 100;

fn order(n: usize) -> Value {
    let lat = 51.0 + (n % 1000) as f64 / 1000.0;
    let lng = -0.5 + (n % 777) as f64 / 1000.0;
    json!({
        "order_number": format!("LOAD-{n:07}"),
        "type": "delivery",
        "priority": "P2",
        "delivery_address": format!("{} Load Street", n % 500),
        "delivery_postcode": "AB1 2CD",
        "delivery_lat": lat,
        "delivery_lng": lng,
        "delivery_duration": 5,
        "delivery_date": "2026-12-01",
        "delivery_time_windows": [{"from": "08:00", "to": "12:00"}],
        "line_items": [{"product_code": "SKU-1", "product_name": "Parcel", "product_quantity": 1 + n % 3,
                        "product_unit_price": 9.99}],
    })
}

fn main() {
    let mut args = std::env::args().skip(1);
    let total: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let threads: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(4).max(1);
    let dir = tempfile::tempdir().expect("a temp dir");
    let store = Arc::new(SqliteStore::open(dir.path().join("load.db")).expect("open the database"));
    let clock: Arc<dyn Clock> = Arc::new(SystemClock);
    let seed = seed::parse(
        r#"{"organisations": [{"name": "Load", "depots": [{"name": "Load",
        "access_keys": [{"name": "load", "permission": "all"}]}]}]}"#,
    )
    .expect("the seed file");
    let out = seed::apply(&*store, &DerivedKeys, &seed, clock.now()).expect("seed the database");
    let key = out["organisations"][0]["depots"][0]["access_keys"][0]["key"]
        .as_str()
        .expect("an access key")
        .to_owned();
    let store_path = store.path().to_path_buf();
    let state = AppState::new(
        store.clone(),
        clock,
        Arc::new(SqliteGazetteer::new(store)),
        Arc::new(SqliteIdempotencyStore::open(store_path).expect("open the idempotency store")),
        Arc::new(Codec),
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .expect("bind loopback");
    let addr = listener.local_addr().expect("the bound address");
    runtime.spawn(dispatch_http::serve(
        listener,
        state,
        std::future::pending(),
    ));

    let batches = total.div_ceil(BATCH);
    let started = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..threads {
            let key = key.clone();
            scope.spawn(move || {
                let mut conn = Conn::open(addr);
                for b in (t..batches).step_by(threads) {
                    let orders: Vec<Value> = (b * BATCH..((b + 1) * BATCH).min(total))
                        .map(order)
                        .collect();
                    let body = Value::Array(orders).to_string();
                    let reply = conn.request("POST", "/v2/orders", &key, body.as_bytes());
                    assert_eq!(
                        reply.status,
                        200,
                        "{}",
                        String::from_utf8_lossy(&reply.body)
                    );
                }
            });
        }
    });
    let write_secs = started.elapsed().as_secs_f64();

    let started = Instant::now();
    let mut conn = Conn::open(addr);
    let mut target = Some("/v2/orders?limit=100".to_owned());
    let (mut listed, mut pages) = (0usize, 0usize);
    while let Some(t) = target {
        let reply = conn.request("GET", &t, &key, b"");
        assert_eq!(
            reply.status,
            200,
            "{}",
            String::from_utf8_lossy(&reply.body)
        );
        let page: Value = serde_json::from_slice(&reply.body).expect("a JSON page");
        listed += page["orders"].as_array().map_or(0, Vec::len);
        pages += 1;
        target = reply.link.as_deref().and_then(next_target);
    }
    let read_secs = started.elapsed().as_secs_f64();
    assert_eq!(listed, total, "every order is listed exactly once");

    println!("| phase | orders | requests | seconds | orders/s |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| POST /v2/orders (batches of {BATCH}, {threads} clients) | {total} | {batches} | {write_secs:.2} | {:.0} |",
        total as f64 / write_secs
    );
    println!(
        "| GET /v2/orders (pages of 100) | {listed} | {pages} | {read_secs:.2} | {:.0} |",
        listed as f64 / read_secs
    );
}
