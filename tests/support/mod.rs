//! Shared by the root black-box tests (`e2e.rs`, `conformance_*.rs`): the real `dispatch` binary
//! as a subprocess, `dispatch seed`, and a raw HTTP/1.1 client that keeps status, headers and
//! body exactly as sent, so the tests see what an outside client sees. A test names its
//! database by a path; `db_arg` turns it into what `--db` takes: the path on SQLite, a
//! PostgreSQL database of this process's throwaway cluster under `DISPATCH_TEST_DB=postgres`.

#![allow(dead_code)] // each test binary uses a different part of this module

#[path = "../../dispatch-adapters/tests/adapters/support/fake_geocoder.rs"]
pub mod fake_geocoder;
pub mod refusals;
pub mod worker;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{json, Value};

#[path = "../../dispatch-http/tests/shared/test_db.rs"]
pub mod test_db;
pub use test_db::db_arg;
#[allow(dead_code)]
#[path = "../../dispatch-http/tests/contract/mod.rs"]
mod contract;

/// The `dispatch` binary next to this test's profile directory, brought up to date once per run.
/// The build asks for what `cargo test --workspace` builds (same feature unification), so under
/// that command it is a no-op; the binary comes with dispatch-server's integration tests.
///
/// The build runs without the variables cargo sets for a running test: some build scripts
/// (ring's) track `CARGO_MANIFEST_DIR`, so inheriting it rebuilt ring and everything above it,
/// dispatch-server included, here and again in the next outer `cargo` run.
pub fn binary() -> PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT
        .get_or_init(|| {
            let exe = std::env::current_exe().expect("test path");
            // target/<profile>/deps/<test>-<hash> -> target/<profile>/dispatch
            let profile_dir = exe.parent().and_then(Path::parent).expect("target dir");
            let mut build = Command::new(env!("CARGO"));
            // Tests build what `cargo test` builds (the same features, so nothing is rebuilt
            // back and forth); a release example (a benchmark) needs only the binary.
            if profile_dir.ends_with("release") {
                build.args([
                    "build",
                    "--quiet",
                    "--release",
                    "-p",
                    "dispatch-server",
                    "--bin",
                    "dispatch",
                ]);
            } else {
                build.args(["build", "--quiet", "--workspace", "--tests"]);
            }
            for (name, _) in std::env::vars_os() {
                if name.to_str().is_some_and(set_by_cargo_for_a_test) {
                    build.env_remove(&name);
                }
            }
            let status = build.status().expect("cargo build");
            assert!(status.success(), "building the dispatch binary failed");
            profile_dir.join(format!("dispatch{}", std::env::consts::EXE_SUFFIX))
        })
        .clone()
}

/// Whether `cargo test` sets `name` for the test process (never for a build it runs itself).
fn set_by_cargo_for_a_test(name: &str) -> bool {
    const EXACT: [&str; 7] = [
        "CARGO_MANIFEST_DIR",
        "CARGO_MANIFEST_PATH",
        "CARGO_CRATE_NAME",
        "CARGO_BIN_NAME",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_TARGET_TMPDIR",
        "OUT_DIR",
    ];
    EXACT.contains(&name) || name.starts_with("CARGO_PKG_") || name.starts_with("CARGO_BIN_EXE_")
}

/// One HTTP response as received.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    /// Header names in lower case, in received order (repeated headers stay separate).
    pub headers: Vec<(String, String)>,
    pub raw: Vec<u8>,
}

/// The reply's JSON after asserting a 2xx status; `what` names the step when it is not.
pub fn json_ok(reply: Reply, what: &str) -> Value {
    assert!(
        (200..300).contains(&reply.status),
        "{what}: {} {}",
        reply.status,
        String::from_utf8_lossy(&reply.raw)
    );
    reply.json()
}

