//! The middleware through the real `dispatch serve` process: the `--rate-limits` switch and
//! idempotency records that outlive a `kill -9`.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::serve::Server;

#[path = "../../../dispatch-http/tests/shared/test_db.rs"]
mod test_db;

/// `dispatch serve` on `db` with `--rate-limits` set to `rate_limits`.
fn start(db: &Path, rate_limits: &str) -> Server {
    let db = test_db::db_arg(db);
    Server::start(&["--rate-limits", rate_limits, "--db", &db], &[])
}

const VEHICLE: &str =
    r#"{"name":"Van","availability":"always","start_location":"depot","end_location":"depot"}"#;

#[test]
fn rate_limits_on_reject_a_second_reference_call_within_a_second_and_off_does_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("dispatch.db");
    let key = {
        let on = start(&db, "on");
        let key = on.key.clone().expect("first start prints the key");
        let auth = [("x-access-key", key.as_str())];
        // Real time: a pair only counts if it fitted in the one-second burst window (a loaded
        // machine may be slower than that); a slow pair is retried once the window has passed.
        let limited = (0..5)
            .find_map(|_| {
                std::thread::sleep(Duration::from_millis(1100));
                let started = Instant::now();
                assert_eq!(on.call("GET", "/v2/vehicles", &auth, "").status, 200);
                let second = on.call("GET", "/v2/vehicles", &auth, "");
                (started.elapsed() < Duration::from_millis(900)).then_some(second)
            })
            .expect("two calls within a second");
        assert_eq!(limited.status, 403, "{}", limited.body);
        assert!(
            limited.head.contains("\r\nretry-after: 1"),
            "{}",
            limited.head
        );
        assert!(
            limited.body.contains(r#""retry_after_seconds":1"#),
            "{}",
            limited.body
        );
        key
    };
    let off = start(&db, "off");
    for _ in 0..10 {
        let r = off.call("GET", "/v2/vehicles", &[("x-access-key", key.as_str())], "");
        assert_eq!(r.status, 200, "{}", r.body);
    }
}

#[test]
fn an_idempotent_post_is_replayed_after_kill_9_and_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("dispatch.db");
    let mut first = start(&db, "off");
    let key = first.key.clone().expect("first start prints the key");
    let headers = [
        ("x-access-key", key.as_str()),
        ("idempotency-key", "order-42"),
    ];
    let original = first.call("POST", "/v2/vehicles", &headers, VEHICLE);
    assert_eq!(original.status, 200, "{}", original.body);
    first.child.kill().expect("kill -9");
    first.child.wait().expect("reaped");

    let second = start(&db, "off");
    let replay = second.call("POST", "/v2/vehicles", &headers, VEHICLE);
    assert_eq!(replay.status, 200, "{}", replay.body);
    assert!(
        replay.head.contains("\r\nidempotency-replay: true"),
        "{}",
        replay.head
    );
    assert_eq!(replay.body, original.body);
    let list = second.call("GET", "/v2/vehicles", &headers[..1], "");
    assert_eq!(
        list.body.matches(r#""name":"Van""#).count(),
        1,
        "{}",
        list.body
    );
}
