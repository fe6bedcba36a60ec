//! `dispatch solve` driven as a subprocess: output shapes of `operator-interface.md`,
//! determinism under an iteration budget, and clear errors instead of panics.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;
use tempfile::TempPath;

fn dispatch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dispatch"))
        .args(args)
        .output()
        .expect("run dispatch")
}

/// A file holding `content`, its name ending in `name` (the format is told by the extension);
/// deleted when the returned path is dropped, also when the test fails.
fn temp_file(name: &str, content: &str) -> TempPath {
    let mut file = tempfile::Builder::new()
        .prefix("dispatch-solve-cli-")
        .suffix(&format!("-{name}"))
        .tempfile()
        .unwrap();
    file.write_all(content.as_bytes()).unwrap();
    file.into_temp_path()
}

/// A benchmark instance shipped in the repository's `instances/` folder.
fn shipped_instance(rel: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../instances")
        .join(rel);
    assert!(path.is_file(), "{} is missing", path.display());
    path
}

fn stdout_json(out: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "exit {:?}: {stderr}", out.status);
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// `dispatch solve FILE FLAGS...`, which must succeed: its JSON output.
fn solve(file: &Path, flags: &[&str]) -> Value {
    let mut args = vec!["solve", file.to_str().unwrap()];
    args.extend_from_slice(flags);
    stdout_json(&dispatch(&args))
}

fn assert_clean_failure(out: &Output) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "should fail: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(!stderr.trim().is_empty());
    stderr
}

/// Depot at (0,0), six customers, three vehicles of capacity 30.
const SMALL_SOLOMON: &str = "SMALL6\r\n\r\nVEHICLE\r\nNUMBER     CAPACITY\r\n  3         30\r\n\r\nCUSTOMER\r\nCUST NO.  XCOORD.   YCOORD.    DEMAND   READY TIME  DUE DATE   SERVICE   TIME\r\n\r\n    0      0          0          0          0       500          0\r\n    1     10          0         10          0       100         10\r\n    2     20          0         10          0       200         10\r\n    3      0         10         10          0       100         10\r\n    4      0         20         10          0       200         10\r\n    5    -10          0         10         50       300         10\r\n    6      0        -10         10          0       300         10\r\n";

#[test]
fn solomon_output_has_the_operator_interface_shape() {
    let file = temp_file("small6.txt", SMALL_SOLOMON);
    let json = solve(
        &file,
        &["--iterations", "200", "--threads", "1", "--seed", "7"],
    );
    for key in [
        "instance",
        "vehicles",
        "distance",
        "unassigned",
        "routes",
        "elapsed_s",
        "seed",
    ] {
        assert!(json.get(key).is_some(), "missing {key}: {json}");
    }
    assert_eq!(json["instance"], "SMALL6");
    assert_eq!(json["seed"], 7);
    assert_eq!(json["unassigned"], serde_json::json!([]));
    let routes = json["routes"].as_array().unwrap();
    assert_eq!(json["vehicles"].as_u64().unwrap() as usize, routes.len());
    let mut nodes: Vec<u64> = routes
        .iter()
        .flat_map(|r| r.as_array().unwrap())
        .map(|n| n.as_u64().unwrap())
        .collect();
    nodes.sort();
    assert_eq!(nodes, vec![1, 2, 3, 4, 5, 6]);
    let distance = json["distance"].as_f64().unwrap();
    // Three out-and-back routes along the axes (3 x 40) is a ceiling.
    assert!(distance > 0.0 && distance <= 120.0 + 1e-9, "{distance}");
    assert!(json["elapsed_s"].as_f64().unwrap() >= 0.0);
}

#[test]
fn same_seed_and_iterations_print_the_same_routes() {
    let file = shipped_instance("solomon/R101.txt");
    let flags = [
        "--iterations",
        "300",
        "--threads",
        "2",
        "--seed",
        "3",
        "--time-limit",
        "120",
    ];
    let (a, b) = (solve(&file, &flags), solve(&file, &flags));
    assert_eq!(a["routes"], b["routes"]);
    assert_eq!(a["distance"], b["distance"]);
    assert_eq!(a["feasible"], true);
}

