//! Memory per request: the worst bodies the limits let through, valid ones included,
//! on the JSON write endpoints, against the real binary. The growth of the server's peak
//! resident set (`VmHWM`) must stay within 50 MB for every one of them, one request at a time,
//! and under 400 MB for eight at once.
//!
//! Run with `--nocapture` to see the table of figures.

#![cfg(target_os = "linux")]

use crate::support;
use dispatch_http::bounded_json::MAX_ITEM_TEXT_BYTES;
use dispatch_http::MAX_BODY_BYTES;
use serde_json::{json, Value};
use support::{Fixture, Request, Server};

const MB: f64 = 1_000_000.0;
const ONE_REQUEST_LIMIT: f64 = 50.0 * MB;
const EIGHT_REQUESTS_LIMIT: f64 = 400.0 * MB;

/// Peak resident set of `pid` in bytes.
fn peak_rss(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("proc status");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .expect("VmHWM line");
    let kb: f64 = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmHWM in kB");
    kb * 1024.0
}

/// A body of `size` bytes: `open` + `unit` repeated (comma-separated) + `close`.
fn filled(open: &str, unit: &str, close: &str, size: usize) -> Vec<u8> {
    let room = size - open.len() - close.len();
    let count = (room + 1) / (unit.len() + 1);
    let mut body = Vec::with_capacity(size);
    body.extend_from_slice(open.as_bytes());
    for i in 0..count {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(unit.as_bytes());
    }
    body.extend_from_slice(close.as_bytes());
    body
}

/// One long string: `open` + `"` + `size` bytes of `é` + `"` + `close`.
fn long_string(open: &str, close: &str, size: usize) -> Vec<u8> {
    let room = (size - open.len() - close.len() - 2) / 2;
    let mut body = open.as_bytes().to_vec();
    body.push(b'"');
    body.extend_from_slice("é".repeat(room).as_bytes());
    body.push(b'"');
    body.extend_from_slice(close.as_bytes());
    body
}

/// The worst bodies for an endpoint taking a batch (`batch`) or one object, each as large as
/// the body limit allows (a little under it), plus the largest valid batch of customers.
fn worst_bodies(batch: bool) -> Vec<(&'static str, Vec<u8>)> {
    let size = MAX_BODY_BYTES - 1024;
    let (open, close) = if batch { ("[", "]") } else { ("", "") };
    let wrap = |inner_open: &str, inner_close: &str| {
        (
            format!("{open}{inner_open}"),
            format!("{inner_close}{close}"),
        )
    };
    let (o1, c1) = if batch {
        ("[".to_owned(), "]".to_owned())
    } else {
        ("{\"skills\": [".to_owned(), "]}".to_owned())
    };
    let (o2, c2) = wrap("{\"notes\": [", "]}");
    let (o3, c3) = wrap("{\"name\": \"x\", \"notes\": ", "}");
    let (o4, c4) = wrap("{", "}");
    let mut keys = o4.into_bytes();
    let mut i = 0;
    while keys.len() + c4.len() + 16 < size {
        if i > 0 {
            keys.push(b',');
        }
        keys.extend_from_slice(format!("\"k{i}\":0").as_bytes());
        i += 1;
    }
    keys.extend_from_slice(c4.as_bytes());
    vec![
        ("empty objects", filled(&o1, "{}", &c1, size)),
        ("small numbers", filled(&o2, "1", &c2, size)),
        ("one long string", long_string(&o3, &c3, size)),
        ("many keys", keys),
    ]
}

/// The largest valid POST /customers: 100 customers with 40000-character notes of 4-byte
/// characters.
fn largest_valid_customers() -> Vec<u8> {
    let notes = "😀".repeat(40_000);
    let batch: Vec<Value> = (0..100)
        .map(|i| {
            json!({"account": format!("{i:0>100}"), "name": "ñ".repeat(100), "lat": 51.5,
                   "lng": -0.1, "notes": notes, "address": "😀".repeat(255)})
        })
        .collect();
    serde_json::to_vec(&batch).unwrap()
}

