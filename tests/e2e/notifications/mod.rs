//! Notifications through the real binary (spec: Notifications, the notification task and
//! template resources): scheduling with its per-pair errors, 404s and input errors, the task
//! list with its filters and paging, sending at the scheduled time by the embedded default
//! (recorded, named as such), by SMTP to a loopback SMTP server, and by the HTTP SMS gateway;
//! gateway refusals end Failed; a restart sends nothing twice; every send carries the task's
//! key. nodes.rs: a worker killed mid-send, the task sent by another worker.

use crate::{receiver, support};
mod nodes;
mod redirects;
mod smtp_server;

use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use serde_json::{json, Value};

use receiver::{Behaviour, Receiver};
use smtp_server::SmtpServer;
use support::{Request, Server};

struct Depot {
    key: String,
    sms: i64,
    email: i64,
}

fn seed(db: &Path) -> Depot {
    let out = support::seed(
        db,
        &json!({"organisations": [{"name": "Acme", "depots": [{"name": "North",
            "access_keys": [{"name": "k", "permission": "all"}],
            "notification_templates": [
                {"type": "SMS", "name": "Soon", "body": "Hi {contact_name}, order {order_number} comes {delivery_date}"},
                {"type": "EMAIL", "name": "Your delivery", "body": "Order {order_number} from {depot_name}"}],
            "settings": {"notifications": {"planned_start_template": "Soon", "on_delivery_template": "Soon", "on_delivery_window_minutes": 30}}
        }]}]}),
    );
    let depot = &out["organisations"][0]["depots"][0];
    Depot {
        key: depot["access_keys"][0]["key"].as_str().unwrap().to_owned(),
        sms: depot["notification_templates"][0]["id"].as_i64().unwrap(),
        email: depot["notification_templates"][1]["id"].as_i64().unwrap(),
    }
}

/// Orders: P (phone), E (e-mail), N (neither); their ids.
fn orders(server: &Server, key: &str) -> [i64; 3] {
    let r = server.post(
        "/v2/orders",
        key,
        &json!([
            {"order_number": "P", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1,
             "delivery_contact_name": "Ann", "delivery_contact_number": "+441234", "delivery_date": "2026-12-01"},
            {"order_number": "E", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1,
             "delivery_contact_email": "bob@example.com"},
            {"order_number": "N", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1}
        ]),
    );
    assert_eq!(r.status, 200, "{}", r.json());
    let ids: Vec<i64> = r.json()["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["id"].as_str().unwrap().parse().unwrap())
        .collect();
    [ids[0], ids[1], ids[2]]
}

fn tasks(server: &Server, key: &str, query: &str) -> Value {
    let r = server.get(&format!("/v2/notification-tasks{query}"), key);
    assert_eq!(r.status, 200, "{}", r.json());
    r.json()["notification_tasks"].clone()
}

fn wait_status(server: &Server, key: &str, want: &str, n: usize) -> Value {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let t = tasks(server, key, &format!("?status={want}"));
        if t.as_array().unwrap().len() >= n || Instant::now() > deadline {
            return t;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Schedules the depot's SMS for one order now and waits for its task to fail.
fn schedule_sms_until_failed(server: &Server, d: &Depot, order: i64) -> Value {
    let r = server.post(
        "/v2/notifications/schedule/orders",
        &d.key,
        &json!({"orders": [order], "templates": [d.sms]}),
    );
    assert_eq!(r.status, 200);
    wait_status(server, &d.key, "Failed", 1)
}

fn utc_in(seconds: u64) -> String {
    let at = SystemTime::now() + Duration::from_secs(seconds);
    let ms = at
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let secs = ms / 1000;
    let (days, rest) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    // Civil date from days since the epoch (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60,
        ms % 1000
    )
}

#[test]
fn scheduling_reports_unsendable_pairs_and_the_default_sender_records_tasks_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    let d = seed(&db);
    let server = Server::start(&db);
    let [p, e, n] = orders(&server, &d.key);
    let body = json!({"orders": [p, e, n], "templates": [d.sms, d.email]});
    let r = server.send(
        Request::new("POST", "/v2/notifications/schedule/orders", Some(&d.key))
            .json(&body)
            .header("idempotency-key", "sched-1"),
    );
    assert_eq!(r.status, 200, "{}", r.json());
    let out = r.json();
    let scheduled: Vec<i64> = out["notifications"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["order_id"].as_i64().unwrap())
        .collect();
    assert_eq!(scheduled, [p, e]);
    let errors = out["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 4, "{out}");
    for err in errors {
        for field in [
            "name",
            "description",
            "statusCode",
            "isOperational",
            "sendAlert",
            "sourceError",
            "details",
            "timestamp",
        ] {
            assert!(err.get(field).is_some(), "{field} in {err}");
        }
        assert_eq!(err["statusCode"], 400);
        assert!(err["details"]["order_number"].is_string());
    }
    let replay = server.send(
        Request::new("POST", "/v2/notifications/schedule/orders", Some(&d.key))
            .json(&body)
            .header("idempotency-key", "sched-1"),
    );
    assert_eq!(replay.header("idempotency-replay"), Some("true"));
    assert_eq!(replay.json(), out);

    // The embedded default sender delivers nothing: its tasks are Recorded, never Sent.
    let sent = wait_status(&server, &d.key, "Recorded", 2);
    assert_eq!(sent.as_array().unwrap().len(), 2, "{sent}");
    assert_eq!(tasks(&server, &d.key, "?status=Sent"), json!([]));
    let sms = sent
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "SMS")
        .unwrap();
    assert_eq!(sms["to"], "+441234");
    assert_eq!(sms["message"], "Hi Ann, order P comes 2026-12-01");
    assert_eq!(sms["order"], json!({"id": p, "order_number": "P"}));
    assert_eq!(sms["template"], json!({"id": d.sms}));
    assert_eq!(sms["visit"], Value::Null);
    assert!(
        support::is_timestamp(&sms["sent_date"]) && support::is_timestamp(&sms["scheduled_date"])
    );
    assert!(
        sms["sender"].as_str().unwrap().starts_with("recorded-only"),
        "{sms}"
    );
    let mail = sent
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "EMAIL")
        .unwrap();
    assert_eq!(
        (mail["to"].as_str(), mail["subject"].as_str()),
        (Some("bob@example.com"), Some("Your delivery"))
    );
    assert_eq!(mail["message"], "Order E from North");
}

