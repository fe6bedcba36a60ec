//! Solver benchmark: solves a set (or a list) of instances at a time limit, verifies every
//! solution with the independent checker, and prints one row per instance and a summary with the
//! gap to the best known solutions (`bks.csv` beside the instances).
//!
//! Gap conventions (`instances/README.md`): with `--objective distance` the DIMACS figure
//! (arcs truncated to one decimal) is compared with the `distance` rows; with
//! `--objective vehicles-distance` the vehicles and double-precision distance are compared with
//! the `hierarchical` rows. Sets without a `distance` row fall back to `hierarchical` (marked `h`).
//! `--convention dimacs` solves and checks with truncated arcs (times too), the convention of the
//! DIMACS rows and of competitors' published runs; the default is `dispatch solve`'s exact model.
//!
//! ```text
//! cargo run --release --example bench_solver -- --set solomon --time-limit 1 --threads 2 --objective distance
//! cargo run --release --example bench_solver -- --set homberger --size 200 --sample 12 --time-limit 30
//! cargo run --release --example bench_solver -- --smoke
//! cargo run --release --example bench_solver -- --set homberger --size 400 --threads 1 --time-limit 60 --clock cpu
//! cargo run --release --example bench_solver -- --instances-dir ../shared/instances --set homberger --size 600
//! ```
//!
//! Instances come from the repository's `instances/` folder unless `--instances-dir` names another
//! folder laid out the same way (the full sets).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::{Parser, ValueEnum};
use dispatch_core::solver::checker::{self, plane::check_plane};
use dispatch_core::solver::formats::{self, Convention};
use dispatch_core::solver::problem::Objective;
use dispatch_core::solver::{solve_with, Config, Control, Strategy};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Set {
    Solomon,
    Homberger,
    Lilim,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ConventionArg {
    Exact,
    Dimacs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum StrategyArg {
    Auto,
    Annealing,
    Population,
}

/// What the time limit counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ClockArg {
    /// Wall-clock seconds: what a user waits; needs free cores to compare runs.
    Wall,
    /// CPU seconds of the process divided by the threads: a run's search is close to what it
    /// gets in the same wall time on free cores, so variants can be screened on a busy machine
    /// (caches and memory are still shared with the other load).
    Cpu,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ObjectiveArg {
    Distance,
    VehiclesDistance,
}

/// Benchmark the solver against the best known solutions.
#[derive(Debug, Parser)]
struct Args {
    /// Instance files (BKS from the `bks.csv` in their folder); alternative to --set.
    files: Vec<PathBuf>,
    /// A whole benchmark set.
    #[arg(long, value_enum)]
    set: Option<Set>,
    /// Customers per instance within the set (homberger: 200..1000; lilim: 100..1000).
    #[arg(long)]
    size: Option<usize>,
    /// Only these instances of the set (comma-separated names, case-insensitive).
    #[arg(long, value_delimiter = ',')]
    names: Vec<String>,
    /// Keep N instances spread evenly over the (sorted) selection.
    #[arg(long)]
    sample: Option<usize>,
    /// Wall-clock seconds per instance.
    #[arg(long, default_value_t = 10.0)]
    time_limit: f64,
    /// What the time limit counts.
    #[arg(long, value_enum, default_value = "wall")]
    clock: ClockArg,
    /// Iteration budget per instance (deterministic runs).
    #[arg(long)]
    iterations: Option<u64>,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    #[arg(long, value_enum, default_value = "vehicles-distance")]
    objective: ObjectiveArg,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Search strategy (`auto`: the solver's choice per problem).
    #[arg(long, value_enum, default_value = "auto")]
    strategy: StrategyArg,
    /// Travel model: exact (times rounded up; `dispatch solve`'s) or dimacs (every arc's distance
    /// and time truncated to one decimal, as the DIMACS BKS and e.g. PyVRP's published runs).
    #[arg(long, value_enum, default_value = "exact")]
    convention: ConventionArg,
    /// Write the table to this file (a bare name goes to bench-results/).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Folder holding solomon/, homberger/, lilim/ [default: the repository's instances/].
    #[arg(long, default_value_os_t = default_instances_dir())]
    instances_dir: PathBuf,
    /// Quick run: C101, R201 and lc101 at 1 s (unless other flags say otherwise).
    #[arg(long)]
    smoke: bool,
}

/// A deadline on the wall clock or on the process's CPU time, that also counts the search's
/// iterations.
struct Deadline {
    started: Instant,
    limit: Duration,
    iterations: AtomicU64,
    /// With `--clock cpu`: the threads the CPU time is shared by, the process's CPU time at the
    /// start, and the last reading with the wall time it was taken at (both in nanoseconds).
    cpu: Option<CpuClock>,
}

/// The process's CPU time as the deadline reads it.
struct CpuClock {
    threads: u64,
    start: u64,
    read_at: AtomicU64,
    used: AtomicU64,
}

/// Wall time between two readings of the CPU time: a system call per iteration would cost the
/// search a few percent.
const CPU_READ_EVERY: Duration = Duration::from_millis(5);

/// CPU time (user and system) of every thread of the process, in nanoseconds.
#[allow(unsafe_code)]
fn process_cpu_nanos() -> u64 {
    // SAFETY: getrusage writes the struct it is given and nothing else.
    let usage = unsafe {
        let mut usage = std::mem::zeroed::<libc::rusage>();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let nanos = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    nanos(usage.ru_utime) + nanos(usage.ru_stime)
}

impl Deadline {
    fn new(limit: Duration, clock: ClockArg, threads: usize) -> Deadline {
        Deadline {
            started: Instant::now(),
            limit,
            iterations: AtomicU64::new(0),
            cpu: (clock == ClockArg::Cpu).then(|| CpuClock {
                threads: threads.max(1) as u64,
                start: process_cpu_nanos(),
                read_at: AtomicU64::new(0),
                used: AtomicU64::new(0),
            }),
        }
    }

    /// The time counted so far.
    fn elapsed(&self) -> Duration {
        let wall = self.started.elapsed();
        let Some(cpu) = &self.cpu else {
            return wall;
        };
        let now = wall.as_nanos() as u64;
        let last = cpu.read_at.load(Ordering::Relaxed);
        if now >= last + CPU_READ_EVERY.as_nanos() as u64 || last == 0 {
            cpu.read_at.store(now.max(1), Ordering::Relaxed);
            let used = process_cpu_nanos().saturating_sub(cpu.start) / cpu.threads;
            cpu.used.store(used, Ordering::Relaxed);
        }
        Duration::from_nanos(cpu.used.load(Ordering::Relaxed))
    }
}

impl Control for Deadline {
    fn should_stop(&self) -> bool {
        self.elapsed() >= self.limit
    }
    fn on_iterations(&self, total: u64) {
        self.iterations.store(total, Ordering::Relaxed);
    }
    fn elapsed_fraction(&self) -> Option<f64> {
        Some((self.elapsed().as_secs_f64() / self.limit.as_secs_f64().max(1e-9)).min(1.0))
    }
}

/// `(vehicles, distance)` of one BKS row.
type Bks = (Option<usize>, f64);

/// `instance (lowercase) -> objective -> row` from a `bks.csv`.
fn read_bks(dir: &Path) -> HashMap<String, HashMap<String, Bks>> {
    let mut out: HashMap<String, HashMap<String, Bks>> = HashMap::new();
    let Ok(text) = std::fs::read_to_string(dir.join("bks.csv")) else {
        return out;
    };
    for line in text.lines().skip(1) {
        let cols: Vec<&str> = line.splitn(5, ',').collect();
        if let [name, vehicles, distance, objective, ..] = cols[..] {
            if let Ok(d) = distance.parse() {
                out.entry(name.to_lowercase())
                    .or_default()
                    .insert(objective.to_owned(), (vehicles.parse().ok(), d));
            }
        }
    }
    out
}

fn default_instances_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("instances")
}

/// Customers in an instance file name: `c1_2_1` -> 200, `LC1_10_3` -> 1000, `lc101` -> 100.
fn size_of(stem: &str) -> usize {
    match stem.split('_').nth(1) {
        Some(n) => n.parse::<usize>().map_or(0, |n| n * 100),
        None => 100,
    }
}

/// Natural order: `c1_2_2` before `c1_2_10`.
fn natural_key(stem: &str) -> Vec<(String, u64)> {
    let lower = stem.to_lowercase();
    let mut key = Vec::new();
    for part in lower.split('_') {
        let digits = part.trim_start_matches(|c: char| !c.is_ascii_digit());
        let prefix = &part[..part.len() - digits.len()];
        key.push((prefix.to_owned(), digits.parse().unwrap_or(0)));
    }
    key
}

fn select(args: &Args) -> Result<Vec<PathBuf>, String> {
    if !args.files.is_empty() {
        return Ok(args.files.clone());
    }
    let root = &args.instances_dir;
    let set = args.set.ok_or("give --set, --smoke or instance files")?;
    let dir = root.join(format!("{set:?}").to_lowercase());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    let stem = |p: &PathBuf| {
        p.file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned()
    };
    files.retain(|p| args.size.is_none_or(|s| size_of(&stem(p)) == s));
    if !args.names.is_empty() {
        files.retain(|p| args.names.iter().any(|n| n.eq_ignore_ascii_case(&stem(p))));
    }
    files.sort_by_key(|p| natural_key(&stem(p)));
    if let Some(n) = args.sample.filter(|&n| n > 0 && n < files.len()) {
        let len = files.len();
        files = (0..n).map(|i| files[i * len / n].clone()).collect();
    }
    Ok(files)
}

struct Row {
    name: String,
    vehicles: usize,
    distance: f64,
    dimacs: f64,
    bks: Option<(Bks, &'static str)>,
    gap: Option<f64>,
    at_bks_vehicles: Option<bool>,
    time: f64,
    iterations: u64,
    feasible: bool,
    note: String,
}

fn run_one(path: &Path, args: &Args) -> Result<Row, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let objective = match args.objective {
        ObjectiveArg::Distance => Objective::Distance,
        ObjectiveArg::VehiclesDistance => Objective::VehiclesThenDistance,
    };
    let convention = match args.convention {
        ConventionArg::Exact => Convention::Exact,
        ConventionArg::Dimacs => Convention::Dimacs,
    };
    let inst = formats::read_with(&text, None, objective, convention)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let plane = inst
        .plane
        .as_ref()
        .ok_or("benchmarks need a Euclidean instance")?;
    let name = path
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let config = Config {
        seed: args.seed,
        threads: args.threads,
        max_iterations: args.iterations,
    };
    let control = Deadline::new(
        Duration::from_secs_f64(args.time_limit),
        args.clock,
        args.threads,
    );
    let strategy = match args.strategy {
        StrategyArg::Auto => Strategy::Auto,
        StrategyArg::Annealing => Strategy::Annealing,
        StrategyArg::Population => Strategy::Population,
    };
    let solution = solve_with(&inst.problem, &config, strategy, &control);
    let time = control.elapsed().as_secs_f64();
    let iterations = control.iterations.load(Ordering::Relaxed);
    let report = checker::check(&inst.problem, &solution);
    let exact = check_plane(&inst.problem, &solution, plane);
    let mut note: Vec<String> = report
        .violations
        .iter()
        .chain(&exact.violations)
        .take(2)
        .map(|v| v.to_string())
        .collect();
    if report.unassigned > 0 {
        note.insert(0, format!("{} unassigned", report.unassigned));
    }
    let feasible = report.is_feasible() && exact.is_feasible() && report.unassigned == 0;

    let bks = read_bks(path.parent().unwrap_or(Path::new(".")));
    let rows = bks.get(&name.to_lowercase());
    let hier = rows.and_then(|r| r.get("hierarchical")).copied();
    let (reference, ours) = match args.objective {
        ObjectiveArg::Distance => match rows.and_then(|r| r.get("distance")) {
            Some(&(v, d)) => (Some(((v, d), "dimacs")), exact.dimacs_distance),
            None => (hier.map(|h| (h, "h")), exact.distance),
        },
        ObjectiveArg::VehiclesDistance => (hier.map(|h| (h, "hier")), exact.distance),
    };
    Ok(Row {
        name,
        vehicles: report.vehicles,
        distance: exact.distance,
        dimacs: exact.dimacs_distance,
        gap: reference
            .filter(|_| feasible)
            .map(|((_, d), _)| (ours - d) / d * 100.0),
        at_bks_vehicles: reference
            .and_then(|((v, _), _)| v)
            .map(|v| report.vehicles <= v),
        bks: reference,
        time,
        iterations,
        feasible,
        note: note.join("; "),
    })
}

fn table_row(r: &Row) -> String {
    let (bv, bd, kind) = match r.bks {
        Some(((v, d), k)) => (
            v.map_or("-".into(), |v| v.to_string()),
            format!("{d:.2}"),
            k,
        ),
        None => ("-".into(), "-".into(), "-"),
    };
    format!(
        "| {:<10} | {:>3} | {:>10.2} | {:>10.1} | {:>3} | {:>10} | {:<6} | {:>7} | {:>6.2} | {:>8.0} | {}{} |",
        r.name,
        r.vehicles,
        r.distance,
        r.dimacs,
        bv,
        bd,
        kind,
        r.gap.map_or("-".into(), |g| format!("{:.2}", if g.abs() < 0.005 { 0.0 } else { g })),
        r.time,
        r.iterations as f64 / r.time.max(1e-9),
        if r.feasible { "yes" } else { "NO" },
        if r.note.is_empty() { String::new() } else { format!(" ({})", r.note) }
    )
}

fn summary(rows: &[Row]) -> String {
    let gaps: Vec<f64> = rows.iter().filter_map(|r| r.gap).collect();
    let mean_gap = gaps.iter().sum::<f64>() / gaps.len().max(1) as f64;
    let mean_gap = if mean_gap.abs() < 0.005 {
        0.0
    } else {
        mean_gap
    };
    let with_v: Vec<bool> = rows.iter().filter_map(|r| r.at_bks_vehicles).collect();
    let mean = |f: &dyn Fn(&Row) -> Option<f64>| {
        let v: Vec<f64> = rows.iter().filter_map(f).collect();
        if v.is_empty() {
            "-".to_owned()
        } else {
            format!("{:.2}", v.iter().sum::<f64>() / v.len() as f64)
        }
    };
    format!(
        "instances: {}  infeasible or incomplete: {}  mean gap: {:.2} % (over {})  at BKS vehicle count: {}/{}  mean vehicles: {} (BKS {})  mean time: {} s  mean iterations/s: {}",
        rows.len(),
        rows.iter().filter(|r| !r.feasible).count(),
        mean_gap,
        gaps.len(),
        with_v.iter().filter(|&&b| b).count(),
        with_v.len(),
        mean(&|r| Some(r.vehicles as f64)),
        mean(&|r| r.bks.and_then(|((v, _), _)| v).map(|v| v as f64)),
        mean(&|r| Some(r.time)),
        mean(&|r| Some(r.iterations as f64 / r.time.max(1e-9))),
    )
}

fn git(args: &[&str]) -> String {
    std::process::Command::new("git")
        .args(args)
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default()
}

fn main() -> Result<(), String> {
    let mut args = Args::parse();
    if args.smoke {
        if args.files.is_empty() && args.set.is_none() {
            let root = &args.instances_dir;
            args.files = ["solomon/C101.txt", "solomon/R201.txt", "lilim/lc101.txt"]
                .iter()
                .map(|f| root.join(f))
                .collect();
        }
        args.time_limit = args.time_limit.min(1.0);
    }
    let files = select(&args)?;
    if files.is_empty() {
        return Err("no instance selected".into());
    }
    let header = "| instance   | veh |   distance |     DIMACS | BKS veh |   BKS dist | ref    |   gap % | time s |   iter/s | feasible |";
    let mut out = format!(
        "commit {}{}; objective {:?}, convention {:?}, time limit {} s ({:?} clock), iterations {:?}, threads {}, seed {}; load average at start {}\n\n{header}\n|---|---|---|---|---|---|---|---|---|---|---|\n",
        git(&["rev-parse", "--short", "HEAD"]),
        if git(&["status", "--porcelain", "--untracked-files=no"]).is_empty() { "" } else { " (dirty)" },
        args.objective,
        args.convention,
        args.time_limit,
        args.clock,
        args.iterations,
        args.threads,
        args.seed,
        std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|l| l.split_whitespace().next().map(str::to_owned))
            .unwrap_or_else(|| "unknown".to_owned()),
    );
    print!("{out}");
    let mut rows = Vec::new();
    for f in &files {
        let row = run_one(f, &args)?;
        let line = table_row(&row);
        println!("{line}");
        let _ = std::io::stdout().flush();
        writeln!(out, "{line}").expect("write to a String");
        rows.push(row);
    }
    let sum = summary(&rows);
    println!("\n{sum}");
    writeln!(out, "\n{sum}").expect("write to a String");
    if let Some(path) = &args.out {
        let path = if path.components().count() == 1 {
            Path::new("bench-results").join(path)
        } else {
            path.clone()
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        std::fs::write(&path, out).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("written to {}", path.display());
    }
    if rows.iter().any(|r| !r.feasible) {
        return Err("some solutions are infeasible or incomplete".into());
    }
    Ok(())
}