impl Reply {
    /// The first value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of header `name`.
    pub fn headers_named(&self, name: &str) -> Vec<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The body as text (lossy).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.raw).into_owned()
    }

    /// The body as JSON; panics with the text when it is not JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.raw).unwrap_or_else(|_| {
            panic!(
                "status {}: non-JSON body: {}",
                self.status,
                String::from_utf8_lossy(&self.raw)
            )
        })
    }

    /// The URL of the `rel="next"` link-value, among every `Link` value.
    pub fn next_link(&self) -> Option<String> {
        self.headers_named("link")
            .into_iter()
            .flat_map(|v| v.split(','))
            .find(|part| part.contains("rel=\"next\"") || part.contains("rel=next"))
            .and_then(|part| {
                let start = part.find('<')? + 1;
                let end = part.find('>')?;
                Some(part[start..end].to_owned())
            })
    }

    /// Asserts the spec's error envelope: exactly `{name, statusCode, description, details}`,
    /// `statusCode` equal to the HTTP status, `details` an object, JSON content type. Returns
    /// the body.
    pub fn assert_envelope(&self, name: &str, status: u16) -> Value {
        assert_eq!(
            self.status,
            status,
            "expected {status} {name}, got: {}",
            String::from_utf8_lossy(&self.raw)
        );
        assert_envelope_shape(self);
        let body = self.json();
        assert_eq!(body["name"], name, "{body}");
        body
    }
}

/// Any error reply: the envelope with consistent status, never a 5xx.
pub fn assert_envelope_shape(reply: &Reply) {
    let body = reply.json();
    let ct = reply.header("content-type").unwrap_or("");
    assert!(ct.starts_with("application/json"), "content-type {ct}");
    let obj = body.as_object().expect("envelope is an object");
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["description", "details", "name", "statusCode"],
        "{body}"
    );
    assert_eq!(body["statusCode"], reply.status, "{body}");
    assert!(body["name"].is_string() && body["description"].is_string());
    assert!(body["details"].is_object(), "details is an object: {body}");
}

/// A request to send.
#[derive(Clone)]
pub struct Request<'a> {
    pub method: &'a str,
    pub path: &'a str,
    pub key: Option<&'a str>,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl<'a> Request<'a> {
    pub fn new(method: &'a str, path: &'a str, key: Option<&'a str>) -> Self {
        Request {
            method,
            path,
            key,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    pub fn json(mut self, body: &Value) -> Self {
        self.body = body.to_string().into_bytes();
        self.header("content-type", "application/json")
    }

    pub fn raw(mut self, body: impl Into<Vec<u8>>) -> Self {
        self.body = body.into();
        self
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_owned(), value.to_owned()));
        self
    }
}

