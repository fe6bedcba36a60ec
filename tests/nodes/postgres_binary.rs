//! The real `dispatch` binary on PostgreSQL (`--db postgres://...`): several `serve` nodes on
//! one database behave as one service, `seed` and the operator subcommands take the same URL.
//! Each test gets a fresh database of a throwaway cluster.

use crate::support;
use std::path::Path;
use std::process::Command;

use dispatch_store_postgres::throwaway::Cluster;
use serde_json::{json, Value};
use support::{binary, seed, Fixture, Request, Server};

fn database() -> String {
    Cluster::shared().unwrap().create_empty_database().unwrap()
}

fn orders(numbers: &[&str]) -> Value {
    Value::Array(
        numbers
            .iter()
            .map(|n| json!({"order_number": n, "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.12}))
            .collect(),
    )
}

fn numbers(server: &Server, key: &str) -> Vec<String> {
    let reply = server.get("/v2/orders?limit=100", key);
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.raw));
    let mut numbers: Vec<String> = reply.json()["orders"]
        .as_array()
        .expect("orders")
        .iter()
        .map(|o| o["order_number"].as_str().unwrap().to_owned())
        .collect();
    numbers.sort();
    numbers
}

#[test]
fn the_first_node_on_an_empty_database_prints_the_only_key() {
    let url = database();
    let db = Path::new(&url);
    let first = Server::start(db);
    let key = first
        .access_key
        .clone()
        .expect("the first start prints a key");
    let second = Server::start(db);
    assert_eq!(
        second.access_key, None,
        "one default depot and key per database"
    );
    for node in [&first, &second] {
        let reply = node.get("/v2/depots", &key);
        assert_eq!(reply.status, 200);
        assert_eq!(reply.json()["depots"].as_array().unwrap().len(), 1);
    }
}

#[test]
fn nodes_starting_at_once_on_an_empty_database_create_one_default_depot_and_key() {
    let url = database();
    let db = Path::new(&url);
    let nodes: Vec<Server> = std::thread::scope(|s| {
        let starting: Vec<_> = (0..4).map(|_| s.spawn(|| Server::start(db))).collect();
        starting.into_iter().map(|t| t.join().unwrap()).collect()
    });
    let keys: Vec<&String> = nodes.iter().filter_map(|n| n.access_key.as_ref()).collect();
    assert_eq!(keys.len(), 1, "exactly one node prints the key: {keys:?}");
    for node in &nodes {
        let reply = node.get("/v2/depots", keys[0]);
        assert_eq!(reply.status, 200);
        assert_eq!(reply.json()["depots"].as_array().unwrap().len(), 1);
    }
}

#[test]
fn ids_and_paging_cursors_of_one_node_are_valid_on_the_others() {
    let url = database();
    let db = Path::new(&url);
    let fx = Fixture::seed(db);
    let nodes = [Server::start(db), Server::start(db), Server::start(db)];
    let mut ids = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let numbers: Vec<String> = (0..3).map(|k| format!("N{i}-{k}")).collect();
        let numbers: Vec<&str> = numbers.iter().map(String::as_str).collect();
        let reply = node.post("/v2/orders", &fx.key, &orders(&numbers));
        assert_eq!(reply.status, 200);
        for order in reply.json()["orders"].as_array().unwrap() {
            ids.push(order["id"].as_str().unwrap().to_owned());
        }
    }
    let mut unique = ids.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 9, "ids are unique across nodes: {ids:?}");
    for (i, id) in ids.iter().enumerate() {
        let reply = nodes[(i + 1) % 3].get(&format!("/v2/orders/{id}"), &fx.key);
        assert_eq!(reply.status, 200, "order {id} on another node");
    }
    // A page read on one node continues on the next, its cursor read by another process.
    let mut path = "/v2/orders?limit=2".to_owned();
    let mut seen = Vec::new();
    for turn in 0.. {
        let reply = nodes[turn % 3].get(&path, &fx.key);
        assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.raw));
        for order in reply.json()["orders"].as_array().unwrap() {
            // Lists show ids as numbers, order writes as strings.
            seen.push(order["id"].to_string().trim_matches('"').to_owned());
        }
        match reply.next_link() {
            Some(next) => path = next[next.find("/v2/").expect("a /v2 link")..].to_owned(),
            None => break,
        }
    }
    seen.sort();
    assert_eq!(seen, unique, "every order once, across three nodes' pages");
}

