//! Property test over the JSON readers and the path and query extractors: whatever
//! body, path segment or query string a client sends to the real router, the answer is never a
//! 5xx and never a panic, every error is the spec's envelope, and one request allocates a
//! bounded amount of memory (a counting allocator measures the peak of each request).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::body::Body;
use axum::http::{HeaderValue, Method, Request};
use proptest::prelude::*;
use serde_json::{Map, Value};

#[path = "api/common/mod.rs"]
#[allow(dead_code)]
mod common;
#[allow(dead_code)]
#[path = "contract/mod.rs"]
mod contract;

use common::TestApp;

/// Bytes live on the heap now, and the most since the last reset.
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

struct Counting;

// The counting allocator is the one `unsafe` of the tests: a `GlobalAlloc` cannot be written
// without it.
#[allow(unsafe_code)]
// SAFETY: every call is forwarded to the system allocator unchanged; only counters are added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(live, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Most a single request of this test may allocate beyond what was live before it. The bodies
/// here are at most a few hundred kilobytes; before bodies were parsed within bounds a 40 KB
/// batch of empty objects took about 16 MB.
const PER_REQUEST_PEAK: usize = 8 << 20;

/// Field names the readers look for, so generated objects reach past "unknown property": every
/// customer property, and those of orders, vehicles and the other bodies that customers lack.
fn keys() -> Vec<&'static str> {
    let mut keys = dispatch_http::v2::customers::properties();
    keys.extend([
        "order_number",
        "type",
        "delivery_lat",
        "delivery_lng",
        "delivery_address",
        "line_items",
        "id",
        "capacity",
        "availability",
        "shift_start",
        "shift_end",
        "start_location",
        "end_location",
        "break",
        "delivery_date",
        "settings",
        "orders",
        "from",
        "to",
        "value",
        "status",
        "customer",
    ]);
    keys
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        "\\PC{0,12}".prop_map(Value::String),
        "[0-9]{1,2}:[0-9]{2}".prop_map(Value::String),
        "20[0-9]{2}-[01][0-9]-[0-3][0-9]".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop_oneof![
                        prop::sample::select(keys()).prop_map(str::to_owned),
                        "\\PC{0,6}"
                    ],
                    inner
                ),
                0..8
            )
            .prop_map(|entries| Value::Object(entries.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A body: a JSON document, a long batch, or arbitrary bytes.
fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        4 => json_value().prop_map(|v| v.to_string().into_bytes()),
        2 => prop::collection::vec(json_value(), 0..4).prop_map(|v| Value::Array(v).to_string().into_bytes()),
        1 => (0usize..20_000).prop_map(|n| format!("[{}]", vec!["{}"; n].join(",")).into_bytes()),
        1 => prop::collection::vec(any::<u8>(), 0..64),
    ]
}

/// An `idempotency-key` header value: none, a plausible key, or any bytes a header may carry
/// (empty, over 255 characters, not UTF-8).
fn idempotency_key() -> impl Strategy<Value = Option<Vec<u8>>> {
    prop_oneof![
        2 => Just(None),
        2 => "[a-zA-Z0-9-]{1,40}".prop_map(|k| Some(k.into_bytes())),
        1 => prop::collection::vec(prop_oneof![0x20u8..0x7f, 0x80u8..=0xff], 0..300).prop_map(Some),
    ]
}

/// A path segment: percent-encoded arbitrary bytes, or a plausible id.
fn segment() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..8).prop_map(|bytes| bytes
            .iter()
            .map(|b| format!("%{b:02X}"))
            .collect::<String>()),
        "-?[0-9]{1,20}",
        "[a-zA-Z0-9._~-]{1,10}",
    ]
}

