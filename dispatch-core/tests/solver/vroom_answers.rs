//! Solutions in VROOM's output format against VROOM's own answers to the same problems
//! (`tests/vroom_answers/*.vroom-answer.json`, made by pyvroom with `make.py` beside them).
//!
//! VROOM's routes are timed by the solver (a warm start searched for zero iterations) and
//! written by `formats::vroom_solution`; every step must then show VROOM's arrival, waiting
//! time, set-up, service, load, cumulated travel time and distance, and every object VROOM's
//! keys. The solver's own solutions to the same problems are written with the same keys and
//! pass the independent checker.

use std::collections::BTreeSet;
use std::path::PathBuf;

use dispatch_core::solver::checker;
use dispatch_core::solver::formats::vroom_solution::{self, ComputingTimes};
use dispatch_core::solver::formats::{self, Format, Instance};
use dispatch_core::solver::problem::Objective;
use dispatch_core::solver::solution::{Solution, Step};
use dispatch_core::solver::{solve, solve_from, Config, Control, StartRoute};
use serde_json::Value;

struct Never;

impl Control for Never {
    fn should_stop(&self) -> bool {
        false
    }
}

const PROBLEMS: [&str; 4] = ["tw-jobs", "shipments", "tight", "breaks"];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vroom_answers")
}

fn load(name: &str) -> (Instance, Value) {
    let text = std::fs::read_to_string(dir().join(format!("{name}.json"))).unwrap();
    let instance = formats::read(&text, Some(Format::Vroom), Objective::Duration).unwrap();
    let answer = std::fs::read_to_string(dir().join(format!("{name}.vroom-answer.json"))).unwrap();
    (instance, serde_json::from_str(&answer).unwrap())
}

/// The step of the problem a VROOM step names.
fn step_of(instance: &Instance, kind: &str, id: u64) -> Step {
    let p = &instance.problem;
    let find = |f: &dyn Fn(usize) -> bool, n: usize| (0..n).find(|&i| f(i)).unwrap();
    match kind {
        "job" => Step::Job(find(&|i| p.jobs[i].id == id, p.jobs.len())),
        "pickup" => Step::Pickup(find(&|i| p.shipments[i].pickup_id == id, p.shipments.len())),
        "delivery" => Step::Delivery(find(
            &|i| p.shipments[i].delivery_id == id,
            p.shipments.len(),
        )),
        other => panic!("unexpected step type {other}"),
    }
}

/// VROOM's routes, timed by the solver.
fn timed_vroom_routes(instance: &Instance, answer: &Value) -> Solution {
    let p = &instance.problem;
    let start: Vec<StartRoute> = answer["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let id = r["vehicle"].as_u64().unwrap();
            StartRoute {
                vehicle: p.vehicles.iter().position(|v| v.id == id).unwrap(),
                steps: r["steps"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|s| matches!(s["type"].as_str(), Some("job" | "pickup" | "delivery")))
                    .map(|s| {
                        step_of(
                            instance,
                            s["type"].as_str().unwrap(),
                            s["id"].as_u64().unwrap(),
                        )
                    })
                    .collect(),
            }
        })
        .collect();
    let config = Config {
        seed: 1,
        threads: 1,
        max_iterations: Some(0),
    };
    let warm = solve_from(p, &start, &config, &Never).unwrap();
    assert!(warm.displaced.is_empty(), "{:?}", warm.displaced);
    warm.solution
}

fn written(instance: &Instance, solution: &Solution) -> Value {
    let report = checker::check(&instance.problem, solution);
    assert!(report.is_feasible(), "{:?}", report.violations);
    serde_json::from_str(&vroom_solution::write(
        instance,
        solution,
        ComputingTimes::default(),
    ))
    .unwrap()
}

fn keys(v: &Value) -> BTreeSet<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

/// The same keys as VROOM's object, plus the solver's reason keys on unassigned entries.
fn assert_same_keys(ours: &Value, theirs: &Value, what: &str) {
    let mut mine = keys(ours);
    mine.remove("reason");
    mine.remove("reason_description");
    assert_eq!(mine, keys(theirs), "keys of {what}");
}

fn assert_same_shape(ours: &Value, theirs: &Value, name: &str) {
    assert_same_keys(ours, theirs, &format!("{name}: the answer"));
    assert_same_keys(
        &ours["summary"],
        &theirs["summary"],
        &format!("{name}: summary"),
    );
    let route = |v: &Value| v["routes"][0].clone();
    assert_same_keys(&route(ours), &route(theirs), &format!("{name}: a route"));
    let kinds = |v: &Value| -> Vec<(String, Value)> {
        let mut seen = Vec::new();
        for r in v["routes"].as_array().unwrap() {
            for s in r["steps"].as_array().unwrap() {
                let kind = s["type"].as_str().unwrap().to_owned();
                if !seen.iter().any(|(k, _)| *k == kind) {
                    seen.push((kind, s.clone()));
                }
            }
        }
        seen
    };
    for (kind, theirs_step) in kinds(theirs) {
        let ours_step = kinds(ours)
            .into_iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, s)| s);
        if let Some(ours_step) = ours_step {
            assert_same_keys(&ours_step, &theirs_step, &format!("{name}: a {kind} step"));
        }
    }
    if let (Some(a), Some(b)) = (ours["unassigned"].get(0), theirs["unassigned"].get(0)) {
        assert_same_keys(a, b, &format!("{name}: an unassigned entry"));
        assert!(a["reason"].is_string(), "{a}");
    }
}

