//! The operator's own secrets — credentials and tokens inside `--sms-gateway-url`, `--smtp-url`,
//! `--osrm-url` and a depot's webhook URL, the `--sms-gateway-auth` header — reach neither the
//! logs (at `debug`) nor an API answer, even when each of those servers is down and the
//! failure names it: the service shows a server as `scheme://host:port/path` only. Nor does
//! the password of a PostgreSQL `--db` reach any subcommand's output.

use crate::support;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use support::{binary, db_arg, fixture_file, send, Fixture, Request, Serving};

const SECRETS: [&str; 9] = [
    "sms-user-a1",
    "sms-pass-4d1e",
    "sms-token-7c2a",
    "sms-auth-9e0b",
    "smtp-pass-2b8f",
    "osrm-pass-5f3c",
    "osrm-token-1a6d",
    "hook-pass-8d0e",
    "hook-token-3f7b",
];

fn call(addr: &str, method: &str, path: &str, key: &str, body: Option<Value>) -> Value {
    let request = Request::new(method, path, Some(key));
    let reply = send(
        addr,
        match body {
            Some(body) => request.json(&body),
            None => request,
        },
    );
    assert_eq!(reply.status, 200, "{method} {path}: {}", reply.text());
    reply.json()
}

fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        if let Some(line) = text.lines().find(|l| l.contains(secret)) {
            panic!("{secret} is in the {what}: {line}");
        }
    }
}

/// Polls `read` until `done` holds; fails with `what` after 30 s.
fn wait_for(what: &str, read: impl Fn() -> Value, done: impl Fn(&Value) -> bool) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let value = read();
        if done(&value) {
            return value;
        }
        assert!(Instant::now() < deadline, "{what}: {value:#}");
        std::thread::sleep(Duration::from_millis(200));
    }
}

