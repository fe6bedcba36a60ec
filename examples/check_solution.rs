//! The one independent checker for every solver in `benches/peers`: reads an instance and a
//! solution from any solver, rebuilds the earliest schedule of each route, runs
//! `solver::checker` (and, for Euclidean instances, the double-precision `checker::plane`
//! re-check) and prints one JSON line with the verdict and the figures.
//!
//! ```text
//! cargo run --release --example check_solution -- instances/solomon/C101.txt solution.json
//! ```
//!
//! The solution is `dispatch solve`'s output shape: `{"routes": [...]}` where a route is a list of
//! node numbers of a text instance (route k runs on vehicle k), or, for VROOM-style JSON,
//! `{"vehicle": ID, "steps": [{"type": "job"|"pickup"|"delivery"|"break", "id": N}, ...]}`.
//! Tasks on no route count as unassigned.

use std::collections::HashSet;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};
use dispatch_core::solver::checker::{self, plane::check_plane};
use dispatch_core::solver::formats::{self, Convention, Format, Instance};
use dispatch_core::solver::problem::Objective;
use dispatch_core::solver::solution::{Reason, Route, Solution, Step, Unassigned};
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ConventionArg {
    Exact,
    Dimacs,
}

/// Check a solution of any solver with dispatch's independent checker.
#[derive(Debug, Parser)]
struct Args {
    /// Instance file (Solomon / Homberger, Li & Lim, VROOM-style JSON).
    instance: PathBuf,
    /// Solution JSON (`-` reads standard input).
    solution: PathBuf,
    /// Travel model of text instances: exact (dispatch solve's) or dimacs (truncated arcs).
    #[arg(long, value_enum, default_value = "exact")]
    convention: ConventionArg,
}

fn step_of(inst: &Instance, vehicle: usize, kind: &str, id: u64) -> Result<Step, String> {
    let p = &inst.problem;
    let found = match kind {
        "job" => p.jobs.iter().position(|j| j.id == id).map(Step::Job),
        "pickup" => p
            .shipments
            .iter()
            .position(|s| s.pickup_id == id)
            .map(Step::Pickup),
        "delivery" => p
            .shipments
            .iter()
            .position(|s| s.delivery_id == id)
            .map(Step::Delivery),
        "break" => p.vehicles[vehicle]
            .breaks
            .iter()
            .position(|b| b.id == id)
            .map(Step::Break),
        _ => return Err(format!("unknown step type `{kind}`")),
    };
    found.ok_or_else(|| format!("no {kind} with id {id}"))
}

fn route_of(inst: &Instance, k: usize, route: &Value) -> Result<Route, String> {
    let p = &inst.problem;
    if let Some(nodes) = route.as_array() {
        let steps = nodes
            .iter()
            .map(|n| {
                let n = n.as_u64().ok_or("a node number")?;
                inst.node_step(n).ok_or(format!("no node {n}"))
            })
            .collect::<Result<Vec<_>, String>>()?;
        return Ok(checker::schedule(p, k, &steps));
    }
    let id = route["vehicle"].as_u64().ok_or("route without `vehicle`")?;
    let vehicle = p
        .vehicles
        .iter()
        .position(|v| v.id == id)
        .ok_or(format!("no vehicle {id}"))?;
    let steps = route["steps"]
        .as_array()
        .ok_or("route without `steps`")?
        .iter()
        .filter(|s| !matches!(s["type"].as_str(), Some("start" | "end")))
        .map(|s| {
            let kind = s["type"].as_str().ok_or("step without `type`")?;
            let id = s["id"].as_u64().ok_or("step without `id`")?;
            step_of(inst, vehicle, kind, id)
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok(checker::schedule(p, vehicle, &steps))
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    let text = std::fs::read_to_string(&args.instance)
        .map_err(|e| format!("{}: {e}", args.instance.display()))?;
    let solution: Value = if args.solution.as_os_str() == "-" {
        serde_json::from_reader(std::io::stdin()).map_err(|e| e.to_string())?
    } else {
        let s = std::fs::read_to_string(&args.solution).map_err(|e| e.to_string())?;
        serde_json::from_str(&s).map_err(|e| e.to_string())?
    };
    let convention = match args.convention {
        ConventionArg::Exact => Convention::Exact,
        ConventionArg::Dimacs => Convention::Dimacs,
    };
    let inst = formats::read_with(&text, None, Objective::Distance, convention)
        .map_err(|e| e.to_string())?;
    let routes = solution["routes"]
        .as_array()
        .ok_or("the solution has no `routes` list")?
        .iter()
        .filter(|r| r.as_array().is_none_or(|a| !a.is_empty()))
        .enumerate()
        .map(|(k, r)| route_of(&inst, k, r))
        .collect::<Result<Vec<_>, String>>()?;
    let p = &inst.problem;
    let visited: HashSet<Step> = routes
        .iter()
        .flat_map(|r| r.steps.iter().map(|s| s.step))
        .collect();
    // A shipment on no route is listed once, by its pickup (the checker's convention); one
    // visited by half is left for the checker to report.
    let all = (0..p.jobs.len()).map(Step::Job).chain(
        (0..p.shipments.len())
            .filter(|&i| !visited.contains(&Step::Delivery(i)))
            .map(Step::Pickup),
    );
    let unassigned: Vec<Unassigned> = all
        .filter(|s| !visited.contains(s))
        .map(|task| Unassigned {
            task,
            reason: Reason::NotPlaced,
        })
        .collect();
    let missing: usize = unassigned
        .iter()
        .map(|u| if matches!(u.task, Step::Job(_)) { 1 } else { 2 })
        .sum();
    let sol = Solution { routes, unassigned };
    let report = checker::check(p, &sol);
    let mut violations: Vec<String> = report.violations.iter().map(|v| format!("{v:?}")).collect();
    let mut out = json!({
        "instance": p.name,
        "vehicles": report.vehicles,
        "tasks": p.jobs.len() + 2 * p.shipments.len(),
        "assigned": p.jobs.len() + 2 * p.shipments.len() - missing,
        "travel_time": report.travel_time,
        "distance": report.distance,
    });
    if let (Format::Solomon | Format::LiLim, Some(plane)) = (inst.format, inst.plane.as_ref()) {
        let plane_report = check_plane(p, &sol, plane);
        violations.extend(
            plane_report
                .violations
                .iter()
                .map(|v| format!("plane: {v:?}")),
        );
        out["plane_distance"] = json!(plane_report.distance);
        out["dimacs_distance"] = json!(plane_report.dimacs_distance);
    }
    out["feasible"] = json!(violations.is_empty());
    violations.truncate(5);
    out["violations"] = json!(violations);
    println!("{out}");
    Ok(())
}