/// A query string: percent-encoded arbitrary bytes after known and unknown names.
fn query() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        prop::sample::select(
            &[
                "limit",
                "page_info",
                "updated_at_min",
                "status",
                "date",
                "customer_id",
                "order_number"
            ][..]
        )
        .prop_map(str::to_owned),
        "[a-z_]{1,8}",
    ];
    let value = prop::collection::vec(any::<u8>(), 0..12).prop_map(|bytes| {
        bytes
            .iter()
            .map(|b| format!("%{b:02X}"))
            .collect::<String>()
    });
    prop::collection::vec((name, value), 0..4).prop_map(|pairs| {
        pairs
            .iter()
            .map(|(n, v)| format!("{n}={v}"))
            .collect::<Vec<_>>()
            .join("&")
    })
}

const WRITES: &[(&str, &str)] = &[
    ("POST", "/v2/orders"),
    ("POST", "/v2/depots/{}/orders"),
    ("PUT", "/v2/orders/{}"),
    ("POST", "/v2/customers"),
    ("PUT", "/v2/customers/{}"),
    ("POST", "/v2/vehicles"),
    ("PUT", "/v2/vehicles/{}"),
    ("PATCH", "/v2/vehicles/{}"),
    ("POST", "/v2/order-statuses"),
    ("POST", "/v2/zone-groups/{}/bounds/contains"),
    ("POST", "/v2/plans/optimise/orders"),
    ("POST", "/v2/plans/optimise/orders-for-ids"),
];

const READS: &[&str] = &[
    "/v2/orders/{}",
    "/v2/customers/{}",
    "/v2/vehicles/{}",
    "/v2/plans/{}",
    "/v2/routes/{}",
    "/v2/plans/optimise/{}",
];

const LISTS: &[&str] = &[
    "/v2/orders",
    "/v2/customers",
    "/v2/vehicles",
    "/v2/plans",
    "/v2/routes",
];

/// Sends `request`, and checks the answer and the memory it took.
fn check(app: &TestApp, runtime: &tokio::runtime::Runtime, request: Request<Body>) {
    let what = format!("{} {}", request.method(), request.uri());
    let before = LIVE.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let reply = runtime.block_on(app.send(request));
    let peak = PEAK.load(Ordering::Relaxed) - before;
    assert!(
        peak <= PER_REQUEST_PEAK,
        "{what}: allocated {peak} bytes at its peak"
    );
    assert!(
        !reply.status.is_server_error(),
        "{what}: {} {:#}",
        reply.status,
        reply.body
    );
    if reply.status.is_client_error() {
        let body = &reply.body;
        assert!(body["name"].is_string(), "{what}: {body:#}");
        assert_eq!(
            body["statusCode"],
            reply.status.as_u16(),
            "{what}: {body:#}"
        );
        assert!(body["description"].is_string(), "{what}: {body:#}");
        assert!(body["details"].is_object(), "{what}: {body:#}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn no_input_gets_a_5xx_a_panic_an_unbounded_allocation_or_a_bare_error(
        write in prop::sample::select(WRITES),
        read in prop::sample::select(READS),
        list in prop::sample::select(LISTS),
        body in body(),
        idempotency_key in idempotency_key(),
        id in segment(),
        query in query(),
    ) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let app = TestApp::new();
        let key = app.north();
        let (method, template) = write;
        let mut request = Request::builder()
            .method(Method::from_bytes(method.as_bytes()).unwrap())
            .uri(template.replace("{}", &id))
            .header("x-access-key", &key)
            .header("content-type", "application/json");
        if let Some(idempotency_key) = idempotency_key {
            request = request.header("idempotency-key", HeaderValue::from_bytes(&idempotency_key).unwrap());
        }
        let request = request.body(Body::from(body)).unwrap();
        check(&app, &runtime, request);
        for uri in [read.replace("{}", &id), format!("{list}?{query}")] {
            let request = Request::builder()
                .uri(uri)
                .header("x-access-key", &key)
                .body(Body::empty())
                .unwrap();
            check(&app, &runtime, request);
        }
    }
}
