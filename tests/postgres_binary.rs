//! The real `dispatch` binary on PostgreSQL (`--db postgres://...`): several `serve` nodes on
//! one database behave as one service, `seed` and the operator subcommands take the same URL.
//! Each test gets a fresh database of a throwaway cluster.

mod support;

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
