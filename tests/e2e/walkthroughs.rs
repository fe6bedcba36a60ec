//! The documents' curl walk-throughs run as written, each on a fresh database: their shell
//! blocks in order under bash in an empty directory, with only what a script needs changed —
//! build lines left out, `./target/release/dispatch` replaced by this build's binary, port 8080
//! by a free one, a wait for the service to listen where a reader would simply go on, and, once
//! their dates come, the days they plan moved on by whole weeks. A
//! newcomer's first hour runs these, so they must do what they say: the README's tour plans,
//! dispatches and hands the route to a phone; docs/walkthrough.md meets exactly the refusals its
//! comments show and no server error. (docs/driver-api.md's walk-through: driver_walkthrough.)
//!
//! Needs bash and curl (.ci/run installs them with jq); without them a test says NOT RUN, and
//! with `CI` set it fails instead.

use std::net::TcpListener;
use std::path::Path;
use std::process::Command;

use dispatch_core::time::{Date, Timestamp};
use serde_json::Value;

use crate::support::binary;

/// Printed between the tour's JSON answers and the driver-app command's lines.
const MARK: &str = "--- the driver app ---";

fn readme_tour() -> String {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let start = readme.find("## Five minutes").expect("the README's tour");
    let rest = &readme[start + 2..];
    rest[..rest.find("\n## ").unwrap_or(rest.len())].to_owned()
}

/// The tour's plan date.
const TOUR_DAY: &str = "2026-12-02";

/// The dates a walk-through plans, moved by whole weeks (weekdays kept) when needed so that
/// all are still to come: a plan made on its own day starts from that moment, and the windows
/// the documents use would pass. Before the first of them, the dates stay as written.
fn days_to_come(written: &[&str]) -> Vec<(String, String)> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970");
    let today = Timestamp::from_millis(now.as_millis() as i64).date();
    let dates: Vec<Date> = written
        .iter()
        .map(|d| Date::parse(d).expect("a date"))
        .collect();
    let first = *dates.iter().min().expect("a date");
    let mut weeks = 0;
    while first.add_days(7 * weeks) <= today {
        weeks += 1;
    }
    written
        .iter()
        .zip(dates)
        .map(|(w, d)| ((*w).to_owned(), d.add_days(7 * weeks).to_string()))
        .collect()
}

fn with_days(line: &str, days: &[(String, String)]) -> String {
    days.iter()
        .fold(line.to_owned(), |line, (from, to)| line.replace(from, to))
}

/// The tour's shell blocks, one script, adapted to this build, a free port and a day to come.
fn script(tour: &str, binary: &Path, port: u16) -> String {
    let days = days_to_come(&[TOUR_DAY]);
    let mut lines = vec![
        "set -euo pipefail".to_owned(),
        // The tour leaves the service running in the background ("kill %1" in its prose).
        "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT".to_owned(),
    ];
    let mut inside = false;
    for line in tour.lines() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
            continue;
        }
        if !inside || line.trim_start().starts_with("cargo build") {
            continue;
        }
        lines.push(with_days(
            &line
                .replace("./target/release/dispatch", &binary.display().to_string())
                .replace("127.0.0.1:8080", &format!("127.0.0.1:{port}")),
            &days,
        ));
    }
    // The prose hands the route to the driver's phone with this line; run it while serving.
    let driver_app = tour
        .split('`')
        .find(|s| s.starts_with("./target/release/dispatch driver-app "))
        .expect("the tour's driver-app line");
    lines.push(format!("echo; echo '{MARK}'"));
    lines.push(driver_app.replace("./target/release/dispatch", &binary.display().to_string()));
    lines.join("\n") + "\n"
}

/// What a walk-through's script printed, with everything a failure message needs.
pub(crate) struct Ran {
    pub stdout: String,
    pub stderr: String,
    pub success: bool,
    log: String,
}

impl Ran {
    /// The script, its output and the service's log (`demo/serve.log` when it wrote one).
    pub fn log(&self) -> &str {
        &self.log
    }

    /// The JSON answers `printed` holds back to back, each checked not to be a refusal.
    pub fn accepted_answers(&self, printed: &str) -> Vec<Value> {
        let answers: Vec<Value> = serde_json::Deserializer::from_str(printed)
            .into_iter::<Value>()
            .collect::<Result<_, _>>()
            .unwrap_or_else(|e| panic!("the answers are JSON ({e}): {}", self.log()));
        for answer in &answers {
            assert!(
                answer.get("statusCode").is_none(),
                "a refusal: {answer}\n{}",
                self.log()
            );
        }
        answers
    }
}

