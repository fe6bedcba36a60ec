//! `dispatch solve` stopped early by Ctrl-C (SIGINT) or SIGTERM: the best solution found so far
//! is printed as usual, checked feasible, marked `"interrupted": true`, the exit status is
//! 130 / 143, and stderr's progress ends with the one-line summary.

#![cfg(unix)]

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::Value;

/// Solves a 200-customer instance with a long limit, sends `signal` once the search has
/// reported progress, and returns (exit code, stdout, stderr, seconds from signal to exit).
fn solve_then_signal(signal: &str) -> (Option<i32>, String, String, f64) {
    let instance = Path::new(env!("CARGO_MANIFEST_DIR")).join("../instances/homberger/c1_2_1.txt");
    let mut child = Command::new(env!("CARGO_BIN_EXE_dispatch"))
        .arg("solve")
        .arg(&instance)
        .args(["--time-limit", "300", "--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut log = String::new();
    // The first progress line: the search is under way, with a solution to print.
    loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "solve ended early: {log}"
        );
        log.push_str(&line);
        if line.starts_with("progress ") {
            break;
        }
    }
    let signalled = Instant::now();
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status()
        .unwrap();
    assert!(status.success());
    stderr.read_to_string(&mut log).unwrap();
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let code = child.wait().unwrap().code();
    (code, stdout, log, signalled.elapsed().as_secs_f64())
}

fn check_printed_solution(stdout: &str, log: &str, took: f64) {
    let out: Value = serde_json::from_str(stdout.trim()).expect("one JSON document on stdout");
    assert_eq!(out["interrupted"], true, "{stdout}");
    assert_eq!(out["feasible"], true, "{stdout}");
    let routed: usize = out["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_array().unwrap().len())
        .sum();
    let unassigned = out["unassigned"].as_array().unwrap().len();
    assert_eq!(routed + unassigned, 200, "every customer accounted for");
    assert!(routed > 0);
    assert!(out["elapsed_s"].as_f64().unwrap() < 290.0);
    assert!(took < 30.0, "stopped {took:.1} s after the signal");
    let last = log.trim_end().lines().last().unwrap();
    assert!(last.starts_with("done elapsed_s="), "summary last: {log}");
    for field in [
        "iterations=",
        "vehicles=",
        "distance=",
        "unassigned=",
        "feasible=true",
    ] {
        assert!(last.contains(field), "{field} in {last}");
    }
    assert!(last.ends_with(" interrupted"), "{last}");
}

#[test]
fn ctrl_c_prints_the_best_solution_so_far_and_exits_130() {
    let (code, stdout, log, took) = solve_then_signal("INT");
    assert_eq!(code, Some(130), "{log}");
    check_printed_solution(&stdout, &log, took);
}

#[test]
fn sigterm_prints_the_best_solution_so_far_and_exits_143() {
    let (code, stdout, log, took) = solve_then_signal("TERM");
    assert_eq!(code, Some(143), "{log}");
    check_printed_solution(&stdout, &log, took);
}

#[test]
fn an_uninterrupted_solve_says_so_nowhere_and_exits_0() {
    let instance = Path::new(env!("CARGO_MANIFEST_DIR")).join("../instances/solomon/C101.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_dispatch"))
        .arg("solve")
        .arg(&instance)
        .args(["--iterations", "200", "--threads", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(!stdout.contains("interrupted"), "{stdout}");
    let log = String::from_utf8_lossy(&out.stderr);
    let last = log.trim_end().lines().last().unwrap();
    assert!(last.starts_with("done elapsed_s="), "{log}");
    assert!(!last.contains("interrupted"), "{last}");
}
