//! The service's side: the real router in-process (as `dispatch serve --rate-limits off` builds
//! it) on 127.0.0.1:0, driven over loopback by one keep-alive connection per client thread.

use std::net::SocketAddr;
use std::sync::Arc;

use dispatch_adapters::images::Codec;
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::geocoder::Geocoder;
use dispatch_core::ports::idempotency::IdempotencyStore;
use dispatch_core::ports::store::Store;
use dispatch_core::service::seed;
use dispatch_http::clock::SystemClock;
use dispatch_http::keys::DerivedKeys;
use dispatch_http::AppState;

use crate::client::{next_target, Conn, Reply};
use crate::timed;
use crate::workload::{post_body, Picks, PAGE};

/// The seed file of one organisation with `depots` depots ("Load 0", "Load 1", ...), one
/// access key each: what both sides write to.
fn seed_file(depots: usize) -> String {
    let depots: Vec<serde_json::Value> = (0..depots)
        .map(|d| {
            serde_json::json!({"name": format!("Load {d}"),
                "access_keys": [{"name": "load", "permission": "all"}]})
        })
        .collect();
    serde_json::json!({"organisations": [{"name": "Load", "depots": depots}]}).to_string()
}

/// Seeds `store` with `depots` depots; returns their access keys in depot order.
pub fn seed(store: &dyn Store, depots: usize) -> Vec<String> {
    let seed = seed::parse(&seed_file(depots)).expect("the seed file");
    let out =
        seed::apply(store, &DerivedKeys, &seed, SystemClock.now()).expect("seed the database");
    out["organisations"][0]["depots"]
        .as_array()
        .expect("the depots")
        .iter()
        .map(|d| {
            d["access_keys"][0]["key"]
                .as_str()
                .expect("an access key")
                .to_owned()
        })
        .collect()
}

/// What the paging client reads of a page: the ids (the rest of each row is checked as JSON and
/// skipped, not built into values: the client's own work stays small beside the service's).
#[derive(serde::Deserialize)]
struct Listed {
    orders: Vec<ListedOrder>,
}

/// One row of a page, as the paging client reads it.
#[derive(serde::Deserialize)]
struct ListedOrder {
    id: i64,
}

/// A service listening on loopback until dropped: one API node or several on one database,
/// client `c` talking to node `c % nodes`.
pub struct Service {
    addrs: Vec<SocketAddr>,
    keys: Vec<String>,
    /// The nodes' runtimes, which serve until dropped with the service.
    runtimes: Vec<tokio::runtime::Runtime>,
}

impl Service {
    /// Serves `store` (seeded here with `depots` depots) on a fresh runtime.
    pub fn start(
        store: Arc<dyn Store>,
        geocoder: Arc<dyn Geocoder>,
        idempotency: Arc<dyn IdempotencyStore>,
        depots: usize,
    ) -> Service {
        let keys = seed(&*store, depots);
        let mut service = Service {
            addrs: Vec::new(),
            keys,
            runtimes: Vec::new(),
        };
        service.add_node(store, geocoder, idempotency);
        service
    }

    /// Another API node on the same database, with its own store (its own connections) and
    /// runtime, as another `dispatch serve` process would have.
    pub fn add_node(
        &mut self,
        store: Arc<dyn Store>,
        geocoder: Arc<dyn Geocoder>,
        idempotency: Arc<dyn IdempotencyStore>,
    ) {
        let state = AppState::new(
            store,
            Arc::new(SystemClock),
            geocoder,
            idempotency,
            Arc::new(Codec),
        );
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        let listener = runtime
            .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
            .expect("bind loopback");
        self.addrs
            .push(listener.local_addr().expect("the bound address"));
        runtime.spawn(dispatch_http::serve(
            listener,
            state,
            std::future::pending(),
        ));
        self.runtimes.push(runtime);
    }

    /// The node client `c` talks to.
    fn node(&self, c: usize) -> SocketAddr {
        self.addrs[c % self.addrs.len()]
    }

    /// Sends a request as depot `depot`'s key.
    fn send(
        &self,
        conn: &mut Conn,
        depot: usize,
        method: &str,
        target: &str,
        body: &[u8],
    ) -> Reply {
        let reply = conn.request(method, target, &self.keys[depot], body);
        assert_eq!(
            reply.status,
            200,
            "{method} {target}: {}",
            String::from_utf8_lossy(&reply.body)
        );
        reply
    }
}

impl crate::Side for Service {
    /// Writes orders `0..orders` (round 0 creates, round 1 updates them) in POSTs of
    /// [`BATCH`](crate::workload::BATCH), batch `b` to depot `b % depots`, spread over
    /// `clients` connections, the bodies built before the clock starts; returns the seconds
    /// taken.
    fn write(&self, orders: usize, clients: usize, round: usize) -> f64 {
        let body = |batch| post_body(batch, round);
        timed::writes(clients, orders, body, |c, bodies| {
            let mut conn = Conn::open(self.node(c));
            for (b, body) in bodies {
                self.send(&mut conn, b % self.keys.len(), "POST", "/v2/orders", body);
            }
        })
    }

    /// Every client pages through the first depot's list; returns (rows read, seconds, the ids
    /// seen).
    fn page(&self, clients: usize) -> (usize, f64, Vec<i64>) {
        timed::paging(clients, |c| {
            let mut conn = Conn::open(self.node(c));
            let mut target = Some(format!("/v2/orders?limit={PAGE}"));
            let (mut rows, mut ids) = (0, Vec::new());
            while let Some(t) = target {
                let reply = self.send(&mut conn, 0, "GET", &t, b"");
                let page: Listed = serde_json::from_slice(&reply.body).expect("a JSON page");
                rows += page.orders.len();
                if c == 0 {
                    ids.extend(page.orders.iter().map(|o| o.id));
                }
                target = reply.link.as_deref().and_then(next_target);
            }
            (rows, ids)
        })
    }

    /// `reads` GET /v2/orders/{id} per client of ids picked from `ids`; returns the seconds.
    fn read(&self, ids: &[i64], clients: usize, reads: usize) -> f64 {
        timed::clients(clients, |c| {
            let mut conn = Conn::open(self.node(c));
            let mut picks = Picks::new(c);
            for _ in 0..reads {
                let id = ids[picks.next(ids.len())];
                self.send(&mut conn, 0, "GET", &format!("/v2/orders/{id}"), b"");
            }
        })
        .1
    }
}
