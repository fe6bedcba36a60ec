//! Instance readers: real benchmark files, VROOM-style JSON, and malformed input that must give
//! a positioned error, never a panic.

use crate::solver_support;

use dispatch_core::solver::formats::{self, Convention, Format, FormatError, SCALE};
use dispatch_core::solver::problem::{Objective, TimeWindow};
use proptest::prelude::*;

const OBJ: Objective = Objective::VehiclesThenDistance;

#[test]
fn solomon_c101_reads_fleet_depot_and_customers() {
    let dir = solver_support::instances();
    let text = solver_support::read_text(&dir.join("solomon/C101.txt"));
    assert_eq!(formats::detect(&text), Ok(Format::Solomon));
    let inst = formats::read(&text, None, OBJ).unwrap();
    let p = &inst.problem;
    assert_eq!(p.name, "C101");
    assert_eq!((p.vehicles.len(), p.vehicles[0].capacity[0]), (25, 200));
    assert_eq!(
        p.vehicles[0].shift,
        TimeWindow {
            start: 0,
            end: 1236 * SCALE
        }
    );
    assert_eq!(p.jobs.len(), 100);
    // `1 45 68 10 912 967 90`
    let j = &p.jobs[0];
    assert_eq!((j.id, j.delivery[0], j.place.service), (1, 10, 90 * SCALE));
    assert_eq!(
        j.place.time_windows,
        vec![TimeWindow {
            start: 912 * SCALE,
            end: 967 * SCALE
        }]
    );
    // Depot (40,50) to customer 2 (45,70): sqrt(425) = 20.6155281...: time rounded up.
    assert_eq!(p.matrix.distance(0, 2), 20_615_528);
    assert_eq!(p.matrix.duration(0, 2), 20_615_529);
    assert_eq!(p.objective, OBJ);
}

#[test]
fn the_dimacs_convention_truncates_arcs_to_one_decimal() {
    let dir = solver_support::instances();
    let text = solver_support::read_text(&dir.join("solomon/C101.txt"));
    let inst = formats::read_with(&text, None, OBJ, Convention::Dimacs).unwrap();
    // sqrt(349) = 18.68... -> 18.6 for distance and travel time alike.
    assert_eq!(inst.problem.matrix.distance(0, 1), 18_600_000);
    assert_eq!(inst.problem.matrix.duration(0, 1), 18_600_000);
    assert_eq!(inst.plane.unwrap().convention, Convention::Dimacs);
}

#[test]
fn homberger_200_reads_as_solomon() {
    let dir = solver_support::instances();
    let text = solver_support::read_text(&dir.join("homberger/rc2_2_1.txt"));
    let inst = formats::read(&text, None, OBJ).unwrap();
    assert_eq!(inst.format, Format::Solomon);
    assert_eq!(inst.problem.jobs.len(), 200);
    assert_eq!(inst.problem.matrix.size(), 201);
}

#[test]
fn li_lim_lc101_pairs_every_task() {
    let dir = solver_support::instances();
    let text = solver_support::read_text(&dir.join("lilim/lc101.txt"));
    assert_eq!(formats::detect(&text), Ok(Format::LiLim));
    let inst = formats::read(&text, None, OBJ).unwrap();
    let p = &inst.problem;
    let tasks = text.lines().filter(|l| !l.trim().is_empty()).count() - 2;
    assert_eq!(p.shipments.len() * 2, tasks);
    assert_eq!(p.vehicles.len(), 25);
    // `3 42 66 10 65 146 90 0 75`: pickup 3, delivered at 75.
    let s = p.shipments.iter().find(|s| s.pickup_id == 3).unwrap();
    assert_eq!((s.delivery_id, s.amount[0]), (75, 10));
    assert!(p.jobs.is_empty());
}

#[test]
fn truncated_and_corrupted_real_files_give_line_errors() {
    let dir = solver_support::instances();
    let text = solver_support::read_text(&dir.join("solomon/R101.txt"));
    let mut lines: Vec<&str> = text.lines().collect();
    lines[20] = "   11      20         65         12   oops    ";
    let err = formats::read(&lines.join("\n"), None, OBJ).unwrap_err();
    assert!(matches!(err, FormatError::Line { line: 21, .. }), "{err}");

    let text = solver_support::read_text(&dir.join("lilim/lr101.txt"));
    let cut = &text[..text.len() / 2];
    let cut = &cut[..cut.rfind('\t').unwrap()];
    let err = formats::read(cut, Some(Format::LiLim), OBJ).unwrap_err();
    assert!(matches!(err, FormatError::Line { .. }), "{err}");
}

