//! Logs of the real binary: one JSON object per line with `--log-format json` (request id, depot,
//! route template, status, latency), human-readable text by default, and never a secret —
//! access keys and driver credentials sent in headers, query strings and bodies, a tracking
//! token in a path, a webhook password — at the most verbose level; and under json, JSON on
//! every line (a first start's pointer to `dispatch keys`, a failed start's error).

use crate::support;
use std::path::Path;

use serde_json::{json, Value};
use support::{fixture_file, send, serve_command, Fixture, Request, Serving};

fn call(
    addr: &str,
    method: &str,
    path: &str,
    key: Option<&str>,
    body: Option<Value>,
) -> support::Reply {
    let request = Request::new(method, path, key);
    send(
        addr,
        match body {
            Some(body) => request.json(&body),
            None => request,
        },
    )
}

/// Every secret the requests below carry.
struct Secrets {
    key: String,
    read_key: String,
    driver: String,
    wrong_key: &'static str,
    body_text: &'static str,
    tracking_token: &'static str,
    webhook_password: &'static str,
}

/// Starts `serve` with `flags` on `db` at RUST_LOG=debug, sends requests full of secrets, stops
/// it with SIGTERM and returns what it wrote to stderr.
fn logs_of_a_session(dir: &Path, db: &Path, flags: &[&str], secrets: &mut Secrets) -> String {
    let log_path = dir.join(format!("serve-{}.log", flags.join("-")));
    let mut serving = Serving::start(
        serve_command(db)
            .args(["--rate-limits", "off"])
            .args(flags)
            .env("RUST_LOG", "debug")
            .stderr(std::fs::File::create(&log_path).unwrap()),
    );
    let addr = serving.addr.clone();
    assert_eq!(
        call(&addr, "GET", "/v2/depots", Some(&secrets.key), None).status,
        200
    );
    let in_query = format!(
        "/v2/depots?x-access-key={}&key={}",
        secrets.key, secrets.read_key
    );
    assert_eq!(call(&addr, "GET", &in_query, None, None).status, 401);
    assert_eq!(
        call(&addr, "GET", "/v2/vehicles", Some(secrets.wrong_key), None).status,
        401
    );
    let vehicle = call(
        &addr,
        "POST",
        "/v2/vehicles",
        Some(&secrets.key),
        Some(
            json!({"name": secrets.body_text, "availability": "full_day",
                    "start_location": "depot", "end_location": "depot"}),
        ),
    );
    let vehicle_id = vehicle.json()["vehicle"]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{}", vehicle.text()));
    // A body the API refuses, with the key in it, on the way to the error envelope.
    let refused = call(
        &addr,
        "POST",
        "/v2/orders",
        Some(&secrets.key),
        Some(
            json!([{"order_number": secrets.body_text, "password": secrets.read_key, "type": "nonsense"}]),
        ),
    );
    assert_eq!(refused.status, 400, "{}", refused.text());
    if secrets.driver.is_empty() {
        let path = format!("/v2/vehicles/{vehicle_id}/driver-credentials");
        let credential = call(&addr, "POST", &path, Some(&secrets.key), Some(json!({})));
        secrets.driver = credential.json()["driver_credential"]["credential"]
            .as_str()
            .unwrap_or_else(|| panic!("{}", credential.text()))
            .to_owned();
    }
    assert_eq!(
        call(&addr, "GET", "/driver/me", Some(&secrets.driver), None).status,
        200
    );
    let driver_in_query = format!("/driver/me?x-access-key={}", secrets.driver);
    assert_eq!(call(&addr, "GET", &driver_in_query, None, None).status, 401);
    let tracking = format!("/track/{}", secrets.tracking_token);
    assert_eq!(call(&addr, "GET", &tracking, None, None).status, 404);
    serving.terminate();
    std::fs::read_to_string(log_path).unwrap()
}

fn assert_no_secret(log: &str, secrets: &Secrets) {
    for (what, secret) in [
        ("access key", secrets.key.as_str()),
        ("read key", secrets.read_key.as_str()),
        ("driver credential", secrets.driver.as_str()),
        ("unknown key", secrets.wrong_key),
        ("request body text", secrets.body_text),
        ("tracking token", secrets.tracking_token),
        ("webhook password", secrets.webhook_password),
    ] {
        assert!(!secret.is_empty());
        if let Some(line) = log.lines().find(|l| l.contains(secret)) {
            panic!("the {what} was logged: {line}");
        }
    }
}

