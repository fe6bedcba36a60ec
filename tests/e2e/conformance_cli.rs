//! Conformance, black-box: `dispatch serve` and `dispatch seed` exactly as the operator
//! interface fixes them (flags, stdout lines, the seed output tree, `/healthz`, `--help`).

use crate::support;
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use support::{binary, db_arg, fixture_file, run_ok, seed, Server};

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
    k.sort();
    k
}

#[test]
fn every_subcommand_answers_help() {
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["seed", "--help"],
        vec!["solve", "--help"],
    ] {
        let out = Command::new(binary()).args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("Usage"), "{args:?}: {text}");
    }
    let out = Command::new(binary())
        .args(["serve", "--help"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in ["--db", "--listen", "--rate-limits"] {
        assert!(text.contains(flag), "{flag} in serve --help");
    }
}

#[test]
fn bad_flags_and_values_exit_non_zero_with_a_message_and_no_panic() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("x.db");
    let db = db.to_str().unwrap();
    for args in [
        vec!["serve", "--db", db, "--rate-limits", "maybe"],
        vec!["serve", "--db", db, "--no-such-flag"],
        vec!["seed", "--db", db],
        vec!["seed", "--db", db, "/no/such/file.json"],
        vec!["nonsense"],
    ] {
        let out = Command::new(binary())
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.trim().is_empty(), "{args:?}: a message on stderr");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

#[test]
fn serve_prints_the_listening_line_with_the_real_port_and_healthz_needs_no_key() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("serve.db");
    let server = Server::start(&db);
    let (host, port) = server.addr.rsplit_once(':').unwrap();
    assert_eq!(host, "127.0.0.1");
    assert!(port.parse::<u16>().unwrap() > 0);
    let key = server
        .access_key
        .clone()
        .expect("a first start prints its key");
    assert_eq!(key.len(), 64, "{key}");
    let reply = server.call("GET", "/healthz", None, None);
    assert_eq!(reply.status, 200);
    let reply = server.get("/v2/depots", &key);
    assert_eq!(reply.json()["depots"][0]["name"], "Default");
}

/// Scripts stop the server as soon as it said it listens: the signal must already be handled
/// then (finish, flush, exit 0), not kill the process — and promptly: an idle server has
/// nothing to wait for, so it must not sit out the workers' stop grace (5 s).
#[cfg(unix)]
#[test]
fn sigterm_right_after_the_listening_line_exits_0_promptly() {
    for attempt in 0..5 {
        let dir = tempfile::tempdir().unwrap();
        let server = Server::start(&dir.path().join("term.db"));
        let asked = std::time::Instant::now();
        let status = server.terminate();
        let took = asked.elapsed();
        assert_eq!(status.code(), Some(0), "attempt {attempt}: {status:?}");
        assert!(
            took < std::time::Duration::from_secs(4),
            "attempt {attempt}: stopping took {took:?}"
        );
    }
}

#[test]
fn a_seeded_database_gets_no_default_depot_and_no_printed_key() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("seeded.db");
    let seeded = seed(&db, &fixture_file());
    let server = Server::start(&db);
    assert_eq!(server.access_key, None);
    let key = seeded["organisations"][0]["depots"][0]["access_keys"][0]["key"]
        .as_str()
        .unwrap();
    let depots = server.get("/v2/depots", key).json();
    assert_eq!(depots["depots"][0]["name"], "North");
}

#[test]
fn seed_prints_the_input_tree_with_ids_and_keys_and_repeats_it_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("seed.db");
    let file = dir.path().join("setup.json");
    std::fs::write(&file, fixture_file().to_string()).unwrap();
    let run = || {
        let out = run_ok(
            Command::new(binary())
                .args(["seed", "--db"])
                .arg(db_arg(&db))
                .arg(&file),
        );
        serde_json::from_slice::<Value>(&out.stdout).expect("one JSON document on stdout")
    };
    let first = run();
    let second = run();
    assert_eq!(first, second, "same ids and keys on a re-run");
    let org = &first["organisations"][0];
    assert!(org["id"].is_i64());
    assert_eq!(org["name"], "Acme");
    assert_eq!(keys(&org["third_parties"][0]), ["id", "name"]);
    let depot = &org["depots"][0];
    assert!(depot["id"].is_i64());
    assert_eq!(depot["name"], "North");
    let access = depot["access_keys"].as_array().unwrap();
    assert_eq!(access.len(), 2);
    assert_eq!(keys(&access[0]), ["key", "name", "permission"]);
    assert_eq!(
        (&access[0]["name"], &access[0]["permission"]),
        (&json!("integration"), &json!("all"))
    );
    assert_eq!(access[1]["permission"], "read");
    assert_eq!(keys(&depot["capacity_types"][0]), ["id", "type"]);
    assert_eq!(keys(&depot["custom_fields"][0]), ["id", "name"]);
    let group = &depot["zone_groups"][0];
    assert_eq!(keys(group), ["id", "name", "zones"]);
    assert_eq!(keys(&group["zones"][0]), ["id", "name"]);
    assert_eq!(
        keys(&depot["notification_templates"][0]),
        ["id", "name", "type"]
    );
    // The flags may follow the file, and `-` reads stdin.
    let out = Command::new(binary())
        .arg("seed")
        .arg(&file)
        .arg("--db")
        .arg(db_arg(&db))
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), first);
    assert_eq!(seed(&db, &fixture_file()), first);
}

#[test]
fn seed_while_serving_adds_keys_and_data_seen_without_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("live.db");
    let server = Server::start(&db);
    let seeded = seed(&db, &fixture_file());
    let depot = &seeded["organisations"][0]["depots"][0];
    let key = depot["access_keys"][0]["key"].as_str().unwrap();
    let read_key = depot["access_keys"][1]["key"].as_str().unwrap();
    assert_eq!(
        server.get("/v2/capacities", key).json()["capacities"][0]["type"],
        "Weight"
    );
    let reply = server.post("/v2/order-statuses", read_key, &json!({"status": "X"}));
    reply.assert_envelope("PERMISSION", 403);
    let statuses = server.get("/v2/order-statuses", key).json();
    assert!(statuses["order_statuses"]
        .as_array()
        .unwrap()
        .iter()
        .any(|s| s["status"] == "RETURNED"));
}

#[test]
fn a_seed_file_with_only_names_is_accepted_at_every_level() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("names.db");
    let file = json!({"organisations": [{"name": "Bare", "third_parties": [{"name": "T"}], "depots": [{
        "name": "D", "access_keys": [{"name": "k"}], "capacity_types": [{"type": "Boxes"}],
        "custom_fields": [{"name": "F"}], "zone_groups": [{"name": "G", "zones": [{"name": "Z"}]}],
        "notification_templates": [{"name": "N"}]}]}]});
    let seeded = seed(&db, &file);
    let depot = &seeded["organisations"][0]["depots"][0];
    assert_eq!(depot["access_keys"][0]["permission"], "all");
    assert!(depot["zone_groups"][0]["zones"][0]["id"].is_i64());
    assert_eq!(depot["notification_templates"][0]["type"], "SMS");
    let server = Server::start(&db);
    let key = depot["access_keys"][0]["key"].as_str().unwrap();
    let group = &depot["zone_groups"][0]["id"];
    let reply = server.post(
        &format!("/v2/zone-groups/{group}/bounds/contains"),
        key,
        &json!({"location": {"lat": 0.0, "lng": 0.0}}),
    );
    assert_eq!(
        (reply.status, reply.json()),
        (200, json!({"zone": null})),
        "a zone without corners contains nothing"
    );
    assert_eq!(seed(&db, &file), seeded);
}