#[test]
fn bad_schedule_calls_are_refused_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    let d = seed(&db);
    let server = Server::start(&db);
    let [p, ..] = orders(&server, &d.key);
    let post = |body: Value| server.post("/v2/notifications/schedule/orders", &d.key, &body);
    post(json!({"orders": [p, 999_999], "templates": [d.sms]}))
        .assert_envelope("RESOURCE_NOT_FOUND", 404);
    post(json!({"orders": [p], "templates": [d.sms, 999_999]}))
        .assert_envelope("RESOURCE_NOT_FOUND", 404);
    for bad in [
        json!({"templates": [d.sms]}),
        json!({"orders": [p]}),
        json!({"orders": [p], "templates": [d.sms, d.email, d.sms + d.email]}),
        json!({"orders": ["x"], "templates": [d.sms]}),
        json!({"orders": [p], "templates": [d.sms], "send_time_utc": "tomorrow"}),
        json!([p]),
    ] {
        post(bad).assert_envelope("INVALID_INPUT", 400);
    }
    assert!(tasks(&server, &d.key, "").as_array().unwrap().is_empty());
}

#[test]
fn task_list_filters_pages_and_orders_by_last_update() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    let d = seed(&db);
    let server = Server::start(&db);
    let [p, e, _] = orders(&server, &d.key);
    let later = utc_in(3600);
    for (o, t) in [(p, d.sms), (e, d.email), (p, d.sms)] {
        let r = server.post(
            "/v2/notifications/schedule/orders",
            &d.key,
            &json!({"orders": [o], "templates": [t], "send_time_utc": later}),
        );
        assert_eq!(r.status, 200);
    }
    let all = tasks(&server, &d.key, "");
    let ids: Vec<i64> = all
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(ids, sorted, "most recently updated first");
    assert!(all
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["status"] == "Scheduled" && t["scheduled_date"] == later.as_str()));
    assert_eq!(
        tasks(&server, &d.key, "?type=sms")
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        tasks(&server, &d.key, "?type=Email")
            .as_array()
            .unwrap()
            .len(),
        1
    );
    server
        .get("/v2/notification-tasks?type=fax", &d.key)
        .assert_envelope("INVALID_INPUT", 400);
    assert_eq!(
        tasks(&server, &d.key, "?status=Scheduled")
            .as_array()
            .unwrap()
            .len(),
        3
    );
    assert!(
        tasks(&server, &d.key, "?status=scheduled")
            .as_array()
            .unwrap()
            .is_empty(),
        "exact match"
    );
    let first = server.get("/v2/notification-tasks?limit=2&type=SMS", &d.key);
    assert_eq!(
        first.json()["notification_tasks"].as_array().unwrap().len(),
        2
    );
    let next = first.next_link();
    assert!(next.is_none(), "two SMS tasks fit one page of 2");
    let first = server.get("/v2/notification-tasks?limit=1", &d.key);
    let next = first.next_link().expect("a next page");
    let second = server.get(&next, &d.key);
    assert_eq!(second.json()["notification_tasks"][0]["id"], ids[1]);
}