#[test]
fn li_lim_routes_cover_every_node_number() {
    let file = shipped_instance("lilim/lc101.txt");
    let json = solve(&file, &["--iterations", "100", "--threads", "1"]);
    assert_eq!(json["instance"], "lc101");
    let served: usize = json["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().len())
        .sum();
    assert_eq!(served + json["unassigned"].as_array().unwrap().len(), 106);
    assert_eq!(json["feasible"], true);
}

const VROOM: &str = r#"{
  "vehicles": [{"id": 10, "start_index": 0, "end_index": 0, "capacity": [5],
                "breaks": [{"id": 99, "time_windows": [[0, 1000]], "service": 5}]}],
  "jobs": [
    {"id": 1, "location_index": 1, "service": 10, "delivery": [1]},
    {"id": 2, "location_index": 2, "service": 10, "delivery": [1]},
    {"id": 3, "location_index": 2, "delivery": [1], "skills": [42]}
  ],
  "shipments": [{"amount": [2], "pickup": {"id": 4, "location_index": 1}, "delivery": {"id": 5, "location_index": 2}}],
  "matrices": {"car": {"durations": [[0, 100, 200], [150, 0, 100], [250, 120, 0]]}}
}"#;

#[test]
fn vroom_output_has_vehicle_steps_cost_and_unassigned_reasons() {
    let file = temp_file("problem.json", VROOM);
    let json = solve(&file, &["--iterations", "100", "--threads", "1"]);
    assert!(json.get("distance").is_none());
    let routes = json["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 1);
    assert_eq!(routes[0]["vehicle"], 10);
    let steps: Vec<(String, u64)> = routes[0]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["type"].as_str().unwrap().to_owned(),
                s["id"].as_u64().unwrap(),
            )
        })
        .collect();
    for want in [
        ("job", 1),
        ("job", 2),
        ("pickup", 4),
        ("delivery", 5),
        ("break", 99),
    ] {
        assert!(steps.contains(&(want.0.to_owned(), want.1)), "{steps:?}");
    }
    let p = steps.iter().position(|s| s.0 == "pickup").unwrap();
    let d = steps.iter().position(|s| s.0 == "delivery").unwrap();
    assert!(p < d);
    // 0 -> 1 -> 2 -> 0 is the cheapest tour: 100 + 100 + 250.
    assert_eq!(json["cost"], 450);
    let unassigned = json["unassigned"].as_array().unwrap();
    assert_eq!(unassigned.len(), 1);
    assert_eq!(unassigned[0]["type"], "job");
    assert_eq!(unassigned[0]["id"], 3);
    assert_eq!(unassigned[0]["reason"], "SKILLS");
    assert!(unassigned[0]["reason_description"].as_str().unwrap().len() > 10);
}

