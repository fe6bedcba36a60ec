//! `POST /vroom` through the real `dispatch serve` process: off unless `--vroom-api on` (or
//! `DISPATCH_VROOM_API`), VROOM's answers to VROOM's problems, VROOM's `{code, error}` for every
//! failure, the access key and the strict rate tier.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

/// A running `dispatch serve`, killed on drop.
struct Server {
    child: Child,
    addr: String,
    key: String,
    _dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Reply {
    status: u16,
    head: String,
    json: Value,
}

impl Server {
    fn start(flags: &[&str], env: &[(&str, &str)]) -> Server {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut child = Command::new(env!("CARGO_BIN_EXE_dispatch"))
            .args([
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--vroom-time-limit",
                "0.5",
            ])
            .args(flags)
            .arg("--db")
            .arg(dir.path().join("dispatch.db"))
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn dispatch serve");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut key = String::new();
        let addr = loop {
            let mut line = String::new();
            assert!(
                stdout.read_line(&mut line).expect("stdout") > 0,
                "serve exited"
            );
            let line = line.trim_end();
            if let Some(k) = line.strip_prefix("access key: ") {
                key = k.to_owned();
            } else if let Some(url) = line.strip_prefix("listening on http://") {
                break url.trim_end_matches("/v2").to_owned();
            }
        };
        Server {
            child,
            addr,
            key,
            _dir: dir,
        }
    }

    fn post(&self, body: &str, key: Option<&str>) -> Reply {
        let mut stream = TcpStream::connect(&self.addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .expect("timeout");
        let mut request = format!(
            "POST /vroom HTTP/1.1\r\nhost: {}\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            self.addr,
            body.len()
        );
        if let Some(key) = key {
            request.push_str(&format!("x-access-key: {key}\r\n"));
        }
        request.push_str("\r\n");
        request.push_str(body);
        stream.write_all(request.as_bytes()).expect("send");
        let mut raw = String::new();
        stream.read_to_string(&mut raw).expect("receive");
        let (head, body) = raw.split_once("\r\n\r\n").expect("a header block");
        Reply {
            status: head[9..12].parse().expect("a status code"),
            head: head.to_ascii_lowercase(),
            json: serde_json::from_str(body).unwrap_or_else(|e| panic!("{e}: {body}")),
        }
    }

    fn post_keyed(&self, body: &str) -> Reply {
        self.post(body, Some(&self.key.clone()))
    }
}

fn problem(name: &str) -> (String, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dispatch-core/tests/vroom_answers");
    let read = |file: String| std::fs::read_to_string(dir.join(file)).unwrap();
    (
        read(format!("{name}.json")),
        serde_json::from_str(&read(format!("{name}.vroom-answer.json"))).unwrap(),
    )
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

fn assert_vroom_error(reply: &Reply, status: u16, code: u64) {
    assert_eq!(reply.status, status, "{}", reply.json);
    assert_eq!(reply.json["code"], code, "{}", reply.json);
    assert!(reply.json["error"].is_string(), "{}", reply.json);
    assert_eq!(keys(&reply.json), ["code", "error"]);
    assert!(
        reply.head.contains("content-type: application/json"),
        "{}",
        reply.head
    );
}

#[test]
fn a_vroom_problem_gets_vroom_s_answer_with_the_access_key() {
    let server = Server::start(&["--vroom-api", "on", "--rate-limits", "off"], &[]);
    let (body, theirs) = problem("shipments");
    // vroom-express's options object rides along.
    let mut with_options: Value = serde_json::from_str(&body).unwrap();
    with_options["options"] = serde_json::json!({"t": 2, "x": 5, "g": false});
    let reply = server.post_keyed(&with_options.to_string());
    assert_eq!(reply.status, 200, "{}", reply.json);
    let ours = &reply.json;
    assert_eq!(ours["code"], 0);
    assert_eq!(keys(ours), keys(&theirs));
    assert_eq!(keys(&ours["summary"]), keys(&theirs["summary"]));
    assert_eq!(keys(&ours["routes"][0]), keys(&theirs["routes"][0]));
    let visits: usize = ours["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["steps"].as_array().unwrap().len() - 2)
        .sum();
    let left = ours["summary"]["unassigned"].as_u64().unwrap() as usize;
    assert_eq!(visits + left, 8 + 2 * 9);
    assert_eq!(ours["unassigned"].as_array().unwrap().len(), left);
}

#[test]
fn failures_are_vroom_errors_with_vroom_express_s_statuses() {
    let server = Server::start(&["--vroom-api", "on", "--rate-limits", "off"], &[]);
    let (body, _) = problem("tw-jobs");
    assert_vroom_error(&server.post(&body, None), 401, 2);
    assert_vroom_error(&server.post(&body, Some("not-a-key")), 401, 2);
    assert_vroom_error(&server.post_keyed("{\"vehicles\": ["), 400, 2);
    let no_tasks = server.post_keyed(r#"{"vehicles": [{"id": 1}]}"#);
    assert_vroom_error(&no_tasks, 400, 2);
    assert!(no_tasks.json["error"]
        .as_str()
        .unwrap()
        .contains("please add vehicles and jobs or shipments"));
    // A key the reader refuses is refused here the same way, at its path.
    let mut refused: Value = serde_json::from_str(&body).unwrap();
    refused["vehicles"][1]["max_distance"] = 1000.into();
    let reply = server.post_keyed(&refused.to_string());
    assert_vroom_error(&reply, 400, 2);
    assert!(
        reply.json["error"]
            .as_str()
            .unwrap()
            .starts_with("vehicles[1].max_distance: is not supported"),
        "{}",
        reply.json
    );
    let mut outside: Value = serde_json::from_str(&body).unwrap();
    outside["jobs"][0]["location_index"] = 99.into();
    assert_vroom_error(&server.post_keyed(&outside.to_string()), 400, 2);
}

#[test]
fn the_endpoint_is_off_unless_switched_on_by_flag_or_variable() {
    let (body, _) = problem("tight");
    let off = Server::start(&["--rate-limits", "off"], &[]);
    assert_eq!(off.post_keyed(&body).status, 404);
    let on = Server::start(&["--rate-limits", "off"], &[("DISPATCH_VROOM_API", "on")]);
    let reply = on.post_keyed(&body);
    assert_eq!(reply.status, 200, "{}", reply.json);
    assert_eq!(reply.json["code"], 0);
}

#[test]
fn the_strict_rate_tier_answers_in_vroom_s_shape() {
    let server = Server::start(&["--vroom-api", "on", "--rate-limits", "on"], &[]);
    // The strict tier allows two calls in 15 s: the third at once is refused.
    let bad = r#"{"vehicles": [{"id": 1}], "jobs": [{"id": 1, "location_index": 5}]}"#;
    let replies: Vec<Reply> = (0..3).map(|_| server.post_keyed(bad)).collect();
    assert_vroom_error(&replies[0], 400, 2);
    assert_vroom_error(&replies[1], 400, 2);
    let limited = &replies[2];
    assert!(matches!(limited.status, 403 | 429), "{}", limited.status);
    assert_vroom_error(limited, limited.status, 2);
    assert!(limited.head.contains("retry-after:"), "{}", limited.head);
}
