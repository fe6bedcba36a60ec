//! `dispatch solve FILE`: reads one instance, solves it with the core solver under a wall-clock
//! and/or iteration budget, re-checks the result with the independent checker and prints one JSON
//! document (shapes fixed by `operator-interface.md`, or VROOM's output format with
//! `--output vroom`). Progress goes to stderr.

use std::io::{IsTerminal, Read};
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use clap::ValueEnum;
use dispatch_core::solver::checker::{self, plane::check_plane};
use dispatch_core::solver::formats::vroom_solution::{self, ComputingTimes};
use dispatch_core::solver::formats::{self, Convention, Format, Instance, SCALE};
use dispatch_core::solver::problem::Objective;
use dispatch_core::solver::solution::{Solution, Step};
use dispatch_core::solver::{solve, Config};
use serde::Serialize;

use super::solve_control::{Deadline, Signals};

/// Instance format flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Solomon / Gehring-Homberger VRPTW text.
    Solomon,
    /// Li & Lim PDPTW text.
    Lilim,
    /// VROOM-style JSON problem.
    Vroom,
    /// Detect from the content.
    Auto,
}

/// How Solomon and Li & Lim coordinates become travel times and distances.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConventionArg {
    /// Euclidean in double precision, travel times rounded up (the operator interface's).
    Exact,
    /// DIMACS / CVRPLIB: every arc truncated to one decimal, times too; the convention of the
    /// published `distance` best-known solutions and of the peers' benchmark runs.
    Dimacs,
}

/// Output flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputArg {
    /// The operator interface's document.
    Default,
    /// VROOM's own output format (`code`, `summary`, `unassigned`, `routes` with every step's
    /// arrival, waiting time and load), for scripts written for VROOM.
    Vroom,
}

/// Objective flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ObjectiveArg {
    /// Minimise distance only (for VROOM input: total travel duration, VROOM's objective).
    Distance,
    /// Fewest vehicles first, then distance (for VROOM input: then travel duration).
    VehiclesDistance,
}

/// The flags of `dispatch solve`.
#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Instance file (`-` reads standard input).
    pub file: String,
    /// Instance format.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: FormatArg,
    /// Wall-clock budget in seconds for the whole command, from reading the file to the exit
    /// (decimal allowed): the search stops a reserve before it, measured in the run, for the
    /// check and the output; the best solution so far is printed.
    #[arg(long, value_name = "SECS", default_value = "10", value_parser = parse_seconds)]
    pub time_limit: f64,
    /// Stop after N search iterations (or at the time limit, whichever comes first).
    #[arg(long, value_name = "N")]
    pub iterations: Option<u64>,
    /// Random seed: same seed, threads and iterations give the same routes.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub seed: u64,
    /// Worker threads [default: all cores].
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
    /// What to minimise [default: vehicles-distance; VROOM input: distance, i.e. duration].
    #[arg(long, value_enum)]
    pub objective: Option<ObjectiveArg>,
    /// Travel model of Solomon and Li & Lim files (VROOM input has its own matrix): `dimacs`
    /// only to compare with results published in that convention.
    #[arg(long, value_enum, default_value = "exact")]
    pub convention: ConventionArg,
    /// What is printed: the operator interface's document, or VROOM's output format.
    #[arg(long, value_enum, default_value = "default")]
    pub output: OutputArg,
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && (0.0..=1e9).contains(&v) => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of seconds (a decimal from 0 upwards)"
        )),
    }
}

#[derive(Serialize)]
struct TextOutput {
    instance: String,
    vehicles: usize,
    distance: f64,
    /// Sum of arcs truncated to one decimal (DIMACS convention), for comparing with such BKS.
    distance_dimacs: f64,
    unassigned: Vec<u64>,
    routes: Vec<Vec<u64>>,
    elapsed_s: f64,
    seed: u64,
    feasible: bool,
    /// Set when Ctrl-C or SIGTERM stopped the search before its budget.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
    unassigned_reasons: Vec<UnassignedEntry>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    violations: Vec<String>,
}

#[derive(Serialize)]
struct VroomOutput {
    instance: String,
    vehicles: usize,
    cost: i64,
    unassigned: Vec<UnassignedEntry>,
    routes: Vec<VroomRoute>,
    elapsed_s: f64,
    seed: u64,
    feasible: bool,
    /// Set when Ctrl-C or SIGTERM stopped the search before its budget.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    interrupted: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    violations: Vec<String>,
}

