//! End-to-end: the real `dispatch` binary as a subprocess, spoken to over TCP.
//!
//! The binary is dispatch-server's `dispatch`, built (or found up to date) before the first test
//! (`support::binary`).

use crate::support;
use std::process::Command;

use serde_json::{json, Value};

use support::{binary, seed, Server};

/// `method path` as (status, JSON body or null).
fn call(
    server: &Server,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    let reply = server.call(method, path, key, body);
    let body = if reply.raw.is_empty() {
        Value::Null
    } else {
        reply.json()
    };
    (reply.status, body)
}

fn seed_file() -> Value {
    json!({"organisations": [{"name": "Acme", "depots": [{"name": "North",
        "access_keys": [{"name": "integration", "permission": "all"}],
        "capacity_types": [{"type": "Weight"}],
        "zone_groups": [{"name": "Central", "zones": [{"name": "Z1", "polygon": [[51.49, -0.13], [51.51, -0.13], [51.51, -0.11], [51.49, -0.11]]}]}]}]}]})
}

#[test]
fn first_start_prints_a_working_key_and_the_listening_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("first.db");
    let server = Server::start(&db);
    let key = server
        .access_key
        .clone()
        .expect("first start prints an access key");
    let (status, body) = call(&server, "GET", "/v2/depots", Some(&key), None);
    assert_eq!(status, 200);
    assert_eq!(body["depots"][0]["name"], "Default");
    let (status, body) = call(&server, "GET", "/healthz", None, None);
    assert_eq!((status, &body["status"]), (200, &json!("ok")));
    let (status, body) = call(&server, "GET", "/v2/depots", None, None);
    assert_eq!((status, &body["name"]), (401, &json!("UNAUTHORIZED")));
    server.kill_hard();
    // A second start on the same database prints no key.
    let again = Server::start(&db);
    assert!(again.access_key.is_none());
    let (status, _) = call(&again, "GET", "/v2/depots", Some(&key), None);
    assert_eq!(status, 200);
}

#[test]
fn seed_while_serving_is_seen_without_restart_and_is_idempotent() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("seed.db");
    let server = Server::start(&db);
    let first = seed(&db, &seed_file());
    let second = seed(&db, &seed_file());
    assert_eq!(first, second, "same ids and keys on a re-run");
    let depot = &first["organisations"][0]["depots"][0];
    let key = depot["access_keys"][0]["key"].as_str().unwrap();
    let (status, body) = call(&server, "GET", "/v2/capacities", Some(key), None);
    assert_eq!(status, 200);
    assert_eq!(
        body["capacities"][0]["id"],
        depot["capacity_types"][0]["id"]
    );
    let group = &depot["zone_groups"][0]["id"];
    let (status, body) = call(
        &server,
        "POST",
        &format!("/v2/zone-groups/{group}/bounds/contains"),
        Some(key),
        Some(&json!({"location": {"lat": 51.5, "lng": -0.12}})),
    );
    assert_eq!((status, &body["zone"]["name"]), (200, &json!("Z1")));
}

#[test]
fn seed_rejects_unreadable_and_invalid_files_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(binary())
        .args(["seed", "--db"])
        .arg(dir.path().join("x.db"))
        .arg(dir.path().join("missing.json"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.json"));
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{\"organisations\": [{\"name\": \"\"}]}").unwrap();
    let out = Command::new(binary())
        .args(["seed", "--db"])
        .arg(dir.path().join("x.db"))
        .arg(&bad)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).is_empty());
}

#[test]
fn acknowledged_writes_survive_kill_9_and_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("crash.db");
    let server = Server::start(&db);
    let key = server.access_key.clone().unwrap();
    let mut acknowledged = Vec::new();
    for i in 0..25 {
        let body = json!({"name": format!("Van {i}"), "availability": "always", "start_location": "depot", "end_location": "depot", "skills": [format!("S{i}")]});
        let (status, body) = call(&server, "POST", "/v2/vehicles", Some(&key), Some(&body));
        assert_eq!(status, 200, "{body}");
        acknowledged.push(body["vehicle"]["id"].as_i64().unwrap());
    }
    let (status, _) = call(
        &server,
        "PUT",
        &format!("/v2/vehicles/{}", acknowledged[0]),
        Some(&key),
        Some(&json!({"name": "Renamed"})),
    );
    assert_eq!(status, 200);
    let (status, _) = call(
        &server,
        "DELETE",
        &format!("/v2/vehicles/{}", acknowledged[1]),
        Some(&key),
        None,
    );
    assert_eq!(status, 200);
    server.kill_hard();

    let restarted = Server::start(&db);
    let (status, body) = call(&restarted, "GET", "/v2/vehicles", Some(&key), None);
    assert_eq!(status, 200);
    let ids: Vec<i64> = body["vehicles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_i64().unwrap())
        .collect();
    let mut expected = acknowledged.clone();
    expected.remove(1);
    assert_eq!(ids, expected);
    assert_eq!(body["vehicles"][0]["name"], "Renamed");
    assert_eq!(body["vehicles"][5]["skills"], json!(["S6"]));
}

#[cfg(unix)]
#[test]
fn sigterm_stops_the_server_cleanly_with_exit_0() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("term.db");
    let server = Server::start(&db);
    let key = server.access_key.clone().unwrap();
    let (status, _) = call(
        &server,
        "POST",
        "/v2/vehicles",
        Some(&key),
        Some(
            &json!({"name": "V", "availability": "always", "start_location": "depot", "end_location": "depot"}),
        ),
    );
    assert_eq!(status, 200);
    let exit = server.terminate();
    assert!(exit.success(), "{exit:?}");
    let restarted = Server::start(&db);
    let (_, body) = call(&restarted, "GET", "/v2/vehicles", Some(&key), None);
    assert_eq!(body["vehicles"].as_array().unwrap().len(), 1);
}

#[test]
fn a_bad_listen_address_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(binary())
        .args(["serve", "--listen", "not-an-address", "--db"])
        .arg(dir.path().join("x.db"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot listen"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn rate_limits_are_on_by_default_and_off_with_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("limits.db");
    let limited = Server::start_with(&db, &[]);
    let key = limited.access_key.clone().unwrap();
    // The reference tier allows one call per second: three at once cannot all pass.
    let statuses: Vec<u16> = (0..3)
        .map(|_| call(&limited, "GET", "/v2/depots", Some(&key), None).0)
        .collect();
    assert!(statuses.contains(&403), "{statuses:?}");
    limited.kill_hard();
    let open = Server::start_with(&db, &["--rate-limits", "off"]);
    let statuses: Vec<u16> = (0..10)
        .map(|_| call(&open, "GET", "/v2/depots", Some(&key), None).0)
        .collect();
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
}
