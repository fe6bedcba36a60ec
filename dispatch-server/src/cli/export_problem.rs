//! `dispatch export-problem`: writes the VROOM-style JSON problem an optimisation solved, with
//! the exact travel matrix it used, so a plan can be inspected, re-solved with
//! `dispatch solve --format vroom` or handed to VROOM.

use std::path::PathBuf;

use super::database::{Database, DatabaseParser};
use dispatch_core::ports::store::{Store, StoreError, StoreTx};

/// The flags of `dispatch export-problem`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["plan", "optimisation"])))]
pub struct ExportProblemArgs {
    /// SQLite database file of the service or PostgreSQL URL
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME`; the schema is created or upgraded on start.
    #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
    pub db: Database,
    /// The plan whose newest kept problem to write.
    #[arg(long)]
    pub plan: Option<i64>,
    /// The optimisation (UUID, as POST /plans/optimise/* answered it) whose problem to write.
    #[arg(long)]
    pub optimisation: Option<String>,
    /// Write to this file instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs `dispatch export-problem`.
pub fn run(args: ExportProblemArgs) -> Result<(), String> {
    if !args.db.exists() {
        return Err(format!("no database at {}", args.db));
    }
    let store = args.db.open()?;
    let store: &dyn Store = &*store;
    let problem = store
        .read(|tx| Ok::<_, StoreError>(find(tx, &args)))
        .map_err(|e| format!("cannot read the database: {e}"))??;
    match &args.out {
        Some(path) => std::fs::write(path, problem)
            .map_err(|e| format!("cannot write {}: {e}", path.display())),
        None => super::stdout::line(&problem),
    }
}

fn find(tx: &mut dyn StoreTx, args: &ExportProblemArgs) -> Result<String, String> {
    let read = |e: StoreError| format!("cannot read the database: {e}");
    match (&args.optimisation, args.plan) {
        (Some(id), _) => {
            let scope = tx
                .optimisation_scope(id)
                .map_err(read)?
                .ok_or_else(|| format!("no optimisation {id}"))?;
            tx.get_problem(scope, id)
                .map_err(read)?
                .ok_or_else(|| format!("the problem of optimisation {id} is not kept (it did not run, or newer ones replaced it)"))
        }
        (None, Some(plan)) => {
            let scope = tx
                .plan_scope(plan)
                .map_err(read)?
                .ok_or_else(|| format!("no plan {plan}"))?;
            tx.latest_problem_of_plan(scope, plan)
                .map_err(read)?
                .map(|(_, problem)| problem)
                .ok_or_else(|| format!("no kept problem of plan {plan} (not optimised yet, or newer problems replaced it)"))
        }
        (None, None) => Err("give --plan or --optimisation".into()),
    }
}