#[derive(Serialize)]
struct UnassignedEntry {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    kind: Option<&'static str>,
    id: u64,
    reason: &'static str,
    reason_description: &'static str,
}

#[derive(Serialize)]
struct VroomRoute {
    vehicle: u64,
    steps: Vec<VroomStep>,
}

#[derive(Serialize)]
struct VroomStep {
    #[serde(rename = "type")]
    kind: &'static str,
    id: u64,
    arrival: i64,
}

/// The unassigned tasks as steps: a shipment stands for both its visits.
fn unassigned_steps(solution: &Solution) -> Vec<(Step, &'static str, &'static str)> {
    solution
        .unassigned
        .iter()
        .flat_map(|u| {
            u.visits()
                .map(move |step| (step, u.reason.code(), u.reason.description()))
        })
        .collect()
}

fn read_input(file: &str) -> Result<String, String> {
    let mut text = String::new();
    if file == "-" {
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
    } else {
        text = std::fs::read_to_string(file).map_err(|e| format!("cannot read {file}: {e}"))?;
    }
    Ok(text)
}

fn round(x: f64, decimals: i32) -> f64 {
    let f = 10f64.powi(decimals);
    (x * f).round() / f
}

/// Solves and prints; the exit status is success, or the signal's status when Ctrl-C (130) or
/// SIGTERM (143) stopped the search early (the best solution so far is printed either way).
pub fn run(args: SolveArgs) -> Result<ExitCode, String> {
    // The time limit counts from the start of the command: reading and parsing a big day (a
    // 157 MB file for 5 000 orders) took 15 % of a 120 s limit when the clock started after it.
    let started = Instant::now();
    let signals = Signals::register()?;
    let text = read_input(&args.file)?;
    let format = match args.format {
        FormatArg::Solomon => Format::Solomon,
        FormatArg::Lilim => Format::LiLim,
        FormatArg::Vroom => Format::Vroom,
        FormatArg::Auto => formats::detect(&text).map_err(|e| format!("{}: {e}", args.file))?,
    };
    let objective = match (format, args.objective) {
        (Format::Vroom, None | Some(ObjectiveArg::Distance)) => Objective::Duration,
        (Format::Vroom, Some(ObjectiveArg::VehiclesDistance)) => Objective::VehiclesThenDuration,
        (_, Some(ObjectiveArg::Distance)) => Objective::Distance,
        (_, None | Some(ObjectiveArg::VehiclesDistance)) => Objective::VehiclesThenDistance,
    };
    let convention = match args.convention {
        ConventionArg::Exact => Convention::Exact,
        ConventionArg::Dimacs => Convention::Dimacs,
    };
    let mut instance = formats::read_with(&text, Some(format), objective, convention)
        .map_err(|e| format!("{}: {e}", args.file))?;
    // The text is a third of the memory of a big day's search (157 MB of 5 000 orders).
    drop(text);
    if instance.problem.name.is_empty() {
        instance.problem.name = Path::new(&args.file)
            .file_stem()
            .and_then(|s| s.to_str())
            .filter(|s| *s != "-")
            .unwrap_or("stdin")
            .to_owned();
    }
    let threads = args.threads.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t as usize,
    );
    let config = Config {
        seed: args.seed,
        threads,
        max_iterations: args.iterations,
    };
    let unit = if instance.plane.is_some() {
        SCALE as f64
    } else {
        1.0
    };
    let loading = started.elapsed();
    let control = Deadline::new(
        started,
        Duration::from_secs_f64(args.time_limit),
        threads,
        std::io::stderr().is_terminal(),
        unit,
        signals,
    );
    let solution = solve(&instance.problem, &config, &control);
    let reserve_s = control.reserve().as_secs_f64();
    let elapsed = control.elapsed().as_secs_f64();
    let elapsed_s = round(elapsed, 3);
    if control.terminal {
        eprintln!();
    }
    let iterations = control.iterations.load(Ordering::Relaxed);
    let interrupted = control.interrupted();
    let mut rendered = render(&instance, &solution, elapsed_s, args.seed, interrupted)?;
    if args.output == OutputArg::Vroom {
        let times = ComputingTimes {
            loading: loading.as_millis() as u64,
            solving: control.elapsed().saturating_sub(loading).as_millis() as u64,
        };
        rendered.json = vroom_solution::write(&instance, &solution, times);
    }
    super::stdout::line(&rendered.json)?;
    // The last stderr line sums the run up, whatever progress came before it.
    eprintln!(
        "done elapsed_s={elapsed_s} reserve_s={reserve_s:.3} iterations={iterations} iterations_per_s={:.1} vehicles={} {} unassigned={} feasible={}{}",
        iterations as f64 / elapsed.max(1e-9),
        rendered.vehicles,
        rendered.cost,
        rendered.unassigned,
        rendered.violations.is_empty(),
        if interrupted { " interrupted" } else { "" },
    );
    match rendered.violations.first() {
        None => Ok(control.signals.exit_code().unwrap_or(ExitCode::SUCCESS)),
        Some(first) => Err(format!(
            "the solver returned a solution the checker rejects ({} violations; first: {first})",
            rendered.violations.len()
        )),
    }
}