#[test]
fn credentials_in_operator_urls_reach_neither_the_logs_nor_the_api() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("secrets.db");
    let fixture = Fixture::seed(&db);
    let mut file = fixture_file();
    file["organisations"][0]["depots"][0]["settings"]["webhook"] = json!({
        "url": "http://hook-user:hook-pass-8d0e@127.0.0.1:9/hook?sig=hook-token-3f7b",
        "username": "hooks", "password": "pw"
    });
    support::seed(&db, &file);
    let key = fixture.key.as_str();
    let template = fixture.north()["notification_templates"][0]["id"].clone();
    let log_path = dir.path().join("serve.log");
    let mut serving = Serving::start(
        std::process::Command::new(binary())
            .args(["serve", "--listen", "127.0.0.1:0", "--rate-limits", "off"])
            .arg("--db")
            .arg(db_arg(&db))
            .args(["--workers", "1", "--solve-time", "1"])
            .args([
                "--sms-gateway-url",
                "http://sms-user-a1:sms-pass-4d1e@127.0.0.1:9/send?api_key=sms-token-7c2a",
                "--sms-gateway-auth",
                "Bearer sms-auth-9e0b",
                "--smtp-url",
                "smtp://mail-user:smtp-pass-2b8f@127.0.0.1:9",
                "--osrm-url",
                "http://osrm-user:osrm-pass-5f3c@127.0.0.1:9/?token=osrm-token-1a6d",
                "--osrm-fallback",
                "fail",
            ])
            .env("RUST_LOG", "debug")
            .stderr(std::fs::File::create(&log_path).unwrap()),
    );
    let addr = serving.addr.clone();

    // An SMS the gateway (down) cannot take: the task says which gateway failed, no more.
    let orders = call(
        &addr,
        "POST",
        "/v2/orders",
        key,
        Some(json!([
            {"order_number": "S1", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1,
             "delivery_contact_number": "+441234", "delivery_date": "2026-11-24"}
        ])),
    );
    let order: i64 = orders["orders"][0]["id"].as_str().unwrap().parse().unwrap();
    call(
        &addr,
        "POST",
        "/v2/notifications/schedule/orders",
        key,
        Some(json!({"orders": [order], "templates": [template]})),
    );
    let failed = wait_for(
        "the SMS never failed",
        || {
            call(
                &addr,
                "GET",
                "/v2/notification-tasks?status=Failed",
                key,
                None,
            )
        },
        |tasks| !tasks["notification_tasks"][0].is_null(),
    );
    let task = &failed["notification_tasks"][0];
    assert_eq!(
        task["sender"], "sms-gateway:http://127.0.0.1:9/send",
        "{task}"
    );
    let error = task["error"].as_str().unwrap();
    assert!(error.starts_with("SMS gateway unreachable"), "{error}");
    assert_no_secret("notification task", &task.to_string());

    // A job whose OSRM server is down fails, naming the server without its credentials.
    call(
        &addr,
        "POST",
        "/v2/vehicles",
        key,
        Some(json!({"name": "Van", "availability": "full_day",
                    "start_location": "depot", "end_location": "depot"})),
    );
    let queued = call(
        &addr,
        "POST",
        "/v2/plans/optimise/orders",
        key,
        Some(json!({"delivery_date": "2026-11-24", "settings": {}})),
    );
    let job = queued["optimisation"]["id"].as_str().unwrap().to_owned();
    let ended = wait_for(
        "the job never ended",
        || {
            call(
                &addr,
                "GET",
                &format!("/v2/plans/optimise/{job}"),
                key,
                None,
            )
        },
        |read| read["optimisation"]["in_progress"] == false,
    );
    assert_eq!(ended["optimisation"]["state"], "failed", "{ended}");
    let error = ended["optimisation"]["error"].as_str().unwrap();
    assert!(error.contains("OSRM at http://127.0.0.1:9/"), "{error}");
    assert_no_secret("job", &ended.to_string());

    // The webhook attempts (receiver down) are logged at debug with their error.
    let log = wait_for(
        "no webhook attempt logged",
        || json!(std::fs::read_to_string(&log_path).unwrap()),
        |log| log.as_str().unwrap().contains("webhook attempt failed"),
    );
    serving.terminate();
    let log = std::fs::read_to_string(&log_path).unwrap_or_else(|_| log.to_string());
    assert!(
        log.contains("sms-gateway:http://127.0.0.1:9/send") && log.contains("smtp:127.0.0.1:9"),
        "the senders are named in the log:\n{log}"
    );
    assert!(log.contains("127.0.0.1:9/hook"), "{log}");
    assert_no_secret("log", &log);
}

/// A PostgreSQL password — in the URL's user information or as its `password` parameter, given
/// by `--db` or `DISPATCH_DB` — is in no message of any subcommand, whether the client refuses
/// the URL or the server does not answer; the database is still named.
#[test]
fn a_database_password_is_in_no_message_of_any_subcommand() {
    const PASSWORD: &str = "db-pass-6e2d";
    let urls = [
        "postgres://dispatch:db-pass-6e2d@127.0.0.1:1/none",
        "postgresql://dispatch@127.0.0.1:1/none?sslmode=disable&password=db-pass-6e2d",
        "postgres://dispatch:db-pass-6e2d@127.0.0.1:notaport/none",
    ];
    let subcommands: [&[&str]; 4] = [
        &["serve", "--listen", "127.0.0.1:0"],
        &["worker"],
        &["keys", "list"],
        &["webhooks", "failed"],
    ];
    for url in urls {
        for args in subcommands {
            for by_flag in [true, false] {
                let mut command = Command::new(binary());
                command.args(args).stdin(Stdio::null());
                if by_flag {
                    command.args(["--db", url]);
                } else {
                    command.env("DISPATCH_DB", url);
                }
                let out = command.output().unwrap();
                let said = format!(
                    "{}{}",
                    String::from_utf8_lossy(&out.stdout),
                    String::from_utf8_lossy(&out.stderr)
                );
                assert!(!out.status.success(), "{args:?} {url}: {said}");
                assert!(!said.contains(PASSWORD), "{args:?} {url}: {said}");
                assert!(said.contains("127.0.0.1"), "{args:?} {url}: {said}");
            }
        }
    }
}