/// Runs `command` (a `dispatch` subcommand) to its end and returns its output; it must exit 0,
/// else its stderr is the failure.
pub fn run_ok(command: &mut Command) -> std::process::Output {
    let out = command.output().expect("run dispatch");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A running `dispatch serve`.
pub struct Server {
    child: Child,
    stdout: BufReader<ChildStdout>,
    pub addr: String,
    pub access_key: Option<String>,
}

/// `dispatch serve --listen 127.0.0.1:0 --db DB` (any free port: the real one is printed), for
/// the caller to add flags, environment and stderr to.
pub fn serve_command(db: &Path) -> Command {
    let mut command = Command::new(binary());
    command
        .args(["serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(db_arg(db));
    command
}

impl Server {
    /// `serve --rate-limits off` on `db`.
    pub fn start(db: &Path) -> Server {
        Server::start_with(db, &["--rate-limits", "off"])
    }

    pub fn start_with(db: &Path, flags: &[&str]) -> Server {
        Server::start_with_env(db, flags, &[])
    }

    /// `serve` on `db` with `flags` and extra environment variables.
    pub fn start_with_env(db: &Path, flags: &[&str], env: &[(&str, &str)]) -> Server {
        let mut child = serve_command(db)
            .args(flags)
            .envs(env.iter().copied())
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

    /// Sends `request` (path relative to the host, or an absolute `http://` URL of this server)
    /// over a fresh connection with `Connection: close`.
    pub fn send(&self, request: Request<'_>) -> Reply {
        parse_reply(&self.exchange(request))
    }

    /// Like [`Server::send`], but returns the bytes received as they are (none when the
    /// connection closed without an answer).
    pub fn exchange(&self, request: Request<'_>) -> Vec<u8> {
        exchange(&self.addr, request)
    }

    /// `method path` with an optional JSON body.
    pub fn call(&self, method: &str, path: &str, key: Option<&str>, body: Option<&Value>) -> Reply {
        let request = Request::new(method, path, key);
        self.send(match body {
            Some(body) => request.json(body),
            None => request,
        })
    }

    pub fn get(&self, path: &str, key: &str) -> Reply {
        self.call("GET", path, Some(key), None)
    }

    /// Whether optimisation job `job` is still in progress (GET /v2/plans/optimise/{job}).
    pub fn job_in_progress(&self, key: &str, job: &str) -> bool {
        let r = self.get(&format!("/v2/plans/optimise/{job}"), key);
        assert_eq!(r.status, 200, "{}", r.text());
        r.json()["optimisation"]["in_progress"].as_bool().unwrap()
    }

    /// Polls job `job` until it is no longer in progress; fails with `what` after `within`.
    /// Three polls a second stay inside the standard rate-limit tier of a server that has it on.
    pub fn await_job(&self, key: &str, job: &str, within: Duration, what: &str) {
        let deadline = std::time::Instant::now() + within;
        while self.job_in_progress(key, job) {
            assert!(std::time::Instant::now() < deadline, "{what}");
            std::thread::sleep(Duration::from_millis(300));
        }
    }

    /// Optimises the open orders of `date` with the default settings and waits (a minute at
    /// most) until the job ends: the job's id.
    pub fn optimise_and_wait(&self, key: &str, date: &str) -> String {
        let queued = self.post(
            "/v2/plans/optimise/orders",
            key,
            &json!({"delivery_date": date, "settings": {}}),
        );
        assert_eq!(queued.status, 200, "{}", queued.text());
        let job = queued.json()["optimisation"]["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let what = format!("the job for {date} never ended");
        self.await_job(key, &job, Duration::from_secs(60), &what);
        job
    }

    pub fn post(&self, path: &str, key: &str, body: &Value) -> Reply {
        self.call("POST", path, Some(key), Some(body))
    }

    pub fn put(&self, path: &str, key: &str, body: &Value) -> Reply {
        self.call("PUT", path, Some(key), Some(body))
    }

    pub fn delete(&self, path: &str, key: &str) -> Reply {
        self.call("DELETE", path, Some(key), None)
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn kill_hard(mut self) {
        self.child.kill().expect("SIGKILL");
        self.child.wait().expect("reap");
    }

    #[cfg(unix)]
    pub fn terminate(mut self) -> std::process::ExitStatus {
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

/// A `dispatch serve` started from a command the caller built (its flags, environment and
/// stderr), once it printed its listening line; killed and reaped when dropped.
pub struct Serving {
    pub child: Child,
    /// HOST:PORT it listens on.
    pub addr: String,
    /// The stdout lines before the listening line (`access key: KEY` on a first start).
    pub printed: Vec<String>,
}

impl Serving {
    /// Spawns `command` (a `dispatch serve ...`) with stdout piped and waits for it to listen.
    pub fn start(command: &mut Command) -> Serving {
        let mut child = command
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn dispatch serve");
        let stdout = child.stdout.take().expect("stdout");
        // Owned from here on, so a failed start still reaps the process.
        let mut serving = Serving {
            child,
            addr: String::new(),
            printed: Vec::new(),
        };
        for line in BufReader::new(stdout).lines() {
            let line = line.expect("read stdout");
            if let Some(url) = line.strip_prefix("listening on http://") {
                serving.addr = url.strip_suffix("/v2").expect("ends with /v2").to_owned();
                return serving;
            }
            serving.printed.push(line);
        }
        panic!("serve exited before listening: {:?}", serving.printed);
    }

    /// SIGTERM, then waits for the exit.
    #[cfg(unix)]
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        terminate(&mut self.child)
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `request` to the server at `addr` (HOST:PORT) over a fresh connection with
/// `Connection: close`.
pub fn send(addr: &str, request: Request<'_>) -> Reply {
    let (method, path) = (request.method.to_owned(), request.path.to_owned());
    let reply = parse_reply(&exchange(addr, request));
    // Absolute URLs (paging links) are checked by their path.
    let path = match path.strip_prefix("http://") {
        Some(rest) => rest[rest.find('/').unwrap_or(rest.len())..].to_owned(),
        None => path,
    };
    contract::check_bytes(
        &method,
        &path,
        reply.status,
        reply.header("content-type"),
        &reply.raw,
    );
    reply
}

/// Like [`send`], but returns the bytes received as they are.
pub fn exchange(addr: &str, request: Request<'_>) -> Vec<u8> {
    let target = match request.path.strip_prefix("http://") {
        Some(rest) => {
            let slash = rest.find('/').expect("absolute URL with a path");
            assert_eq!(&rest[..slash], addr, "URL points at this server");
            rest[slash..].to_owned()
        }
        None => request.path.to_owned(),
    };
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .unwrap();
    let mut head = format!(
        "{} {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        request.method, addr
    );
    if let Some(key) = request.key {
        head.push_str(&format!("x-access-key: {key}\r\n"));
    }
    for (name, value) in &request.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("content-length: {}\r\n\r\n", request.body.len()));
    stream.write_all(head.as_bytes()).expect("write head");
    // The body goes out on its own thread while this one reads: the server may answer (and
    // close) before reading a refused body, and must not wait on a client stuck writing.
    let mut writer = stream.try_clone().expect("clone stream");
    let body = request.body;
    let sending = std::thread::spawn(move || {
        let _ = writer.write_all(&body);
    });
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let _ = stream.shutdown(std::net::Shutdown::Both);
    let _ = sending.join();
    raw
}

/// SIGTERM to a child, then waits for it.
#[cfg(unix)]
pub fn terminate(child: &mut Child) -> std::process::ExitStatus {
    let status = Command::new("kill")
        .arg("-TERM")
        .arg(child.id().to_string())
        .status()
        .expect("kill -TERM");
    assert!(status.success());
    child.wait().expect("wait")
}

pub fn parse_reply(raw: &[u8]) -> Reply {
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP response: {}", String::from_utf8_lossy(raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut body = raw[split + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let status: u16 = lines
        .next()
        .and_then(|l| l.split(' ').nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(n, v)| n == "transfer-encoding" && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Reply {
        status,
        headers,
        raw: body,
    }
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = data.windows(2).position(|w| w == b"\r\n") {
        let size_text = String::from_utf8_lossy(&data[..eol]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16)
            .expect("chunk size");
        if size == 0 {
            break;
        }
        let start = eol + 2;
        out.extend_from_slice(&data[start..start + size]);
        data = &data[start + size + 2..];
    }
    out
}

/// `dispatch seed --db DB -` with `file` on stdin, run to its end.
pub fn run_seed(db: &Path, file: &str) -> std::process::Output {
    let mut child = Command::new(binary())
        .args(["seed", "--db"])
        .arg(db_arg(db))
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
        .write_all(file.as_bytes())
        .unwrap();
    child.wait_with_output().expect("seed output")
}

/// `dispatch seed --db DB -` with `file` on stdin; the printed JSON.
pub fn seed(db: &Path, file: &Value) -> Value {
    let out = run_seed(db, &file.to_string());
    assert!(
        out.status.success(),
        "seed failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("seed prints JSON")
}

/// Two organisations: "Acme" with depots North (an `all` and a `read` key, reference data,
/// a gazetteer) and South (orders need a customer), and "Other" with depot Far.
pub fn fixture_file() -> Value {
    json!({"organisations": [
        {"name": "Acme", "order_statuses": ["RETURNED"], "third_parties": [{"name": "Courier X"}],
         "depots": [
            {"name": "North", "address": "1 Depot Way", "lat": 51.50, "lng": -0.12,
             "settings": {"allow_orders_without_customer": true, "starting_status": "OPEN"},
             "access_keys": [{"name": "integration", "permission": "all"},
                             {"name": "reporting", "permission": "read"}],
             "capacity_types": [{"type": "Weight", "default": "0"}],
             "custom_fields": [{"name": "Gate code"}],
             "tags": ["Fragile"],
             "zone_groups": [{"name": "Central", "zones": [
                {"name": "Z1", "polygon": [[51.49, -0.13], [51.51, -0.13], [51.51, -0.11], [51.49, -0.11]]}]}],
             "notification_templates": [{"type": "SMS", "name": "On the way", "body": "Your order {order_number} is on its way"}],
             "gazetteer": [{"address": "1 High St", "postcode": "AB1 2CD", "lat": 51.5, "lng": -0.12}]},
            {"name": "South", "settings": {"allow_orders_without_customer": false},
             "access_keys": [{"name": "integration", "permission": "all"}]}
         ]},
        {"name": "Other", "order_statuses": ["LOST"], "third_parties": [{"name": "Elsewhere"}],
         "depots": [{"name": "Far", "access_keys": [{"name": "main", "permission": "all"}]}]}
    ]})
}

/// The seeded fixture: its output and the keys by role.
pub struct Fixture {
    pub seeded: Value,
    /// North, permission `all`.
    pub key: String,
    /// North, permission `read`.
    pub read_key: String,
    /// South (same organisation).
    pub south_key: String,
    /// Far (organisation Other).
    pub other_key: String,
}

impl Fixture {
    pub fn seed(db: &Path) -> Fixture {
        let seeded = seed(db, &fixture_file());
        let key = |org: usize, depot: usize, k: usize| {
            seeded["organisations"][org]["depots"][depot]["access_keys"][k]["key"]
                .as_str()
                .expect("key printed")
                .to_owned()
        };
        Fixture {
            key: key(0, 0, 0),
            read_key: key(0, 0, 1),
            south_key: key(0, 1, 0),
            other_key: key(1, 0, 0),
            seeded,
        }
    }

    /// North's seeded depot tree.
    pub fn north(&self) -> &Value {
        &self.seeded["organisations"][0]["depots"][0]
    }
}

/// A temp dir with a seeded database and a server on it (`--rate-limits off`).
pub fn seeded_server() -> (tempfile::TempDir, Server, Fixture) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("conformance.db");
    let fixture = Fixture::seed(&db);
    let server = Server::start(&db);
    (dir, server, fixture)
}

/// True for `YYYY-MM-DDTHH:mm:ss.SSSZ`.
pub fn is_timestamp(value: &Value) -> bool {
    let Some(s) = value.as_str() else {
        return false;
    };
    let b = s.as_bytes();
    b.len() == 24
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'.',
            23 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// Percent-encodes a path segment or query value.
pub fn encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// A depot time zone where it is about noon while the tests run, with its dates: a day played
/// "today" with working-hours windows or shifts has its hours ahead whenever the tests run.
pub struct MiddayZone {
    /// Its name (`UTC` or `Etc/GMT±N`).
    pub name: String,
    /// Today there, `YYYY-MM-DD`.
    pub today: String,
    /// Tomorrow there.
    pub tomorrow: String,
}

/// The [`MiddayZone`] of this test process (chosen once, so every test of a run agrees).
pub fn midday_zone() -> &'static MiddayZone {
    static ZONE: OnceLock<MiddayZone> = OnceLock::new();
    ZONE.get_or_init(|| {
        let ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("a clock after 1970")
            .as_millis() as i64;
        let now = dispatch_core::time::Timestamp::from_millis(ms);
        // Etc/GMT-N is N hours east of Greenwich (POSIX signs).
        let name = match 12 - ms.rem_euclid(86_400_000) / 3_600_000 {
            0 => "UTC".to_owned(),
            east if east > 0 => format!("Etc/GMT-{east}"),
            west => format!("Etc/GMT+{}", -west),
        };
        let zone = dispatch_core::time::zone::DepotZone::parse(&name).expect("a known zone");
        MiddayZone {
            today: zone.date_of(now).to_string(),
            tomorrow: zone.date_of(now.add_millis(86_400_000)).to_string(),
            name,
        }
    })
}
