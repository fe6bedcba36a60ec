//! Webhooks from `serve` nodes on one PostgreSQL database, where writers of different depots
//! commit in parallel: ids come from one sequence, so an event can commit after a later id of
//! another depot was read and delivered, when the outbox scan has passed its id. Such an event
//! still reaches the receiver within a scan of its commit, once, and before anything later of
//! its own depot; and a day of deliveries in four depots through two nodes keeps that.

use std::path::Path;
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use dispatch_core::events::DomainEvent;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::time::Timestamp;
use dispatch_store_postgres::throwaway::Cluster;
use serde_json::{json, Value};

use crate::receiver::{Behaviour, Hit, Receiver};
use crate::support::{self, Request, Server};

/// How often the nodes scan the outbox for other processes' commits (`--webhook-poll`'s
/// default, given explicitly: the bound below depends on it).
const POLL: Duration = Duration::from_millis(250);
/// What a prompt delivery may take beyond one scan: scheduling on a loaded machine, the POST.
const MARGIN: Duration = Duration::from_millis(1750);

/// A fresh database with one organisation whose depots `names` all post to `hook`; its address
/// and the depots' scopes in the order named.
fn depots(names: &[&str], hook: &Receiver) -> (String, Vec<DepotScope>) {
    let (url, depots) = depots_with_keys(names, hook);
    (url, depots.into_iter().map(|(scope, _)| scope).collect())
}

