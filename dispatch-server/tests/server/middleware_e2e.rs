//! The middleware through the real `dispatch serve` process: the `--rate-limits` switch and
//! idempotency records that outlive a `kill -9`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "../../../dispatch-http/tests/shared/test_db.rs"]
mod test_db;

/// A running `dispatch serve`, killed on drop.
struct Server {
    child: Child,
    addr: String,
    key: Option<String>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Server {
    fn start(db: &Path, rate_limits: &str) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dispatch"))
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--rate-limits",
                rate_limits,
                "--db",
            ])
            .arg(test_db::db_arg(db))
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn dispatch serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut server = Server {
            child,
            addr: String::new(),
            key: None,
        };
        loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).expect("stdout") > 0,
                "serve exited"
            );
            let line = line.trim_end();
            if let Some(key) = line.strip_prefix("access key: ") {
                server.key = Some(key.to_owned());
            } else if let Some(url) = line.strip_prefix("listening on http://") {
                server.addr = url.trim_end_matches("/v2").to_owned();
                return server;
            }
        }
    }

    /// One HTTP/1.1 exchange; returns the status, the raw header block and the body.
    fn call(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Reply {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("timeout");
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nhost: {}\r\nconnection: close\r\ncontent-length: {}\r\n",
            self.addr,
            body.len()
        );
        if !body.is_empty() {
            request.push_str("content-type: application/json\r\n");
        }
        for (k, v) in headers {
            request.push_str(&format!("{k}: {v}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).expect("send");
        let mut raw = String::new();
        stream.read_to_string(&mut raw).expect("receive");
        let (head, body) = raw.split_once("\r\n\r\n").expect("a header block");
        let status = head[9..12].parse().expect("a status code");
        Reply {
            status,
            head: head.to_ascii_lowercase(),
            body: body.to_owned(),
        }
    }
}

struct Reply {
    status: u16,
    head: String,
    body: String,
}

const VEHICLE: &str =
    r#"{"name":"Van","availability":"always","start_location":"depot","end_location":"depot"}"#;

#[test]
fn rate_limits_on_reject_a_second_reference_call_within_a_second_and_off_does_not() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("dispatch.db");
    let key = {
        let on = Server::start(&db, "on");
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
    let off = Server::start(&db, "off");
    for _ in 0..10 {
        let r = off.call("GET", "/v2/vehicles", &[("x-access-key", key.as_str())], "");
        assert_eq!(r.status, 200, "{}", r.body);
    }
}

#[test]
fn an_idempotent_post_is_replayed_after_kill_9_and_a_restart() {
    let dir = tempfile::tempdir().expect("temp dir");
    let db = dir.path().join("dispatch.db");
    let mut first = Server::start(&db, "off");
    let key = first.key.clone().expect("first start prints the key");
    let headers = [
        ("x-access-key", key.as_str()),
        ("idempotency-key", "order-42"),
    ];
    let original = first.call("POST", "/v2/vehicles", &headers, VEHICLE);
    assert_eq!(original.status, 200, "{}", original.body);
    first.child.kill().expect("kill -9");
    first.child.wait().expect("reaped");

    let second = Server::start(&db, "off");
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