#[test]
fn standard_input_and_plain_progress_lines() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dispatch"))
        .args(["solve", "-", "--iterations", "50", "--threads", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(SMALL_SOLOMON.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let json = stdout_json(&out);
    assert_eq!(json["instance"], "SMALL6");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.lines().any(|l| l.starts_with("progress ")),
        "{stderr}"
    );
    assert!(!stderr.contains('\r'));
}

#[test]
fn a_short_time_limit_still_prints_a_solution() {
    let file = temp_file("small6-time.txt", SMALL_SOLOMON);
    let json = solve(&file, &["--time-limit", "0.2"]);
    assert!(json["elapsed_s"].as_f64().unwrap() < 5.0);
    assert_eq!(json["feasible"], true);
}

#[test]
fn malformed_files_fail_with_the_line_number() {
    let bad = SMALL_SOLOMON.replace("    4      0         20", "    4      0         2x");
    let file = temp_file("bad.txt", &bad);
    let stderr = assert_clean_failure(&dispatch(&["solve", file.to_str().unwrap()]));
    assert!(stderr.contains("line 14"), "{stderr}");

    let file = temp_file(
        "bad.json",
        "{\n  \"vehicles\": [\n    {\"id\": true}\n  ]\n}",
    );
    let stderr = assert_clean_failure(&dispatch(&["solve", file.to_str().unwrap()]));
    assert!(stderr.contains("line 3, column"), "{stderr}");

    let file = temp_file("garbage.txt", "hello\nworld\n");
    let stderr = assert_clean_failure(&dispatch(&["solve", file.to_str().unwrap()]));
    assert!(stderr.contains("unrecognised"), "{stderr}");

    let file = temp_file("forced.txt", SMALL_SOLOMON);
    let stderr = assert_clean_failure(&dispatch(&[
        "solve",
        file.to_str().unwrap(),
        "--format",
        "lilim",
    ]));
    assert!(stderr.contains("line"), "{stderr}");
}

#[test]
fn bad_flags_and_missing_files_fail_cleanly() {
    let file = temp_file("flags.txt", SMALL_SOLOMON);
    let f = file.to_str().unwrap();
    let stderr = assert_clean_failure(&dispatch(&["solve", "/nonexistent/instance.txt"]));
    assert!(stderr.contains("/nonexistent/instance.txt"), "{stderr}");
    for args in [
        vec!["solve", f, "--threads", "0"],
        vec!["solve", f, "--time-limit", "-1"],
        vec!["solve", f, "--time-limit", "soon"],
        vec!["solve", f, "--format", "tsplib"],
        vec!["solve", f, "--objective", "time"],
        vec!["solve", f, "--seed", "-4"],
        vec!["solve", f, "--iterations", "many"],
        vec!["solve", f, "--unknown"],
        vec!["solve"],
    ] {
        assert_clean_failure(&dispatch(&args));
    }
}

/// One customer at (1,5), sqrt(26) = 5.099 from the depot, due at 5: too late in the exact
/// model, on time with DIMACS's truncated arc (5.0).
const DIMACS_ONLY: &str = "EDGE1\n\nVEHICLE\nNUMBER     CAPACITY\n  1         10\n\nCUSTOMER\nCUST NO.  XCOORD.   YCOORD.    DEMAND   READY TIME  DUE DATE   SERVICE   TIME\n\n    0      0          0          0          0       100          0\n    1      1          5          1          0         5          0\n";

#[test]
fn the_dimacs_convention_truncates_arcs_and_the_exact_one_does_not() {
    let file = temp_file("edge1.txt", DIMACS_ONLY);
    let run = |extra: &[&str]| {
        let mut flags = vec!["--iterations", "10", "--threads", "1"];
        flags.extend_from_slice(extra);
        solve(&file, &flags)
    };
    let exact = run(&[]);
    assert_eq!(exact["unassigned"], serde_json::json!([1]), "{exact}");
    let explicit = run(&["--convention", "exact"]);
    assert_eq!(exact["unassigned"], explicit["unassigned"]);
    assert_eq!(exact["routes"], explicit["routes"]);
    let dimacs = run(&["--convention", "dimacs"]);
    assert_eq!(dimacs["unassigned"], serde_json::json!([]), "{dimacs}");
    assert_eq!(dimacs["routes"], serde_json::json!([[1]]));
    assert_eq!(dimacs["feasible"], true);
    assert_eq!(dimacs["distance_dimacs"], 10.0);
    let bad = dispatch(&["solve", file.to_str().unwrap(), "--convention", "rounded"]);
    assert!(assert_clean_failure(&bad).contains("--convention"));
}

#[test]
fn help_lists_every_flag() {
    let out = dispatch(&["solve", "--help"]);
    assert!(out.status.success());
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--format",
        "--time-limit",
        "--iterations",
        "--seed",
        "--threads",
        "--objective",
        "--convention",
        "--output",
        "vehicles-distance",
        "lilim",
    ] {
        assert!(help.contains(flag), "{flag} missing from help:\n{help}");
    }
}

