//! Command-line surface of the `dispatch` binary (`serve`, `seed`, `solve`, `export-problem`).

use clap::{Parser, Subcommand};

pub mod database;
pub mod export_problem;
pub mod seed;
pub mod serve;
pub mod solve;
pub mod webhooks;

/// Routing-and-dispatch engine: the v2 REST service, its setup tool and the solver.
#[derive(Debug, Parser)]
#[command(name = "dispatch", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the v2 REST service.
    Serve(Box<serve::ServeArgs>),
    /// Apply a declarative setup file to a database and print what it created.
    Seed(seed::SeedArgs),
    /// Solve one routing instance file with the built-in solver and print the solution.
    Solve(solve::SolveArgs),
    /// Write the VROOM-style problem (with its travel matrix) an optimisation solved.
    ExportProblem(export_problem::ExportProblemArgs),
    /// Inspect failed webhook deliveries and re-send them.
    Webhooks(webhooks::WebhooksArgs),
}