/// As [`depots`], with each depot's access key.
fn depots_with_keys(names: &[&str], hook: &Receiver) -> (String, Vec<(DepotScope, String)>) {
    let url = Cluster::shared().unwrap().create_empty_database().unwrap();
    let depots: Vec<Value> = names
        .iter()
        .map(|name| {
            json!({"name": name,
                   "settings": {"webhook": {"url": hook.url(), "username": "u", "password": "p"}},
                   "access_keys": [{"name": "k", "permission": "all"}]})
        })
        .collect();
    let seeded = support::seed(
        Path::new(&url),
        &json!({"organisations": [{"name": "Acme", "depots": depots}]}),
    );
    let organisation = &seeded["organisations"][0];
    let depots = (0..names.len())
        .map(|i| {
            let depot = &organisation["depots"][i];
            let scope = DepotScope {
                organisation_id: organisation["id"].as_i64().unwrap(),
                depot_id: depot["id"].as_i64().unwrap(),
            };
            (
                scope,
                depot["access_keys"][0]["key"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (url, depots)
}

fn start_node(url: &str) -> Server {
    Server::start_with(
        Path::new(url),
        &["--rate-limits", "off", "--webhook-poll", "0.25"],
    )
}

fn status(order_id: i64, status: &str) -> DomainEvent {
    DomainEvent::OrderStatus {
        order_id,
        order_number: format!("N{order_id}"),
        status: status.into(),
    }
}

fn now() -> Timestamp {
    Timestamp::from_millis(1_700_000_000_000)
}

/// Commits `event` in a write of `scope`'s depot, as any node's change would.
fn append(store: &dyn Store, scope: DepotScope, event: &DomainEvent) {
    store
        .transaction_in(scope, |tx| tx.append_event(scope, event, now()))
        .unwrap();
}

/// A write of one depot that appended its event (taking its id) and stays open until committed.
struct HeldOpen {
    commit: mpsc::Sender<()>,
    writer: JoinHandle<()>,
}

impl HeldOpen {
    fn append(store: Arc<dyn Store>, scope: DepotScope, event: DomainEvent) -> HeldOpen {
        let (appended, has_appended) = mpsc::channel();
        let (commit, committing) = mpsc::channel::<()>();
        let writer = std::thread::spawn(move || {
            store
                .transaction_in(scope, |tx| {
                    tx.append_event(scope, &event, now())?;
                    appended.send(()).unwrap();
                    committing.recv().unwrap();
                    Ok::<_, StoreError>(())
                })
                .unwrap();
        });
        has_appended
            .recv()
            .expect("the held write appended its event");
        HeldOpen { commit, writer }
    }

    /// Commits; the moment the commit returned.
    fn commit(self) -> Instant {
        self.commit.send(()).unwrap();
        self.writer.join().unwrap();
        Instant::now()
    }
}

/// The POSTs of order `order_id`'s events so far.
fn of_order(hook: &Receiver, order_id: i64) -> Vec<Hit> {
    hook.hits()
        .into_iter()
        .filter(|h| h.body["data"]["order_id"] == order_id)
        .collect()
}

/// Waits (at most `within`) until order `order_id` has `n` POSTs; them.
fn wait_for_order(hook: &Receiver, order_id: i64, n: usize, within: Duration) -> Vec<Hit> {
    let deadline = Instant::now() + within;
    loop {
        let hits = of_order(hook, order_id);
        if hits.len() >= n || Instant::now() > deadline {
            return hits;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn statuses(hits: &[Hit]) -> Vec<&str> {
    hits.iter()
        .map(|h| h.body["data"]["status"].as_str().unwrap())
        .collect()
}

#[test]
fn an_event_committed_after_a_later_id_of_another_depot_is_delivered_within_a_scan_and_in_order() {
    let hook = Receiver::start(Behaviour::Ok);
    let (url, scopes) = depots(&["North", "South"], &hook);
    let (north, south) = (scopes[0], scopes[1]);
    let node = start_node(&url);
    let store = support::test_db::open_store(Path::new(&url));
    // North's events already go out from the node.
    append(&*store, north, &status(7, "OPEN"));
    assert_eq!(
        wait_for_order(&hook, 7, 1, Duration::from_secs(10)).len(),
        1
    );

    // North's next change takes its id, then South's change takes a later one and commits
    // first; the node delivers South's, so its scan has passed North's id.
    let late = HeldOpen::append(store.clone(), north, status(7, "ROUTED"));
    append(&*store, south, &status(8, "OPEN"));
    let south_hit = wait_for_order(&hook, 8, 1, Duration::from_secs(10));
    assert_eq!(south_hit.len(), 1, "South's event delivered");
    std::thread::sleep(POLL * 2);
    let committed = late.commit();
    // And North moves on at once: its later event must not overtake the late one.
    append(&*store, north, &status(7, "DELIVERED"));

    let hits = wait_for_order(&hook, 7, 3, Duration::from_secs(10));
    assert_eq!(
        statuses(&hits),
        ["OPEN", "ROUTED", "DELIVERED"],
        "North's late event delivered, before North's later one"
    );
    assert!(
        hits[1].delivery() < south_hit[0].delivery(),
        "the late event's id is below South's: it committed out of id order"
    );
    let took = hits[1].at.saturating_duration_since(committed);
    assert!(
        took <= POLL + MARGIN,
        "delivered {took:?} after its commit (scan every {POLL:?})"
    );
    std::thread::sleep(POLL * 4);
    assert_eq!(hook.count(), 4, "each event once: {:?}", hook.hits());
    assert!(
        late_commits(&node) >= 1.0,
        "the catch-up is visible on the node's metrics"
    );
}

/// `dispatch_webhook_late_commits_total` on `node`'s metrics page.
fn late_commits(node: &Server) -> f64 {
    let reply = support::send(&node.addr, Request::new("GET", "/metrics", None));
    assert_eq!(reply.status, 200);
    let text = reply.text();
    text.lines()
        .find_map(|l| l.strip_prefix("dispatch_webhook_late_commits_total "))
        .unwrap_or_else(|| panic!("no late commits counter in\n{text}"))
        .trim()
        .parse()
        .unwrap()
}

#[test]
fn a_depots_first_event_committed_out_of_id_order_goes_out_once_from_one_of_two_nodes() {
    let hook = Receiver::start(Behaviour::Ok);
    let (url, scopes) = depots(&["North", "South", "East"], &hook);
    let (north, south, east) = (scopes[0], scopes[1], scopes[2]);
    let _nodes = [start_node(&url), start_node(&url)];
    let store = support::test_db::open_store(Path::new(&url));

    // East has never had an event: no node has met it when its first one is passed over.
    let late = HeldOpen::append(store.clone(), east, status(1, "OPEN"));
    append(&*store, north, &status(2, "OPEN"));
    append(&*store, south, &status(3, "OPEN"));
    assert_eq!(
        wait_for_order(&hook, 2, 1, Duration::from_secs(10)).len(),
        1
    );
    assert_eq!(
        wait_for_order(&hook, 3, 1, Duration::from_secs(10)).len(),
        1
    );
    std::thread::sleep(POLL * 2);
    let committed = late.commit();

    let hits = wait_for_order(&hook, 1, 1, Duration::from_secs(10));
    assert_eq!(hits.len(), 1, "East's event delivered");
    let took = hits[0].at.saturating_duration_since(committed);
    assert!(
        took <= POLL + MARGIN,
        "delivered {took:?} after its commit (scan every {POLL:?})"
    );
    std::thread::sleep(POLL * 4);
    assert_eq!(hook.count(), 3, "each event once: {:?}", hook.hits());
}

/// Creates an order with two line items through `node`; its id.
fn order(node: &Server, key: &str, number: &str) -> i64 {
    let reply = node.post(
        "/v2/orders",
        key,
        &json!([{"order_number": number, "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1,
                  "line_items": [{"product_code": "P1", "product_name": "a", "product_quantity": 1},
                                 {"product_code": "P2", "product_name": "b", "product_quantity": 1}]}]),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.json()["orders"][0]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap()
}

/// Marks the order's line items `delivered` DELIVERED through `node` (one status change).
fn deliver(node: &Server, key: &str, id: i64, delivered: &[&str]) {
    let items: Vec<Value> = ["P1", "P2"]
        .iter()
        .map(|code| match delivered.contains(code) {
            true => json!({"product_code": code, "status": "DELIVERED"}),
            false => json!({"product_code": code}),
        })
        .collect();
    let reply = node.put(
        &format!("/v2/orders/{id}"),
        key,
        &json!({ "line_items": items }),
    );
    assert_eq!(reply.status, 200, "{}", reply.text());
}

#[test]
fn a_day_of_deliveries_in_four_depots_through_two_nodes_reaches_the_receiver_once_in_order() {
    const ORDERS: usize = 10;
    let hook = Receiver::start(Behaviour::Ok);
    let (url, depots) = depots_with_keys(&["North", "South", "East", "West"], &hook);
    let nodes = [start_node(&url), start_node(&url)];
    // Each depot's drivers report through either node while the other depots' do the same:
    // the depots' writes commit side by side on both nodes.
    let orders: Vec<Vec<i64>> = std::thread::scope(|s| {
        let writers: Vec<_> = depots
            .iter()
            .enumerate()
            .map(|(d, (_, key))| {
                let nodes = &nodes;
                s.spawn(move || {
                    (0..ORDERS)
                        .map(|i| {
                            let (one, other) = (&nodes[(d + i) % 2], &nodes[(d + i + 1) % 2]);
                            let id = order(one, key, &format!("D{d}-{i}"));
                            deliver(other, key, id, &["P1"]);
                            deliver(one, key, id, &["P1", "P2"]);
                            id
                        })
                        .collect()
                })
            })
            .collect();
        writers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let written = Instant::now();
    let expected = depots.len() * ORDERS * 2;
    let hits = hook.wait_for(expected, Duration::from_secs(20));
    assert_eq!(hits.len(), expected, "every status change delivered");
    let last = hits.iter().map(|h| h.at).max().unwrap();
    let took = last.saturating_duration_since(written);
    assert!(
        took <= POLL + MARGIN,
        "the last event arrived {took:?} after the last change (scan every {POLL:?})"
    );
    for id in orders.iter().flatten() {
        let of = of_order(&hook, *id);
        assert_eq!(
            statuses(&of),
            ["PARTIALLY_DELIVERED", "DELIVERED"],
            "order {id}: its events once, in order"
        );
    }
    // The receiver got exactly what the outbox holds, each delivery once.
    let store = support::test_db::open_store(Path::new(&url));
    let in_outbox: usize = depots
        .iter()
        .map(|(scope, _)| store.read(|tx| tx.list_events(*scope)).unwrap().len())
        .sum();
    assert_eq!(in_outbox, expected);
    std::thread::sleep(POLL * 4);
    let mut ids: Vec<i64> = hook.hits().iter().map(Hit::delivery).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!((ids.len(), hook.count()), (expected, expected));
}
