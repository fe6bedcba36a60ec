//! VROOM keys that change the answer are honoured or refused by name, never ignored.

use dispatch_core::solver::formats::{self, Format, FormatError};
use dispatch_core::solver::problem::{Objective, Problem};
use serde_json::{json, Value};

fn base() -> Value {
    json!({
        "vehicles": [
            {"id": 1, "start_index": 0, "end_index": 0, "capacity": [5],
             "breaks": [{"id": 10, "time_windows": [[100, 200]], "service": 5}]},
            {"id": 2, "start_index": 0, "end_index": 0, "capacity": [5]}
        ],
        "jobs": [
            {"id": 1, "location_index": 1, "delivery": [1]},
            {"id": 2, "location_index": 2, "delivery": [1]}
        ],
        "matrices": {"car": {"durations": [[0, 10, 21], [11, 0, 30], [20, 31, 0]]}}
    })
}

fn read(v: &Value) -> Result<Problem, FormatError> {
    formats::read(&v.to_string(), Some(Format::Vroom), Objective::Distance).map(|i| i.problem)
}

/// An edit of the base problem.
type Edit = fn(&mut Value);

fn refused_at(v: &Value, path: &str) {
    match read(v) {
        Err(FormatError::Invalid { path: p, message }) => {
            assert_eq!(p, path);
            assert!(message.contains("not supported"), "{message}");
        }
        other => panic!("{path}: expected a refusal, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn keys_the_solver_cannot_honour_are_refused_by_path() {
    let cases: [(&str, Edit); 9] = [
        ("vehicles[1].max_distance", |v| {
            v["vehicles"][1]["max_distance"] = json!(1000)
        }),
        ("vehicles[0].steps", |v| {
            v["vehicles"][0]["steps"] = json!([{"type": "start"}])
        }),
        ("vehicles[0].type", |v| {
            v["vehicles"][0]["type"] = json!("van")
        }),
        ("vehicles[0].breaks[0].max_load", |v| {
            v["vehicles"][0]["breaks"][0]["max_load"] = json!([2])
        }),
        ("vehicles[0].costs.fixed", |v| {
            v["vehicles"][0]["costs"] = json!({"fixed": 100})
        }),
        ("vehicles[1].costs.per_km", |v| {
            v["vehicles"][1]["costs"] = json!({"per_km": 5})
        }),
        ("jobs[1].service_per_type", |v| {
            v["jobs"][1]["service_per_type"] = json!({"van": 3})
        }),
        ("jobs[0].setup_per_type", |v| {
            v["jobs"][0]["setup_per_type"] = json!({"van": 3})
        }),
        ("matrices.car.costs", |v| {
            v["matrices"]["car"]["costs"] = json!([[0, 1, 1], [1, 0, 1], [1, 1, 0]])
        }),
    ];
    for (path, edit) in cases {
        let mut v = base();
        edit(&mut v);
        refused_at(&v, path);
    }
}

#[test]
fn costs_and_speed_factors_that_differ_between_vehicles_are_refused() {
    let mut v = base();
    v["vehicles"][1]["costs"] = json!({"per_hour": 7200});
    refused_at(&v, "vehicles[1].costs.per_hour");
    let mut v = base();
    v["vehicles"][0]["speed_factor"] = json!(1.5);
    refused_at(&v, "vehicles[1].speed_factor");
}

#[test]
fn a_speed_factor_out_of_range_is_invalid() {
    for f in [0.0, -1.0, 5.5] {
        let mut v = base();
        v["vehicles"][0]["speed_factor"] = json!(f);
        let err = read(&v).unwrap_err();
        assert!(
            err.to_string().starts_with("vehicles[0].speed_factor"),
            "{err}"
        );
    }
}

#[test]
fn a_common_hourly_cost_leaves_the_problem_unchanged() {
    let plain = read(&base()).unwrap();
    let mut v = base();
    for k in 0..2 {
        v["vehicles"][k]["costs"] = json!({"per_hour": 5000, "fixed": 0, "per_km": 0});
    }
    assert_eq!(read(&v).unwrap(), plain);
}

#[test]
fn a_common_speed_factor_divides_travel_times() {
    let mut v = base();
    for k in 0..2 {
        v["vehicles"][k]["speed_factor"] = json!(2.0);
    }
    let p = read(&v).unwrap();
    assert_eq!(p.matrix.duration(0, 1), 5);
    assert_eq!(p.matrix.duration(0, 2), 11); // 10.5 rounds away from zero
    assert_eq!(p.matrix.duration(2, 1), 16);
    // Without a distances matrix the cost follows the travel times.
    assert_eq!(p.matrix.distance(0, 2), 11);

    v["matrices"]["car"]["distances"] = json!([[0, 100, 200], [110, 0, 300], [210, 310, 0]]);
    let p = read(&v).unwrap();
    assert_eq!(
        (p.matrix.duration(0, 2), p.matrix.distance(0, 2)),
        (11, 200)
    );
}

#[test]
fn a_speed_factor_applies_to_travel_from_coordinates() {
    let mut v = base();
    v.as_object_mut().unwrap().remove("matrices");
    for k in 0..2 {
        v["vehicles"][k]
            .as_object_mut()
            .unwrap()
            .remove("start_index");
        v["vehicles"][k]
            .as_object_mut()
            .unwrap()
            .remove("end_index");
        v["vehicles"][k]["start"] = json!([4.35, 50.85]);
    }
    v["jobs"][0] = json!({"id": 1, "location": [4.40, 50.85], "delivery": [1]});
    v["jobs"][1] = json!({"id": 2, "location": [4.35, 50.90], "delivery": [1]});
    let slow = read(&v).unwrap();
    for k in 0..2 {
        v["vehicles"][k]["speed_factor"] = json!(1.25);
    }
    let fast = read(&v).unwrap();
    let (a, b) = (slow.matrix.duration(0, 1), fast.matrix.duration(0, 1));
    assert!(
        a > 0 && (b as f64 - a as f64 / 1.25).abs() <= 0.5,
        "{a} {b}"
    );
    assert_eq!(slow.matrix.distance(0, 1), fast.matrix.distance(0, 1));
}