/// A deterministic stream of mutations of real files: every one is read without a panic.
#[test]
fn mutated_real_files_never_panic() {
    let dir = solver_support::instances();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    for file in ["solomon/C201.txt", "lilim/lrc104.txt"] {
        let text = solver_support::read_text(&dir.join(file));
        for _ in 0..300 {
            let mut bytes = text.as_bytes().to_vec();
            match next(4) {
                0 => bytes.truncate(next(bytes.len())),
                1 => {
                    let at = next(bytes.len());
                    bytes[at] = b"-x9.\t\n 0"[next(8)];
                }
                2 => {
                    let at = next(bytes.len());
                    bytes.drain(at..(at + next(40)).min(bytes.len()));
                }
                _ => {
                    let at = next(bytes.len());
                    bytes.splice(at..at, b"99999999999999999999 ".iter().copied());
                }
            }
            let mutated = String::from_utf8_lossy(&bytes);
            for format in [
                None,
                Some(Format::Solomon),
                Some(Format::LiLim),
                Some(Format::Vroom),
            ] {
                let _ = formats::read(&mutated, format, OBJ);
            }
        }
    }
}

proptest! {
    #[test]
    fn arbitrary_text_never_panics(text in "[ -~\t\r\n]{0,400}") {
        for format in [None, Some(Format::Solomon), Some(Format::LiLim), Some(Format::Vroom)] {
            let _ = formats::read(&text, format, OBJ);
        }
    }

    #[test]
    fn arbitrary_numeric_lines_never_panic(rows in proptest::collection::vec(
        proptest::collection::vec(-5i64..300, 0..10), 0..12)) {
        let text: String = rows
            .iter()
            .map(|r| r.iter().map(|v| v.to_string()).collect::<Vec<_>>().join("\t") + "\n")
            .collect();
        let _ = formats::read(&text, Some(Format::LiLim), OBJ);
        let _ = formats::read(&format!("X\nVEHICLE\n{text}CUSTOMER\n{text}"), Some(Format::Solomon), OBJ);
    }
}

const VROOM_MATRIX: &str = r#"{
  "vehicles": [
    {"id": 7, "start_index": 0, "end_index": 0, "capacity": [4, 2], "skills": [12, 5],
     "time_window": [0, 1000], "max_tasks": 3, "max_travel_time": 500,
     "breaks": [{"id": 70, "time_windows": [[100, 200]], "service": 15}]},
    {"id": 8, "start_index": 1, "capacity": [4, 2], "description": "open end"}
  ],
  "jobs": [
    {"id": 1, "location_index": 1, "service": 30, "delivery": [1, 0], "skills": [5],
     "priority": 100, "time_windows": [[300, 400], [0, 100]]},
    {"id": 2, "location_index": 2, "setup": 5, "pickup": [0, 1]}
  ],
  "shipments": [
    {"amount": [2, 0], "pickup": {"id": 1, "location_index": 2},
     "delivery": {"id": 9, "location_index": 0, "service": 10}}
  ],
  "matrices": {"car": {"durations": [[0, 10, 20], [11, 0, 30], [21, 31, 0]],
                       "distances": [[0, 100, 200], [110, 0, 300], [210, 310, 0]]}}
}"#;

#[test]
fn vroom_problem_with_an_asymmetric_matrix() {
    assert_eq!(formats::detect(VROOM_MATRIX), Ok(Format::Vroom));
    let inst = formats::read(VROOM_MATRIX, None, Objective::Duration).unwrap();
    let p = &inst.problem;
    assert!(inst.plane.is_none());
    assert_eq!(p.dimensions, 2);
    assert_eq!((p.matrix.duration(1, 0), p.matrix.duration(0, 1)), (11, 10));
    assert_eq!(p.matrix.distance(2, 1), 310);
    let v = &p.vehicles[0];
    assert_eq!(
        (v.id, v.start, v.end, v.max_tasks, v.max_travel_time),
        (7, Some(0), Some(0), Some(3), Some(500))
    );
    assert_eq!(v.breaks[0].id, 70);
    assert_eq!(v.breaks[0].service, 15);
    assert_eq!(
        (p.vehicles[1].end, p.vehicles[1].shift),
        (None, TimeWindow::ALWAYS)
    );
    let j = &p.jobs[0];
    // Windows come out sorted.
    assert_eq!(j.place.time_windows[0], TimeWindow { start: 0, end: 100 });
    assert_eq!(
        (j.priority, j.delivery.clone(), j.pickup.clone()),
        (100, vec![1, 0], vec![0, 0])
    );
    assert!(j.skills.is_subset_of(&v.skills));
    assert!(!j.skills.is_subset_of(&p.vehicles[1].skills));
    assert_eq!(p.jobs[1].place.setup, 5);
    let s = &p.shipments[0];
    assert_eq!((s.pickup_id, s.delivery_id, s.delivery.service), (1, 9, 10));
}