#[test]
fn vroom_routes_timed_by_the_solver_show_vroom_s_arrival_waiting_and_load_at_every_step() {
    for name in PROBLEMS {
        let (instance, theirs) = load(name);
        let ours = written(&instance, &timed_vroom_routes(&instance, &theirs));
        assert_same_shape(&ours, &theirs, name);
        for key in [
            "cost",
            "routes",
            "unassigned",
            "delivery",
            "pickup",
            "setup",
            "service",
            "duration",
            "waiting_time",
            "priority",
            "distance",
        ] {
            assert_eq!(
                ours["summary"][key], theirs["summary"][key],
                "{name}: summary.{key}"
            );
        }
        let unassigned = |v: &Value| -> BTreeSet<(String, u64)> {
            v["unassigned"]
                .as_array()
                .unwrap()
                .iter()
                .map(|u| {
                    (
                        u["type"].as_str().unwrap().to_owned(),
                        u["id"].as_u64().unwrap(),
                    )
                })
                .collect()
        };
        assert_eq!(unassigned(&ours), unassigned(&theirs), "{name}: unassigned");
        for theirs_route in theirs["routes"].as_array().unwrap() {
            let vehicle = &theirs_route["vehicle"];
            let ours_route = ours["routes"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["vehicle"] == *vehicle)
                .unwrap();
            for key in [
                "cost",
                "setup",
                "service",
                "duration",
                "waiting_time",
                "priority",
                "distance",
                "delivery",
                "pickup",
            ] {
                assert_eq!(
                    ours_route[key], theirs_route[key],
                    "{name}: vehicle {vehicle} {key}"
                );
            }
            let (a, b) = (
                ours_route["steps"].as_array().unwrap(),
                theirs_route["steps"].as_array().unwrap(),
            );
            let has_breaks = b.iter().any(|s| s["type"] == "break");
            // Breaks go where the solver places them (the first gap where they fit), not
            // necessarily where VROOM put them: with breaks, the visits are compared by their
            // service start instead of their arrival and waiting.
            let visits: Vec<&Value> = a
                .iter()
                .filter(|s| !has_breaks || s["type"] != "break")
                .collect();
            let theirs_visits: Vec<&Value> = b
                .iter()
                .filter(|s| !has_breaks || s["type"] != "break")
                .collect();
            let seq = |s: &[&Value]| -> Vec<(Value, Value)> {
                s.iter()
                    .map(|s| (s["type"].clone(), s["id"].clone()))
                    .collect()
            };
            assert_eq!(
                seq(&visits),
                seq(&theirs_visits),
                "{name}: vehicle {vehicle} steps"
            );
            let start =
                |s: &Value| s["arrival"].as_i64().unwrap() + s["waiting_time"].as_i64().unwrap();
            for (k, (x, y)) in visits.iter().zip(&theirs_visits).enumerate() {
                let timing: &[&str] = if has_breaks {
                    &[]
                } else {
                    &["arrival", "waiting_time"]
                };
                for key in timing.iter().chain(&[
                    "load",
                    "setup",
                    "service",
                    "duration",
                    "distance",
                    "location_index",
                    "description",
                ]) {
                    assert_eq!(x[*key], y[*key], "{name}: vehicle {vehicle} step {k} {key}");
                }
                assert_eq!(
                    start(x),
                    start(y),
                    "{name}: vehicle {vehicle} step {k} service start"
                );
            }
        }
    }
}

#[test]
fn the_solver_s_own_answers_have_vroom_s_shape_and_pass_the_checker() {
    for name in PROBLEMS {
        let (instance, theirs) = load(name);
        let config = Config {
            seed: 1,
            threads: 1,
            max_iterations: Some(2000),
        };
        let solution = solve(&instance.problem, &config, &Never);
        let ours = written(&instance, &solution);
        assert_same_shape(&ours, &theirs, name);
        // At least as many visits placed as VROOM at level 5.
        assert!(
            ours["summary"]["unassigned"].as_u64() <= theirs["summary"]["unassigned"].as_u64(),
            "{name}: {} unassigned against VROOM's {}",
            ours["summary"]["unassigned"],
            theirs["summary"]["unassigned"]
        );
    }
}

#[test]
fn errors_have_vroom_s_code_and_message() {
    let e: Value = serde_json::from_str(&vroom_solution::error(
        vroom_solution::ErrorCode::Input,
        "jobs[0].location_index: 9 is outside the 3x3 matrix",
    ))
    .unwrap();
    assert_eq!(e["code"], 2);
    assert_eq!(
        e["error"],
        "jobs[0].location_index: 9 is outside the 3x3 matrix"
    );
    assert_eq!(keys(&e), BTreeSet::from(["code", "error"]));
}