#[test]
fn a_keys_rate_limit_is_counted_across_nodes() {
    let url = database();
    let db = Path::new(&url);
    let fx = Fixture::seed(db);
    let on = ["--rate-limits", "on"];
    let (a, b) = (Server::start_with(db, &on), Server::start_with(db, &on));
    // The strict tier lets 2 requests through in any 15 seconds, whichever node they reach
    // (a refused body still counts: the limit is charged before the handler runs).
    let booking = |node: &Server| node.post("/v2/booking/availability", &fx.key, &json!({}));
    assert_eq!(booking(&a).status, 400);
    assert_eq!(booking(&b).status, 400);
    for node in [&a, &b] {
        let refused = booking(node);
        assert_eq!(
            refused.status,
            403,
            "{}",
            String::from_utf8_lossy(&refused.raw)
        );
        assert_eq!(refused.json()["name"], "FORBIDDEN");
        let wait: i64 = refused.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=15).contains(&wait), "{wait}");
    }
    // Another key has a quota of its own; another tier too.
    let south = b.post("/v2/booking/availability", &fx.south_key, &json!({}));
    assert_eq!(south.status, 400);
    assert_eq!(b.get("/v2/orders", &fx.key).status, 200);
}

#[test]
fn nodes_share_writes_and_survive_one_of_them_being_killed() {
    let url = database();
    let db = Path::new(&url);
    let fx = Fixture::seed(db);
    let a = Server::start(db);
    let b = Server::start(db);
    assert_eq!(
        a.post("/v2/orders", &fx.key, &orders(&["A-1", "A-2"]))
            .status,
        200
    );
    assert_eq!(b.post("/v2/orders", &fx.key, &orders(&["B-1"])).status, 200);
    assert_eq!(numbers(&a, &fx.key), ["A-1", "A-2", "B-1"]);
    assert_eq!(numbers(&b, &fx.key), ["A-1", "A-2", "B-1"]);
    a.kill_hard();
    assert_eq!(b.post("/v2/orders", &fx.key, &orders(&["B-2"])).status, 200);
    let c = Server::start(db);
    assert_eq!(numbers(&c, &fx.key), ["A-1", "A-2", "B-1", "B-2"]);
}

#[test]
fn an_idempotent_request_replays_on_another_node() {
    let url = database();
    let db = Path::new(&url);
    let fx = Fixture::seed(db);
    let a = Server::start(db);
    let b = Server::start(db);
    let post = |server: &Server, body: &Value| {
        server.send(
            Request::new("POST", "/v2/orders", Some(&fx.key))
                .json(body)
                .header("idempotency-key", "across-nodes"),
        )
    };
    let first = post(&a, &orders(&["I-1"]));
    assert_eq!(first.status, 200);
    let replay = post(&b, &orders(&["I-1"]));
    assert_eq!(replay.status, 200);
    assert_eq!(replay.header("idempotency-replay"), Some("true"));
    assert_eq!(replay.json(), first.json());
    let other = post(&b, &orders(&["I-2"]));
    assert_eq!(other.status, 422, "{}", String::from_utf8_lossy(&other.raw));
    assert_eq!(numbers(&a, &fx.key), ["I-1"]);
}

#[test]
fn seed_and_the_operator_subcommands_take_the_postgres_url() {
    let url = database();
    let db = Path::new(&url);
    let file = json!({"organisations": [{"name": "Acme", "depots": [{"name": "North",
        "access_keys": [{"name": "integration", "permission": "all"}]}]}]});
    let first = seed(db, &file);
    assert_eq!(seed(db, &file), first, "seeding is idempotent by name");
    let run = |args: &[&str]| {
        let out = Command::new(binary()).args(args).output().unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, stdout, stderr) = run(&["webhooks", "failed", "--db", &url]);
    assert!(ok, "{stderr}");
    assert_eq!(
        serde_json::from_str::<Value>(&stdout).unwrap(),
        json!({"failed": []})
    );
    let (ok, _, stderr) = run(&["export-problem", "--db", &url, "--plan", "1"]);
    assert!(!ok);
    assert!(stderr.contains("plan 1"), "{stderr}");
    let unreachable = "postgres://nobody:secret@127.0.0.1:1/none";
    let (ok, _, stderr) = run(&["webhooks", "failed", "--db", unreachable]);
    assert!(!ok);
    assert!(
        stderr.contains("127.0.0.1:1/none") && !stderr.contains("secret"),
        "{stderr}"
    );
}