/// What is printed of a solution: the document, and the figures of the summary line.
struct Rendered {
    json: String,
    vehicles: usize,
    /// `distance=D` (Euclidean formats) or `cost=C` (VROOM-style input).
    cost: String,
    unassigned: usize,
    violations: Vec<String>,
}

/// The output document and the checker's violations (an infeasible solution is printed too).
fn render(
    instance: &Instance,
    solution: &Solution,
    elapsed_s: f64,
    seed: u64,
    interrupted: bool,
) -> Result<Rendered, String> {
    let problem = &instance.problem;
    let report = checker::check(problem, solution);
    let mut violations: Vec<String> = report.violations.iter().map(|v| v.to_string()).collect();
    let routes = solution
        .routes
        .iter()
        .filter(|r| r.steps.iter().any(|s| !matches!(s.step, Step::Break(_))));
    let left = unassigned_steps(solution);
    let mut cost = format!("cost={}", report.travel_time);
    let json = match &instance.plane {
        Some(plane) => {
            let recheck = check_plane(problem, solution, plane);
            cost = format!("distance={:.2}", recheck.distance);
            violations.extend(
                recheck
                    .violations
                    .iter()
                    .map(|v| format!("exact times: {v}")),
            );
            serde_json::to_string(&TextOutput {
                instance: problem.name.clone(),
                vehicles: report.vehicles,
                distance: round(recheck.distance, 4),
                distance_dimacs: round(recheck.dimacs_distance, 1),
                unassigned: left.iter().map(|&(s, ..)| instance.step_id(0, s)).collect(),
                routes: routes
                    .map(|r| {
                        r.steps
                            .iter()
                            .map(|s| instance.step_id(r.vehicle, s.step))
                            .collect()
                    })
                    .collect(),
                elapsed_s,
                seed,
                feasible: violations.is_empty(),
                interrupted,
                unassigned_reasons: left
                    .iter()
                    .map(|&(s, reason, reason_description)| UnassignedEntry {
                        kind: None,
                        id: instance.step_id(0, s),
                        reason,
                        reason_description,
                    })
                    .collect(),
                violations: violations.clone(),
            })
        }
        None => serde_json::to_string(&VroomOutput {
            instance: problem.name.clone(),
            vehicles: report.vehicles,
            cost: report.travel_time,
            unassigned: left
                .iter()
                .map(|&(s, reason, reason_description)| UnassignedEntry {
                    kind: Some(vroom_solution::step_type(s)),
                    id: instance.step_id(0, s),
                    reason,
                    reason_description,
                })
                .collect(),
            routes: routes
                .map(|r| VroomRoute {
                    vehicle: problem.vehicles[r.vehicle].id,
                    steps: r
                        .steps
                        .iter()
                        .map(|s| VroomStep {
                            kind: vroom_solution::step_type(s.step),
                            id: instance.step_id(r.vehicle, s.step),
                            arrival: s.arrival,
                        })
                        .collect(),
                })
                .collect(),
            elapsed_s,
            seed,
            feasible: violations.is_empty(),
            interrupted,
            violations: violations.clone(),
        }),
    }
    .map_err(|e| format!("cannot render the solution: {e}"))?;
    Ok(Rendered {
        json,
        vehicles: report.vehicles,
        cost,
        unassigned: left.len(),
        violations,
    })
}
