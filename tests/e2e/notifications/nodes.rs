//! Notification sends across processes: two `dispatch worker`s beside an API-only `serve` on
//! one database (SQLite, or PostgreSQL under `DISPATCH_TEST_DB=postgres`). The worker sending a
//! task renews its lease while the gateway holds the request, so the other worker leaves the
//! task alone; killed with `kill -9` mid-send, it loses the lease and the other worker sends
//! the task again, with the same idempotency key.

use std::time::Duration;

use serde_json::json;

use super::receiver::{Behaviour, Receiver};
use super::support::worker::Worker;
use super::support::{db_arg, Server};
use super::{orders, seed, wait_status};

#[test]
fn a_task_whose_worker_died_mid_send_is_sent_by_another_worker_with_the_same_key() {
    let gateway = Receiver::start(Behaviour::Silent);
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("n.db");
    let d = seed(&db);
    let api = Server::start_with(&db, &["--rate-limits", "off", "--workers", "off"]);
    let [p, ..] = orders(&api, &d.key);
    let r = api.post(
        "/v2/notifications/schedule/orders",
        &d.key,
        &json!({"orders": [p], "templates": [d.sms]}),
    );
    assert_eq!(r.status, 200, "{}", r.json());

    let url = gateway.url();
    let flags = [
        "--workers",
        "0",
        "--sms-gateway-url",
        url.as_str(),
        "--notification-lease",
        "1",
    ];
    let db = db_arg(&db);
    let first = Worker::start(&db, "sender-1", dir.path(), &flags);
    let hits = gateway.wait_for(1, Duration::from_secs(15));
    assert_eq!(hits.len(), 1, "the first worker sends");
    // The gateway holds the request; the lease (1 s) is renewed meanwhile, so the second
    // worker does not take the task over.
    let second = Worker::start(&db, "sender-2", dir.path(), &flags);
    std::thread::sleep(Duration::from_millis(2_500));
    assert_eq!(gateway.count(), 1, "a renewed lease is not taken over");
    assert_eq!(
        wait_status(&api, &d.key, "Scheduled", 1)
            .as_array()
            .unwrap()
            .len(),
        1
    );

    gateway.set(Behaviour::Ok);
    drop(first); // kill -9 mid-send
    let hits = gateway.wait_for(2, Duration::from_secs(15));
    assert_eq!(hits.len(), 2, "the second worker sends the task again");
    let sent = wait_status(&api, &d.key, "Sent", 1);
    let task = &sent[0];
    assert_eq!(task["sender"], format!("sms-gateway:{url}"), "{task}");
    let key = format!("notification-task-{}", task["id"]);
    assert_eq!(hits[0].headers["idempotency-key"], key);
    assert_eq!(hits[1].headers["idempotency-key"], key);
    assert_eq!(hits[1].body, hits[0].body);
    std::thread::sleep(Duration::from_millis(1_500));
    assert_eq!(gateway.count(), 2, "sent once more, not again");
    drop(second);
}