#[test]
fn no_access_key_driver_credential_or_password_is_ever_logged() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("logs.db");
    let mut file = fixture_file();
    file["organisations"][0]["depots"][0]["settings"]["webhook"] = json!({
        "url": "http://127.0.0.1:9/hook", "username": "hooks", "password": "hook-password-8e1f"
    });
    let fixture = Fixture::seed(&db);
    let seeded = support::seed(&db, &file);
    assert_eq!(
        seeded["organisations"][0]["depots"][0]["access_keys"][0]["key"],
        json!(fixture.key)
    );
    let mut secrets = Secrets {
        key: fixture.key.clone(),
        read_key: fixture.read_key.clone(),
        driver: String::new(),
        wrong_key: "not-a-key-3c9a77d1",
        body_text: "body-text-5b0c2e",
        tracking_token: "trk-token-d41d8cd98f",
        webhook_password: "hook-password-8e1f",
    };
    let json_log = logs_of_a_session(dir.path(), &db, &["--log-format", "json"], &mut secrets);
    assert_no_secret(&json_log, &secrets);
    let text_log = logs_of_a_session(dir.path(), &db, &[], &mut secrets);
    assert_no_secret(&text_log, &secrets);
    assert!(text_log.contains("request"), "{text_log}");
}

#[test]
fn json_logs_are_one_object_per_line_with_the_request_fields() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("json.db");
    let fixture = Fixture::seed(&db);
    let north = fixture.north()["id"].as_i64().unwrap();
    let mut secrets = Secrets {
        key: fixture.key.clone(),
        read_key: fixture.read_key.clone(),
        driver: String::new(),
        wrong_key: "not-a-key-77",
        body_text: "body-text-91",
        tracking_token: "trk-token-0b",
        webhook_password: "-unused-",
    };
    let log = logs_of_a_session(dir.path(), &db, &["--log-format", "json"], &mut secrets);
    let entries: Vec<Value> = log
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect();
    let requests: Vec<&Value> = entries
        .iter()
        .filter(|e| e["target"] == "dispatch::request")
        .collect();
    assert_eq!(requests.len(), 9, "one line per request: {log}");
    for entry in &requests {
        for field in [
            "timestamp",
            "level",
            "request_id",
            "method",
            "route",
            "status",
            "latency_ms",
        ] {
            assert!(!entry[field].is_null(), "{field} in {entry}");
        }
        assert!(entry["latency_ms"].as_f64().unwrap() >= 0.0);
        assert_eq!(
            entry["request_id"].as_str().unwrap().len(),
            36,
            "a UUID: {entry}"
        );
    }
    let find = |method: &str, route: &str| {
        requests
            .iter()
            .find(|e| e["method"] == method && e["route"] == route)
            .unwrap_or_else(|| panic!("{method} {route} in {log}"))
    };
    let depots = find("GET", "/v2/depots");
    assert_eq!(depots["status"], 200);
    assert_eq!(depots["depot_id"], north);
    let credential = find("POST", "/v2/vehicles/{id}/driver-credentials");
    assert_eq!(credential["depot_id"], north);
    assert_eq!(find("GET", "/track/{token}")["status"], 404);
    let driver = find("GET", "/driver/me");
    assert_eq!(driver["status"], 200);
    assert_eq!(
        driver["depot_id"], north,
        "a driver credential's depot is logged"
    );
    assert!(requests
        .iter()
        .any(|e| e["status"] == 401 && e["depot_id"].is_null()));
}

/// Every line of `text` as a JSON object.
fn json_lines(text: &str) -> Vec<Value> {
    text.lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
        .collect()
}

/// Under `--log-format json` a log pipeline gets nothing but JSON objects on stderr: the first
/// start's pointer to `dispatch keys`, and the error that ends a start that cannot listen,
/// are objects like every other line.
#[test]
fn json_logs_are_json_on_every_line_of_a_first_start_and_a_failed_one() {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("first.log");
    let mut serving = Serving::start(
        serve_command(&dir.path().join("first.db"))
            .args(["--log-format", "json"])
            .env_remove("RUST_LOG")
            .stderr(std::fs::File::create(&log_path).unwrap()),
    );
    assert!(
        serving.printed[0].starts_with("access key: "),
        "{:?}",
        serving.printed
    );
    serving.terminate();
    let log = std::fs::read_to_string(&log_path).unwrap();
    let pointer = json_lines(&log)
        .into_iter()
        .find(|e| {
            e["message"]
                .as_str()
                .is_some_and(|m| m.contains("dispatch keys create"))
        })
        .unwrap_or_else(|| panic!("the pointer to `dispatch keys` in {log}"));
    assert_eq!(pointer["level"], "WARN", "{pointer}");

    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let out = std::process::Command::new(support::binary())
        .args(["serve", "--log-format", "json", "--listen"])
        .arg(busy.local_addr().unwrap().to_string())
        .arg("--db")
        .arg(support::db_arg(&dir.path().join("busy.db")))
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let error = json_lines(&stderr)
        .into_iter()
        .find(|e| e["level"] == "ERROR")
        .unwrap_or_else(|| panic!("the error as a JSON object: {stderr}"));
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("cannot listen on"),
        "{error}"
    );
}
