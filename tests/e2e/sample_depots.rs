//! The sample depots: committed files are exactly what the generator writes, they carry the
//! constraint mix they promise, and the solver's answers on them pass the independent checker.

use std::path::PathBuf;

use dispatch_core::solver::checker;
use dispatch_core::solver::formats::{self, Format};
use dispatch_core::solver::problem::{Objective, Problem};
use dispatch_core::solver::{solve, Config, Control};
use dispatch_workspace::depot_day::{write_day, DaySpec, SAMPLE_SET};

fn depots_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("instances/depots")
}

fn generated(spec: DaySpec) -> String {
    let mut bytes = Vec::new();
    write_day(spec, &mut bytes).unwrap();
    String::from_utf8(bytes).unwrap()
}

fn committed(spec: DaySpec) -> String {
    let path = depots_dir().join(spec.file_name());
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn small() -> impl Iterator<Item = DaySpec> {
    SAMPLE_SET.iter().copied().filter(|s| s.orders <= 200)
}

fn read(text: &str) -> Problem {
    formats::read(text, Some(Format::Vroom), Objective::VehiclesThenDistance)
        .unwrap()
        .problem
}

#[test]
fn committed_small_depots_are_what_the_generator_writes() {
    for spec in small() {
        assert!(
            committed(spec) == generated(spec),
            "{} differs from the generator's output: the sample set is frozen",
            spec.file_name()
        );
    }
}

#[test]
fn the_manifest_lists_every_sample_depot_with_its_contents() {
    let manifest = std::fs::read_to_string(depots_dir().join("MANIFEST")).unwrap();
    let lines: Vec<&str> = manifest.lines().collect();
    assert_eq!(lines.len(), SAMPLE_SET.len());
    for (spec, line) in SAMPLE_SET.iter().zip(&lines) {
        assert!(line.starts_with(&spec.file_name()), "{line}");
    }
    for spec in small() {
        let p = read(&committed(spec));
        let line = lines
            .iter()
            .find(|l| l.starts_with(&spec.file_name()))
            .unwrap();
        let expect = format!(
            "jobs={} shipments={} vehicles={} locations={}",
            p.jobs.len(),
            p.shipments.len(),
            p.vehicles.len(),
            p.matrix.size()
        );
        assert!(line.contains(&expect), "{line} vs {expect}");
        assert_eq!(p.jobs.len() + p.shipments.len(), spec.orders);
    }
}

#[test]
fn a_depot_day_has_the_promised_constraint_mix() {
    let p = read(&generated(DaySpec::sample(200, 1)));
    assert_eq!(p.dimensions, 2);
    assert!(!p.shipments.is_empty());
    let windows = |n: usize| {
        p.jobs
            .iter()
            .filter(|j| j.place.time_windows.len() == n)
            .count()
    };
    assert!(windows(0) > 0 && windows(1) > 0 && windows(2) > 0);
    assert!(p.jobs.iter().any(|j| j.skills != Default::default()));
    assert!(p.jobs.iter().any(|j| j.priority > 0));
    assert!(p.jobs.iter().any(|j| !j.pickup.iter().all(|&a| a == 0)));
    assert!(p.vehicles.iter().all(|v| !v.breaks.is_empty()));
    assert!(p.vehicles.iter().any(|v| v.breaks.len() == 2));
    let n = p.matrix.size();
    let asymmetric = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .filter(|&(i, j)| p.matrix.duration(i, j) != p.matrix.duration(j, i))
        .count();
    assert!(asymmetric > n * (n - 1) / 2, "{asymmetric} of {n}x{n}");
}

#[test]
fn days_differ_by_size_and_day_number() {
    let a = generated(DaySpec::sample(50, 1));
    assert_ne!(a, generated(DaySpec::sample(50, 2)));
    assert_ne!(a, generated(DaySpec::sample(51, 1)));
}

#[test]
fn a_looser_fleet_keeps_the_orders_and_only_adds_vehicles() {
    let tight = read(&generated(DaySpec::sample(200, 1)));
    let loose_spec = DaySpec {
        tasks_per_vehicle: 13,
        ..DaySpec::sample(200, 1)
    };
    assert_eq!(loose_spec.file_name(), "depot-0200-1-per13.json");
    let loose = read(&generated(loose_spec));
    let tasks = tight.jobs.len() + 2 * tight.shipments.len();
    assert_eq!(tight.vehicles.len(), tasks.div_ceil(26));
    assert_eq!(loose.vehicles.len(), tasks.div_ceil(13));
    assert_eq!(loose.jobs, tight.jobs);
    assert_eq!(loose.shipments, tight.shipments);
    assert_eq!(loose.matrix, tight.matrix);
    assert_eq!(&loose.vehicles[..tight.vehicles.len()], &tight.vehicles[..]);
}

struct Never;

impl Control for Never {
    fn should_stop(&self) -> bool {
        false
    }
}

#[test]
fn solutions_of_the_small_depots_pass_the_independent_checker() {
    for spec in small() {
        let p = read(&committed(spec));
        let config = Config {
            seed: 1,
            threads: 1,
            max_iterations: Some(50),
        };
        let s = solve(&p, &config, &Never);
        let report = checker::check(&p, &s);
        assert!(
            report.is_feasible(),
            "{}: {:?}",
            spec.file_name(),
            report.violations
        );
        let tasks = p.jobs.len() + 2 * p.shipments.len();
        assert!(
            s.unassigned.len() * 5 < tasks,
            "{}: {} of {tasks} unassigned",
            spec.file_name(),
            s.unassigned.len()
        );
    }
}