/// The largest valid POST /orders the limits let through: 100 orders whose delivery notes (no
/// length stated by the spec) fill the body limit, each item within the text bound.
fn largest_valid_orders() -> Vec<u8> {
    let per_order = (MAX_BODY_BYTES - 64 * 1024) / 100 - 200;
    let notes = "😀".repeat(per_order / 4);
    let batch: Vec<Value> = (0..100)
        .map(|i| {
            json!({"order_number": format!("V{i}"), "type": "delivery", "delivery_lat": 51.5,
                   "delivery_lng": -0.1, "delivery_notes": notes})
        })
        .collect();
    serde_json::to_vec(&batch).unwrap()
}

/// The largest valid PUT /orders/{id}: one order with as much text as one item may hold.
fn largest_valid_order_update() -> Vec<u8> {
    let notes = "😀".repeat((MAX_ITEM_TEXT_BYTES - 1024) / 4);
    serde_json::to_vec(&json!({"delivery_notes": notes})).unwrap()
}

struct Endpoint {
    method: &'static str,
    path: String,
    batch: bool,
}

/// The JSON write endpoints whose bodies carry the most text: orders and customers, in batches
/// and one at a time (every other endpoint's body is parsed by the same reader, within the
/// same bounds, and refused or taken with less text).
struct Endpoints {
    orders: Endpoint,
    depot_orders: Endpoint,
    order_update: Endpoint,
    customers: Endpoint,
    customer_update: Endpoint,
}

fn endpoints(server: &Server, fx: &Fixture) -> Endpoints {
    let north = fx.north()["id"].as_i64().unwrap();
    let customer = server.post(
        "/v2/customers",
        &fx.key,
        &json!([{"account": "M", "lat": 51.5, "lng": -0.1}]),
    );
    let customer = customer.json()["customers"][0]["id"].as_i64().unwrap();
    let order = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": "M", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1}]),
    );
    let order = order.json()["orders"][0]["id"].as_str().unwrap().to_owned();
    let e = |method, path: String, batch| Endpoint {
        method,
        path,
        batch,
    };
    Endpoints {
        orders: e("POST", "/v2/orders".into(), true),
        depot_orders: e("POST", format!("/v2/depots/{north}/orders"), true),
        order_update: e("PUT", format!("/v2/orders/{order}"), false),
        customers: e("POST", "/v2/customers".into(), true),
        customer_update: e("PUT", format!("/v2/customers/{customer}"), false),
    }
}

/// A fresh server that has answered one small request.
fn warm(db: &std::path::Path, fx: &Fixture) -> Server {
    let server = Server::start(db);
    assert_eq!(server.get("/v2/vehicles", &fx.key).status, 200);
    server
}

fn send(server: &Server, key: &str, method: &str, path: &str, body: Vec<u8>) -> u16 {
    send_with(server, key, method, path, body, &[])
}

fn send_with(
    server: &Server,
    key: &str,
    method: &str,
    path: &str,
    body: Vec<u8>,
    headers: &[(&str, &str)],
) -> u16 {
    let mut request = Request::new(method, path, Some(key))
        .raw(body)
        .header("content-type", "application/json");
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let raw = server.exchange(request);
    let status = String::from_utf8_lossy(&raw[..raw.len().min(12)])
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    assert!(
        (200..500).contains(&status),
        "{method} {path}: {}",
        String::from_utf8_lossy(&raw[..raw.len().min(300)])
    );
    status
}