#[test]
fn vroom_problem_with_coordinates_uses_great_circle_at_50_kmh() {
    let text = r#"{"vehicles": [{"id": 1, "start": [2.35, 48.85]}],
                   "jobs": [{"id": 1, "location": [2.35, 48.95]}, {"id": 2, "location": [2.35, 48.85]}]}"#;
    let inst = formats::read(text, None, Objective::Duration).unwrap();
    let p = &inst.problem;
    // The vehicle start and job 2 share a location.
    assert_eq!(p.matrix.size(), 2);
    assert_eq!(p.jobs[1].place.location, p.vehicles[0].start.unwrap());
    // 0.1 degree of latitude is about 11.1 km: about 800 s at 50 km/h.
    let d = p.matrix.duration(0, 1);
    assert!((795..=805).contains(&d), "{d}");
    assert_eq!(p.dimensions, 0);
}

#[test]
fn vroom_syntax_and_type_errors_carry_line_and_column() {
    let err = formats::read(
        "{\n  \"vehicles\": [\n    {\"id\": 1,}\n  ]\n}",
        Some(Format::Vroom),
        OBJ,
    )
    .unwrap_err();
    assert!(matches!(err, FormatError::Json { line: 3, .. }), "{err}");
    let err = formats::read(
        "{\"vehicles\": [],\n \"jobs\": [{\"id\": \"one\"}]}",
        None,
        OBJ,
    )
    .unwrap_err();
    assert!(matches!(err, FormatError::Json { line: 2, .. }), "{err}");
    let err = formats::read(
        "{\"vehicles\": [{\"id\": 1, \"capacity\": [-3]}]}",
        None,
        OBJ,
    )
    .unwrap_err();
    assert!(matches!(err, FormatError::Json { line: 1, .. }), "{err}");
}

#[test]
fn vroom_invalid_values_name_their_path() {
    let cases = [
        (
            VROOM_MATRIX.replace(
                "\"location_index\": 2, \"setup\"",
                "\"location_index\": 3, \"setup\"",
            ),
            "jobs[1].location_index",
        ),
        (
            VROOM_MATRIX.replace("\"delivery\": [1, 0]", "\"delivery\": [1]"),
            "jobs[0].delivery",
        ),
        (
            VROOM_MATRIX.replace("\"priority\": 100", "\"priority\": 101"),
            "jobs[0].priority",
        ),
        (
            VROOM_MATRIX.replace("[[300, 400], [0, 100]]", "[[300, 400], [0, 300]]"),
            "jobs[0].time_windows",
        ),
        (
            VROOM_MATRIX.replace("[[100, 200]]", "[[200, 100]]"),
            "vehicles[0].breaks[0].time_windows[0]",
        ),
        (
            VROOM_MATRIX.replace("\"id\": 8", "\"id\": 7"),
            "vehicles[1].id",
        ),
        (
            VROOM_MATRIX.replace("[21, 31, 0]", "[21, 31]"),
            "matrices.car.durations[2]",
        ),
        (VROOM_MATRIX.replace("\"car\"", "\"truck\""), "matrices"),
    ];
    for (text, path) in cases {
        match formats::read(&text, None, OBJ) {
            Err(FormatError::Invalid { path: p, .. }) => assert_eq!(p, path),
            other => panic!("{path}: {other:?}"),
        }
    }
    let no_matrix = r#"{"vehicles": [{"id": 1}], "jobs": [{"id": 1, "location_index": 0}]}"#;
    assert!(matches!(
        formats::read(no_matrix, None, OBJ),
        Err(FormatError::Invalid { .. })
    ));
    let bad_lat = r#"{"vehicles": [{"id": 1}], "jobs": [{"id": 1, "location": [0, 91]}]}"#;
    assert!(matches!(
        formats::read(bad_lat, None, OBJ),
        Err(FormatError::Invalid { .. })
    ));
}

#[test]
fn unknown_content_is_not_guessed() {
    assert_eq!(
        formats::detect("hello\nworld"),
        Err(FormatError::Unrecognised)
    );
    assert_eq!(formats::detect(""), Err(FormatError::Unrecognised));
}

#[test]
fn every_shipped_benchmark_file_reads() {
    let dir = solver_support::instances();
    let mut count = 0;
    for set in ["solomon", "homberger", "lilim"] {
        for entry in std::fs::read_dir(dir.join(set)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "txt") {
                let text = solver_support::read_text(&path);
                let inst = formats::read(&text, None, OBJ)
                    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                assert!(!inst.problem.vehicles.is_empty(), "{}", path.display());
                count += 1;
            }
        }
    }
    assert_eq!(count, 56 + 72 + 56);
}

#[test]
fn a_byte_order_mark_before_json_is_accepted() {
    let text = format!("\u{feff}{VROOM_MATRIX}");
    assert_eq!(formats::detect(&text), Ok(Format::Vroom));
    assert!(formats::read(&text, None, OBJ).is_ok());
}
