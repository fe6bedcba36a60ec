//! `POST /vroom` through the real `dispatch serve` process: off unless `--vroom-api on` (or
//! `DISPATCH_VROOM_API`), VROOM's answers to VROOM's problems, VROOM's `{code, error}` for every
//! failure, the access key and the strict rate tier.

use std::ffi::OsStr;
use std::path::Path;

use serde_json::Value;

use crate::serve::Server;

/// `dispatch serve` with `POST /vroom`'s flags, on a database of its own.
struct Vroom {
    server: Server,
    key: String,
    _dir: tempfile::TempDir,
}

/// A `POST /vroom` answer with its JSON body.
struct Reply {
    status: u16,
    head: String,
    json: Value,
}

impl Vroom {
    fn start(flags: &[&str], env: &[(&str, &str)]) -> Vroom {
        let dir = tempfile::tempdir().expect("temp dir");
        let db = dir.path().join("dispatch.db");
        let mut args = vec![OsStr::new("--vroom-time-limit"), OsStr::new("0.5")];
        args.extend(flags.iter().map(OsStr::new));
        args.extend([OsStr::new("--db"), db.as_os_str()]);
        let server = Server::start(&args, env);
        Vroom {
            key: server.key.clone().expect("a first start prints the key"),
            server,
            _dir: dir,
        }
    }

    fn post(&self, body: &str, key: Option<&str>) -> Reply {
        let headers: Vec<(&str, &str)> = key.map(|k| ("x-access-key", k)).into_iter().collect();
        let reply = self.server.call("POST", "/vroom", &headers, body);
        Reply {
            status: reply.status,
            head: reply.head,
            json: serde_json::from_str(&reply.body)
                .unwrap_or_else(|e| panic!("{e}: {}", reply.body)),
        }
    }

    fn post_keyed(&self, body: &str) -> Reply {
        self.post(body, Some(&self.key))
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
    let server = Vroom::start(&["--vroom-api", "on", "--rate-limits", "off"], &[]);
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
    let server = Vroom::start(&["--vroom-api", "on", "--rate-limits", "off"], &[]);
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
    let off = Vroom::start(&["--rate-limits", "off"], &[]);
    assert_eq!(off.post_keyed(&body).status, 404);
    let on = Vroom::start(&["--rate-limits", "off"], &[("DISPATCH_VROOM_API", "on")]);
    let reply = on.post_keyed(&body);
    assert_eq!(reply.status, 200, "{}", reply.json);
    assert_eq!(reply.json["code"], 0);
}

#[test]
fn the_strict_rate_tier_answers_in_vroom_s_shape() {
    let server = Vroom::start(&["--vroom-api", "on", "--rate-limits", "on"], &[]);
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
