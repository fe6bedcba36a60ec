//! How many tasks of an instance no solution can place: prints the certified placement bound
//! (`dispatch_core::solver::bound`, a linear-programming relaxation solved through its dual) as
//! one JSON line. `benches/peers/run depots ... --bound` shows it beside the solvers.
//!
//! ```text
//! cargo run --release --example placement_bound -- instances/depots/depot-5000-1.json
//! ```

use std::path::PathBuf;
use std::time::Instant;

use clap::Parser;
use dispatch_core::solver::bound::placement_bound;
use dispatch_core::solver::formats;
use dispatch_core::solver::problem::Objective;
use serde_json::json;

/// Print the certified upper bound on the tasks any solution of an instance can place.
#[derive(Debug, Parser)]
struct Args {
    /// Instance file (Solomon / Homberger, Li & Lim, VROOM-style JSON).
    instance: PathBuf,
}

fn main() -> Result<(), String> {
    let args = Args::parse();
    let text = std::fs::read_to_string(&args.instance)
        .map_err(|e| format!("{}: {e}", args.instance.display()))?;
    let problem = formats::read(&text, None, Objective::Duration)
        .map_err(|e| format!("{}: {e}", args.instance.display()))?
        .problem;
    drop(text);
    let started = Instant::now();
    let b = placement_bound(&problem);
    println!(
        "{}",
        json!({
            "tasks": b.tasks,
            "max_placed": b.max_placed,
            "unplaceable_at_least": b.unplaceable_at_least(),
            "unplaceable_alone": b.unplaceable_alone,
            "dual_value": b.dual_value,
            "primal_value": b.primal_value,
            "seconds": started.elapsed().as_secs_f64(),
        })
    );
    Ok(())
}
