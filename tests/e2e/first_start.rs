//! A depot's first start and its backups, through the real binary: `serve --depot-lat/--depot-lng`
//! (or their DISPATCH_* variables) gives the default depot a position, so a fresh install plans
//! a day with vans starting at `depot`; a restart never overwrites a position set since; and
//! `dispatch backup` copies the database while `serve` writes to it.

use crate::support;
use std::process::Command;

use serde_json::{json, Value};

use support::{binary, Server};

fn depot(server: &Server, key: &str) -> Value {
    let id = server.get("/v2/depots", key).json()["depots"][0]["id"].clone();
    server.get(&format!("/v2/depots/{id}"), key).json()["depot"].clone()
}

#[test]
fn serve_places_the_default_depot_so_a_fresh_install_plans_a_day() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("first.db");
    let server = Server::start_with_env(
        &db,
        &["--rate-limits", "off", "--depot-address", "1 Depot Way"],
        &[
            ("DISPATCH_DEPOT_LAT", "51.5"),
            ("DISPATCH_DEPOT_LNG", "-0.12"),
        ],
    );
    let key = server
        .access_key
        .clone()
        .expect("a first start prints its key");
    let d = depot(&server, &key);
    assert_eq!(
        (d["address"].clone(), d["lat"].clone(), d["lng"].clone()),
        (json!("1 Depot Way"), json!(51.5), json!(-0.12)),
        "{d}"
    );
    let van = json!({"name": "Van 1", "availability": "full_day",
                     "start_location": "depot", "end_location": "depot"});
    assert_eq!(server.post("/v2/vehicles", &key, &van).status, 200);
    let order = json!([{"order_number": "F-1", "type": "delivery", "delivery_date": "2026-12-02",
                        "delivery_lat": 51.52, "delivery_lng": -0.10}]);
    assert_eq!(server.post("/v2/orders", &key, &order).status, 200);
    let job = server.optimise_and_wait(&key, "2026-12-02");
    let read = server
        .get(&format!("/v2/plans/optimise/{job}"), &key)
        .json();
    assert_eq!(read["optimisation"]["state"], "succeeded", "{read}");
    drop(server);

    // The API moves the depot; a restart with the same flags keeps the API's position.
    let server = Server::start_with_env(
        &db,
        &["--rate-limits", "off"],
        &[
            ("DISPATCH_DEPOT_LAT", "51.5"),
            ("DISPATCH_DEPOT_LNG", "-0.12"),
        ],
    );
    let id = depot(&server, &key)["id"].clone();
    let moved = server.put(
        &format!("/v2/depots/{id}"),
        &key,
        &json!({"lat": 52.0, "lng": 1.0}),
    );
    assert_eq!(moved.status, 200, "{}", moved.text());
    drop(server);
    let server = Server::start_with_env(
        &db,
        &[
            "--rate-limits",
            "off",
            "--depot-lat",
            "51.5",
            "--depot-lng",
            "-0.12",
        ],
        &[],
    );
    assert_eq!(depot(&server, &key)["lat"], json!(52));
}

#[test]
fn a_half_position_or_an_address_that_cannot_be_geocoded_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(binary())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--depot-lat",
            "51.5",
            "--db",
        ])
        .arg(dir.path().join("a.db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--depot-lng"));
    let out = Command::new(binary())
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--depot-address",
            "Nowhere 9",
            "--db",
        ])
        .arg(dir.path().join("b.db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("Nowhere 9"), "{stderr}");
}

#[test]
fn backup_copies_the_database_while_serve_writes_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("live.db");
    if std::env::var("DISPATCH_TEST_DB").as_deref() == Ok("postgres") {
        return; // dispatch backup copies SQLite files; PostgreSQL has pg_dump
    }
    let server = Server::start(&db);
    let key = server.access_key.clone().unwrap();
    for i in 0..20 {
        let order = json!([{"order_number": format!("B-{i}"), "type": "delivery",
                            "delivery_lat": 51.5, "delivery_lng": -0.1}]);
        assert_eq!(server.post("/v2/orders", &key, &order).status, 200);
    }
    let copy = dir.path().join("copy.db");
    let out = Command::new(binary())
        .args(["backup", "--db"])
        .arg(&db)
        .arg(&copy)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(printed["bytes"].as_u64().unwrap() > 0, "{printed}");
    // A second backup to the same file is refused; the first stays.
    let again = Command::new(binary())
        .args(["backup", "--db"])
        .arg(&db)
        .arg(&copy)
        .output()
        .unwrap();
    assert!(!again.status.success());
    drop(server);
    // The copy serves the same orders.
    let restored = Server::start(&copy);
    let orders = restored.get("/v2/orders?limit=100", &key).json();
    assert_eq!(
        orders["orders"].as_array().map(Vec::len),
        Some(20),
        "{orders}"
    );
    let refused = Command::new(binary())
        .args(["backup", "--db", "postgres://u@localhost/x"])
        .arg(dir.path().join("pg.db"))
        .output()
        .unwrap();
    assert!(!refused.status.success());
    assert!(String::from_utf8_lossy(&refused.stderr).contains("pg_dump"));
}
