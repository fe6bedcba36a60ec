//! End-to-end: the real `dispatch` binary as a subprocess, spoken to over TCP.
//!
//! The binary is dispatch-http's `dispatch`, built (or found up to date) before the first test.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};

/// The `dispatch` binary next to this test's profile directory, brought up to date once per run.
/// The build asks for what `cargo test --workspace` builds (same feature unification), so under
/// that command it is a no-op; the binary comes with dispatch-http's integration tests.
fn binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test path");
            // target/<profile>/deps/e2e-<hash> -> target/<profile>/dispatch
            let profile_dir = exe.parent().and_then(Path::parent).expect("target dir");
            let mut build = Command::new(env!("CARGO"));
            build.args(["build", "--quiet", "--workspace", "--tests"]);
            if profile_dir.ends_with("release") {
                build.arg("--release");
            }
            let status = build.status().expect("cargo build");
            assert!(status.success(), "building the dispatch binary failed");
            profile_dir.join(format!("dispatch{}", std::env::consts::EXE_SUFFIX))
        })
        .clone()
}

/// A running `dispatch serve`.
struct Server {
    child: Child,
    stdout: BufReader<ChildStdout>,
    addr: String,
    access_key: Option<String>,
}

impl Server {
    fn start(db: &Path) -> Server {
        Server::start_with(db, &["--rate-limits", "off"])
    }

    fn start_with(db: &Path, flags: &[&str]) -> Server {
        let mut child = Command::new(binary())
            .args(["serve", "--listen", "127.0.0.1:0", "--db"])
            .arg(db)
            .args(flags)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn dispatch serve");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        // Owned by the guard from here on, so a failed start still reaps the process.
        let mut server = Server {
            child,
            stdout,
            addr: String::new(),
            access_key: None,
        };
        loop {
            let mut line = String::new();
            let n = server.stdout.read_line(&mut line).expect("read stdout");
            assert!(n > 0, "serve exited before listening");
            let line = line.trim_end();
            if let Some(key) = line.strip_prefix("access key: ") {
                server.access_key = Some(key.to_owned());
            } else if let Some(url) = line.strip_prefix("listening on http://") {
                let addr = url.strip_suffix("/v2").expect("line ends with /v2");
                assert!(!addr.ends_with(":0"), "the real port is printed: {line}");
                server.addr = addr.to_owned();
                return server;
            } else {
                panic!("unexpected stdout line: {line}");
            }
        }
    }

    /// One HTTP/1.1 request with `Connection: close`; returns status and JSON body.
    fn call(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let body = body.map(Value::to_string).unwrap_or_default();
        let mut request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
            self.addr
        );
        if let Some(key) = key {
            request.push_str(&format!("x-access-key: {key}\r\n"));
        }
        if !body.is_empty() {
            request.push_str("content-type: application/json\r\n");
        }
        request.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
        stream.write_all(request.as_bytes()).expect("write");
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).expect("read");
        let text = String::from_utf8_lossy(&raw);
        let (head, body) = text.split_once("\r\n\r\n").expect("http response");
        let status: u16 = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("status");
        let body = if body.is_empty() {
            Value::Null
        } else {
            serde_json::from_str(body).unwrap_or_else(|_| panic!("non-JSON body: {body}"))
        };
        (status, body)
    }

    fn kill_hard(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reap");
    }

    #[cfg(unix)]
    fn terminate(mut self) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .expect("kill -TERM");
        assert!(status.success());
        let mut rest = String::new();
        self.stdout.read_to_string(&mut rest).expect("drain stdout");
        self.child.wait().expect("wait")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn seed(db: &Path, file: &Value) -> Value {
    let mut child = Command::new(binary())
        .args(["seed", "--db"])
        .arg(db)
        .arg("-")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn seed");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(file.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().expect("seed output");
    assert!(
        out.status.success(),
        "seed failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("seed prints JSON")
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
    let (status, body) = server.call("GET", "/v2/depots", Some(&key), None);
    assert_eq!(status, 200);
    assert_eq!(body["depots"][0]["name"], "Default");
    let (status, body) = server.call("GET", "/healthz", None, None);
    assert_eq!((status, &body["status"]), (200, &json!("ok")));
    let (status, body) = server.call("GET", "/v2/depots", None, None);
    assert_eq!((status, &body["name"]), (401, &json!("UNAUTHORIZED")));
    server.kill_hard();
    // A second start on the same database prints no key.
    let again = Server::start(&db);
    assert!(again.access_key.is_none());
    let (status, _) = again.call("GET", "/v2/depots", Some(&key), None);
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
    let (status, body) = server.call("GET", "/v2/capacities", Some(key), None);
    assert_eq!(status, 200);
    assert_eq!(
        body["capacities"][0]["id"],
        depot["capacity_types"][0]["id"]
    );
    let group = &depot["zone_groups"][0]["id"];
    let (status, body) = server.call(
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
        let (status, body) = server.call("POST", "/v2/vehicles", Some(&key), Some(&body));
        assert_eq!(status, 200, "{body}");
        acknowledged.push(body["vehicle"]["id"].as_i64().unwrap());
    }
    let (status, _) = server.call(
        "PUT",
        &format!("/v2/vehicles/{}", acknowledged[0]),
        Some(&key),
        Some(&json!({"name": "Renamed"})),
    );
    assert_eq!(status, 200);
    let (status, _) = server.call(
        "DELETE",
        &format!("/v2/vehicles/{}", acknowledged[1]),
        Some(&key),
        None,
    );
    assert_eq!(status, 200);
    server.kill_hard();

    let restarted = Server::start(&db);
    let (status, body) = restarted.call("GET", "/v2/vehicles", Some(&key), None);
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
    let (status, _) = server.call("POST", "/v2/vehicles", Some(&key), Some(&json!({"name": "V", "availability": "always", "start_location": "depot", "end_location": "depot"})));
    assert_eq!(status, 200);
    let exit = server.terminate();
    assert!(exit.success(), "{exit:?}");
    let restarted = Server::start(&db);
    let (_, body) = restarted.call("GET", "/v2/vehicles", Some(&key), None);
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
        .map(|_| limited.call("GET", "/v2/depots", Some(&key), None).0)
        .collect();
    assert!(statuses.contains(&403), "{statuses:?}");
    limited.kill_hard();
    let open = Server::start_with(&db, &["--rate-limits", "off"]);
    let statuses: Vec<u16> = (0..10)
        .map(|_| open.call("GET", "/v2/depots", Some(&key), None).0)
        .collect();
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
}