#[test]
fn the_worst_bodies_within_the_limits_grow_the_server_by_at_most_50_mb_one_at_a_time_and_under_400_mb_eight_at_once(
) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("memory.db");
    let fx = Fixture::seed(&db);

    let at = endpoints(&Server::start(&db), &fx);
    println!("| request | body | status | peak RSS growth (MB) |\n|---|---|---|---|");
    // Each on a fresh process, measured once: the peak one request reaches, not what earlier
    // ones left, and no second chance for a body that went over. A small request first takes
    // what any first request takes (the store's connections and page caches, the runtime's
    // threads), so the growth measured is the body's.
    let measure = |label: &str, endpoint: &Endpoint, body: Vec<u8>, headers: &[(&str, &str)]| {
        let server = &warm(&db, &fx);
        let before = peak_rss(server.pid());
        let status = send_with(
            server,
            &fx.key,
            endpoint.method,
            &endpoint.path,
            body,
            headers,
        );
        let growth = peak_rss(server.pid()) - before;
        println!(
            "| {} {} | {label} | {status} | {:.1} |",
            endpoint.method,
            endpoint.path,
            growth / MB
        );
        (status, growth)
    };
    let mut worst = 0.0_f64;
    // The largest valid requests, also through the idempotency layer (which reads and parses
    // the body for the handler, fingerprinting it on the way).
    let keyed = &[("idempotency-key", "memory-limits")][..];
    for (label, endpoint, body, headers) in [
        (
            "largest valid customers (100 x 40000 4-byte chars)",
            &at.customers,
            largest_valid_customers(),
            &[][..],
        ),
        (
            "the same with an idempotency-key",
            &at.customers,
            largest_valid_customers(),
            keyed,
        ),
        (
            "largest valid orders (notes filling the body)",
            &at.orders,
            largest_valid_orders(),
            &[][..],
        ),
        (
            "the same with an idempotency-key",
            &at.orders,
            largest_valid_orders(),
            keyed,
        ),
        (
            "largest valid orders (notes filling the body)",
            &at.depot_orders,
            largest_valid_orders(),
            &[][..],
        ),
        (
            "largest valid order update (one item of text)",
            &at.order_update,
            largest_valid_order_update(),
            &[][..],
        ),
    ] {
        let (status, growth) = measure(label, endpoint, body, headers);
        assert!((200..300).contains(&status), "{label}: {status}");
        worst = worst.max(growth);
    }
    // Every shape on one endpoint (they differ in parsing, which all JSON bodies share), and
    // a body-sized string on the customer writes, whose strings are the longest the rules allow.
    let (batches, objects) = (worst_bodies(true), worst_bodies(false));
    for (label, body) in &batches {
        worst = worst.max(measure(label, &at.orders, body.clone(), &[]).1);
    }
    for endpoint in [&at.customers, &at.customer_update] {
        let bodies = if endpoint.batch { &batches } else { &objects };
        let (label, body) = &bodies[2];
        worst = worst.max(measure(label, endpoint, body.clone(), &[]).1);
    }
    println!("one at a time: peak growth {:.1} MB", worst / MB);
    assert!(worst <= ONE_REQUEST_LIMIT, "{:.1} MB", worst / MB);

    // Eight at once, on a fresh process: the largest valid batch and the worst shapes.
    let server = warm(&db, &fx);
    let before = peak_rss(server.pid());
    let mut bodies = vec![
        ("/v2/customers", largest_valid_customers()),
        ("/v2/orders", largest_valid_orders()),
    ];
    for (_, body) in &batches {
        bodies.push(("/v2/orders", body.clone()));
    }
    for (_, body) in batches.iter().take(2) {
        bodies.push(("/v2/customers", body.clone()));
    }
    std::thread::scope(|scope| {
        for (path, body) in bodies {
            let (server, key) = (&server, &fx.key);
            scope.spawn(move || send(server, key, "POST", path, body));
        }
    });
    let eight = peak_rss(server.pid()) - before;
    println!("eight at once: peak growth {:.1} MB", eight / MB);
    assert!(eight < EIGHT_REQUESTS_LIMIT, "{:.1} MB", eight / MB);
}