/// Runs `script` under bash in `dir`, for at most four minutes.
pub(crate) fn run(script: &str, dir: &Path) -> Ran {
    let out = Command::new("timeout")
        .args(["240", "bash", "-c", script])
        .current_dir(dir)
        .output()
        .expect("bash runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let serve_log = std::fs::read_to_string(dir.join("demo/serve.log")).unwrap_or_default();
    let log =
        format!("script:\n{script}\nstdout:\n{stdout}\nstderr:\n{stderr}\nserve.log:\n{serve_log}");
    Ran {
        stdout,
        stderr,
        success: out.status.success(),
        log,
    }
}

pub(crate) fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Whether the walk-throughs' tools are here (`false` means NOT RUN; with `CI` set, a failure).
pub(crate) fn tools(names: &[&str]) -> bool {
    if names.iter().all(|t| have(t)) {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{names:?} are needed (CI installs them)"
    );
    eprintln!("NOT RUN: the walk-through needs {names:?}");
    false
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// "HH:mm" as minutes.
fn minutes(time: &Value) -> i64 {
    let text = time.as_str().unwrap_or_else(|| panic!("a time: {time}"));
    let (h, m) = text.split_once(':').expect("HH:mm");
    h.parse::<i64>().unwrap() * 60 + m.parse::<i64>().unwrap()
}

#[test]
fn the_readme_tour_plans_dispatches_and_hands_the_route_to_a_phone_on_a_fresh_start() {
    if !tools(&["bash", "curl"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let tour = readme_tour();
    assert!(tour.contains(TOUR_DAY), "the tour plans {TOUR_DAY}");
    let script = script(&tour, &binary(), free_port());
    let ran = run(&script, dir.path());
    let (stdout, log) = (&ran.stdout, || ran.log());
    assert!(ran.success, "the tour failed: {}", log());

    // What the tour printed: the JSON answers back to back, then the driver-app lines.
    let (json, driver_app) = stdout
        .split_once(MARK)
        .unwrap_or_else(|| panic!("the driver-app line ran: {}", log()));
    let answers = ran.accepted_answers(json);
    let plan = answers
        .iter()
        .find_map(|a| a.get("plan").filter(|p| p.get("routes").is_some()))
        .unwrap_or_else(|| panic!("the plan read: {}", log()));
    let routes = plan["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 1, "{plan:#}");
    let stops = routes[0]["stops"].as_array().unwrap();
    assert_eq!(stops.len(), 3, "{plan:#}");
    let d2 = stops
        .iter()
        .find(|s| s["orders"][0]["order_number"] == "D-2")
        .expect("D-2 on the route");
    assert!(
        minutes(&d2["estimated_arrival_time"]) <= 11 * 60
            && minutes(&d2["estimated_departure_time"]) >= 9 * 60,
        "D-2 inside 09:00-11:00: {d2:#}"
    );
    let order = answers.last().expect("the order read");
    assert_eq!(order["orders"][0]["order_number"], "D-2", "{order:#}");
    assert_eq!(order["orders"][0]["status"], "ROUTED", "{order:#}");
    assert!(
        driver_app.contains("/driver-app/#credential="),
        "the driver's app link: {}",
        log()
    );
}

/// The refusals the comments of a walk-through's shell lines show: `# 403 PERMISSION` after a
/// command, or an envelope printed in a comment (`# {"name":...,"statusCode":400,...`).
fn documented_refusals(lines: &[String]) -> Vec<u16> {
    let mut codes = Vec::new();
    for line in lines {
        let Some((_, comment)) = line.split_once("# ") else {
            continue;
        };
        let comment = comment.trim_start();
        let code = comment
            .get(..3)
            .filter(|_| comment[3..].starts_with(' '))
            .or_else(|| {
                let at = comment.find("\"statusCode\":")? + "\"statusCode\":".len();
                comment.get(at..at + 3)
            });
        if let Some(code) = code.and_then(|c| c.parse::<u16>().ok()) {
            if code >= 400 {
                codes.push(code);
            }
        }
    }
    codes.sort_unstable();
    codes
}

/// The shell lines of a document's ```sh blocks.
fn shell_lines(doc: &str) -> Vec<String> {
    let mut inside = false;
    let mut lines = Vec::new();
    for line in doc.lines() {
        if line.trim_start().starts_with("```") {
            inside = line.trim_start() == "```sh";
            continue;
        }
        if inside {
            lines.push(line.to_owned());
        }
    }
    lines
}

#[test]
fn the_api_walkthrough_meets_exactly_the_refusals_it_shows_and_no_server_error() {
    if !tools(&["bash", "curl"]) {
        return;
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/walkthrough.md")).expect("the walk-through");
    let dir = tempfile::tempdir().unwrap();
    // It runs from the repository's root and seeds from docs/demo-seed.json.
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::copy(
        root.join("docs/demo-seed.json"),
        dir.path().join("docs/demo-seed.json"),
    )
    .unwrap();
    let port = free_port();
    let bin = binary().display().to_string();
    let lines = shell_lines(&doc);
    let days = days_to_come(&["2026-12-01", "2026-12-02"]);
    assert!(doc.contains("2026-12-01") && doc.contains("2026-12-02"));
    let mut script = vec![
        "set -euo pipefail".to_owned(),
        "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT".to_owned(),
    ];
    for line in &lines {
        if line.trim_start().starts_with("cargo build") {
            continue;
        }
        let line = with_days(
            &line
                .replace("./target/release/dispatch", &bin)
                .replace("127.0.0.1:8080", &format!("127.0.0.1:{port}")),
            &days,
        );
        let serving = line.contains(" serve ") && line.trim_end().ends_with('&');
        script.push(line);
        if serving {
            // A reader goes on once the service listens; a script waits for it.
            script.push(format!(
                "until curl -s -o /dev/null http://127.0.0.1:{port}/v2/depots; do sleep 0.2; done"
            ));
        }
    }
    let script = script.join("\n") + "\n";
    let ran = run(&script, dir.path());
    let (stdout, stderr, log) = (&ran.stdout, &ran.stderr, || ran.log());
    assert!(ran.success, "the walk-through failed: {}", log());
    let mut refused: Vec<u16> = stdout
        .match_indices("\"statusCode\":")
        .filter_map(|(at, key)| stdout.get(at + key.len()..at + key.len() + 3))
        .filter_map(|code| code.parse().ok())
        .collect();
    refused.sort_unstable();
    let documented = documented_refusals(&lines);
    assert!(documented.len() >= 5, "{documented:?}");
    assert_eq!(
        refused,
        documented,
        "the refusals met are the ones the document shows: {}",
        log()
    );
    assert!(
        !stderr.contains("status=5"),
        "no server error in the service's log: {}",
        log()
    );
}