#[test]
fn vroom_coordinates_and_unassigned_shipments_list_both_visits() {
    let problem = r#"{
      "vehicles": [{"id": 1, "start": [2.35, 48.85], "end": [2.35, 48.85], "capacity": [3],
                    "time_window": [0, 36000]}],
      "jobs": [{"id": 5, "location": [2.36, 48.86], "service": 300, "delivery": [1],
                "time_windows": [[0, 36000]]}],
      "shipments": [{"amount": [4], "pickup": {"id": 6, "location": [2.30, 48.80]},
                     "delivery": {"id": 7, "location": [2.40, 48.90]}}]
    }"#;
    let file = temp_file("coords.json", problem);
    let json = solve(&file, &["--iterations", "50", "--threads", "1"]);
    let unassigned = json["unassigned"].as_array().unwrap();
    let kinds: Vec<(&str, u64, &str)> = unassigned
        .iter()
        .map(|u| {
            (
                u["type"].as_str().unwrap(),
                u["id"].as_u64().unwrap(),
                u["reason"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        vec![("pickup", 6, "CAPACITY"), ("delivery", 7, "CAPACITY")]
    );
    // About 1.3 km each way at 50 km/h: roughly 95 s per leg.
    let cost = json["cost"].as_i64().unwrap();
    assert!((150..=250).contains(&cost), "{cost}");
    assert_eq!(json["routes"][0]["steps"][0]["id"], 5);
}

#[test]
fn a_zero_time_limit_returns_the_first_solution() {
    let file = temp_file("small6-zero.txt", SMALL_SOLOMON);
    let json = solve(&file, &["--time-limit", "0"]);
    assert_eq!(json["feasible"], true);
    assert_eq!(json["unassigned"], serde_json::json!([]));
}

/// A VROOM problem of the core's tests, beside VROOM's own answer to it.
fn vroom_fixture(name: &str) -> (PathBuf, Value) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../dispatch-core/tests/vroom_answers");
    let answer = std::fs::read_to_string(dir.join(format!("{name}.vroom-answer.json"))).unwrap();
    (
        dir.join(format!("{name}.json")),
        serde_json::from_str(&answer).unwrap(),
    )
}

fn keys(v: &Value) -> Vec<&str> {
    let mut k: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    k.sort_unstable();
    k
}

#[test]
fn output_vroom_prints_vroom_s_answer_format() {
    let (file, theirs) = vroom_fixture("tw-jobs");
    let ours = solve(
        &file,
        &["--output", "vroom", "--iterations", "500", "--threads", "1"],
    );
    assert_eq!(ours["code"], 0);
    assert_eq!(keys(&ours), keys(&theirs));
    assert_eq!(keys(&ours["summary"]), keys(&theirs["summary"]));
    assert_eq!(keys(&ours["routes"][0]), keys(&theirs["routes"][0]));
    let mut served = 0;
    for route in ours["routes"].as_array().unwrap() {
        let steps = route["steps"].as_array().unwrap();
        assert_eq!(steps[0]["type"], "start");
        assert_eq!(steps[steps.len() - 1]["type"], "end");
        served += steps.len() - 2;
        // Arrivals never run backwards and no vehicle of the problem starts near 2^61.
        let arrivals: Vec<i64> = steps
            .iter()
            .map(|s| s["arrival"].as_i64().unwrap())
            .collect();
        assert!(arrivals.windows(2).all(|w| w[0] <= w[1]), "{arrivals:?}");
        assert!(arrivals[0] < 100_000, "{arrivals:?}");
        for (s, t) in steps
            .iter()
            .zip(theirs["routes"][0]["steps"].as_array().unwrap())
        {
            if s["type"] == t["type"] {
                // Descriptions are echoed where the problem gives one.
                let mut ours = keys(s);
                ours.retain(|k| *k != "description");
                let mut theirs = keys(t);
                theirs.retain(|k| *k != "description");
                assert_eq!(ours, theirs, "{s}");
            }
        }
    }
    assert_eq!(served, 24);
    assert_eq!(ours["summary"]["unassigned"], 0);
}

#[test]
fn progress_lines_and_the_summary_count_the_same_unassigned_visits() {
    let (file, _) = vroom_fixture("tight");
    let out = dispatch(&[
        "solve",
        file.to_str().unwrap(),
        "--output",
        "vroom",
        "--iterations",
        "300",
        "--threads",
        "1",
    ]);
    let json = stdout_json(&out);
    let listed = json["unassigned"].as_array().unwrap().len();
    assert!(listed > 0);
    assert_eq!(json["summary"]["unassigned"], listed);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let counts: Vec<usize> = stderr
        .lines()
        .filter(|l| l.starts_with("progress ") || l.starts_with("done "))
        .map(|l| {
            let field = l.split(' ').find(|f| f.starts_with("unassigned=")).unwrap();
            field["unassigned=".len()..].parse().unwrap()
        })
        .collect();
    assert!(counts.len() >= 2, "{stderr}");
    assert_eq!(counts.last(), Some(&listed), "{stderr}");
    // The last progress line is the best solution, the one printed.
    assert_eq!(counts[counts.len() - 2], listed, "{stderr}");
}