#[test]
fn tasks_go_out_at_their_time_through_smtp_and_the_sms_gateway_and_never_twice() {
    let smtp = SmtpServer::start();
    let gateway = Receiver::start(Behaviour::Ok);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    let d = seed(&db);
    let flags = [
        "--rate-limits",
        "off",
        "--smtp-url",
        &format!("smtp://{}", smtp.addr),
        "--smtp-from",
        "dispatch@example.com",
        "--sms-gateway-url",
        &gateway.url(),
        "--sms-gateway-auth",
        "Bearer t0ken",
    ];
    let server = Server::start_with(&db, &flags);
    let [p, e, _] = orders(&server, &d.key);
    let soon = utc_in(2);
    let r = server.post(
        "/v2/notifications/schedule/orders",
        &d.key,
        &json!({"orders": [p, e], "templates": [d.sms, d.email], "send_time_utc": soon}),
    );
    assert_eq!(r.status, 200);
    std::thread::sleep(Duration::from_millis(700));
    assert!(
        smtp.mails().is_empty() && gateway.count() == 0,
        "not before its time"
    );
    let sent = wait_status(&server, &d.key, "Sent", 2);
    assert_eq!(sent.as_array().unwrap().len(), 2, "{sent}");
    let mails = smtp.mails();
    assert_eq!(mails.len(), 1);
    assert_eq!(mails[0].from, "<dispatch@example.com>");
    assert_eq!(mails[0].to, ["<bob@example.com>"]);
    assert!(
        mails[0].data.contains("Subject: Your delivery"),
        "{}",
        mails[0].data
    );
    assert!(
        mails[0].data.contains("Order E from North"),
        "{}",
        mails[0].data
    );
    let hits = gateway.hits();
    assert_eq!(hits.len(), 1);
    assert_eq!(
        hits[0].body,
        json!({"to": "+441234", "message": "Hi Ann, order P comes 2026-12-01"})
    );
    assert_eq!(hits[0].headers["authorization"], "Bearer t0ken");
    let of_type = |channel: &str| {
        let task = sent
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["type"] == channel);
        format!("notification-task-{}", task.unwrap()["id"])
    };
    assert_eq!(hits[0].headers["idempotency-key"], of_type("SMS"));
    let message_id = format!("message-id: <{}@example.com>", of_type("EMAIL"));
    assert!(
        mails[0].data.to_lowercase().contains(&message_id),
        "{}",
        mails[0].data
    );
    let senders: Vec<String> = sent
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["sender"].as_str().unwrap().to_owned())
        .collect();
    assert!(
        senders.contains(&format!("smtp:{}", smtp.addr)),
        "{senders:?}"
    );
    assert!(
        senders.contains(&format!("sms-gateway:{}", gateway.url())),
        "{senders:?}"
    );

    server.kill_hard();
    let server = Server::start_with(&db, &flags);
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(
        (smtp.mails().len(), gateway.count()),
        (1, 1),
        "nothing sent twice after a restart"
    );

    gateway.set(Behaviour::Status(503));
    let failed = schedule_sms_until_failed(&server, &d, p);
    assert_eq!(failed[0]["error"], "SMS gateway answered HTTP 503");
    assert_eq!(failed[0]["sent_date"], Value::Null);
}

#[test]
fn seed_refuses_notification_settings_naming_an_unknown_template() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    let out = std::process::Command::new(support::binary())
        .args(["seed", "--db"])
        .arg(support::db_arg(&db))
        .arg("-")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            use std::io::Write;
            c.stdin.take().unwrap().write_all(
                json!({"organisations": [{"name": "A", "depots": [{"name": "D",
                    "settings": {"notifications": {"planned_start_template": "Missing"}}}]}]})
                .to_string()
                .as_bytes(),
            )?;
            c.wait_with_output()
        })
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no notification template named \"Missing\"")
    );
}
