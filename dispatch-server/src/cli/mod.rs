//! Command-line surface of the `dispatch` binary (`serve`, `worker`, `seed`, `solve`,
//! `export-problem`, `webhooks`, `keys`, `backup`).

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub mod background;
pub mod backup;
pub mod console;
pub mod database;
pub mod driver_app;
pub mod export_problem;
pub mod geocoding;
pub mod keys;
pub mod notifier;
pub mod seed;
pub mod serve;
pub mod simulation;
pub mod solve;
mod solve_control;
pub mod stdout;
pub mod travel;
pub mod webhooks;
pub mod worker;

/// dispatch: a routing-and-dispatch engine — the v2 REST service for orders, vehicles, route
/// optimisation and dispatch on an embedded SQLite file or a shared PostgreSQL database, and a
/// VRP solver.
#[derive(Debug, Parser)]
#[command(
    name = "dispatch",
    version,
    after_help = "Start here:\n  \
        dispatch serve                      run the service on ./dispatch.db (prints an access key on the first start)\n  \
        dispatch seed FILE                  set up organisations, depots and keys from a JSON file\n  \
        dispatch worker                     background work only (jobs, webhooks, notifications), beside serve --workers off\n  \
        dispatch keys list                  depots and their keys' names; `keys create` makes a new key\n  \
        dispatch solve C101.txt             solve a Solomon, Li & Lim or VROOM-style instance\n\n\
        `dispatch SUBCOMMAND --help` lists every flag; serve's flags can also come from DISPATCH_* variables."
)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands of `dispatch`.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the v2 REST service.
    Serve(Box<serve::ServeArgs>),
    /// Run only the background work (optimisation jobs, webhooks, notifications), no HTTP.
    Worker(Box<worker::WorkerArgs>),
    /// Apply a declarative setup file to a database and print what it created.
    Seed(seed::SeedArgs),
    /// Solve one routing instance file with the built-in solver and print the solution.
    Solve(solve::SolveArgs),
    /// Write the VROOM-style problem (with its travel matrix) an optimisation solved.
    ExportProblem(export_problem::ExportProblemArgs),
    /// Inspect failed webhook deliveries and re-send them.
    Webhooks(webhooks::WebhooksArgs),
    /// List, create and revoke access keys (on the database directly).
    Keys(keys::KeysArgs),
    /// Copy a SQLite database consistently, also while `serve` runs on it.
    Backup(backup::BackupArgs),
    /// Make a driver credential for a van and print the driver's app link with its QR code.
    DriverApp(driver_app::DriverAppArgs),
}

/// Prefix of the environment variables flags can come from.
pub const ENV_PREFIX: &str = "DISPATCH_";

/// A number of seconds in (0, 86400] (flags of `serve`, `worker` and their parts).
pub fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err(format!(
            "`{s}` is not a number of seconds above 0 and at most 86400"
        )),
    }
}

/// The variable a flag can come from: `DISPATCH_` and the long name in upper case with `-` as
/// `_` (`--rate-limits` is `DISPATCH_RATE_LIMITS`), as `operator-interface.md` fixes it.
pub fn env_name(long: &str) -> String {
    format!("{ENV_PREFIX}{}", long.replace('-', "_").to_uppercase())
}

/// The command line with its environment variables: every `serve` flag, and `--db` of every
/// other subcommand, can come from its `DISPATCH_*` variable; a flag given on the command line
/// wins. Added here once rather than on each flag, so a new `serve` flag gets its variable
/// without anyone having to remember it; `--help` names each variable (never its value: some
/// carry credentials).
pub fn command() -> clap::Command {
    with_env(Cli::command(), false)
}

fn with_env(mut command: clap::Command, serve: bool) -> clap::Command {
    let ids: Vec<(clap::Id, String)> = command
        .get_arguments()
        .filter(|a| serve || a.get_id() == "db")
        .filter(|a| a.get_env().is_none() && !matches!(a.get_id().as_str(), "help" | "version"))
        .filter_map(|a| Some((a.get_id().clone(), env_name(a.get_long()?))))
        .collect();
    for (id, name) in ids {
        command = command.mut_arg(id, |a| a.env(name));
    }
    command = command.mut_args(|a| {
        if a.get_env().is_some() {
            a.hide_env_values(true)
        } else {
            a
        }
    });
    let names: Vec<String> = command
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    for name in names {
        let serve = serve || name == "serve" || name == "worker";
        command = command.mut_subcommand(name, |c| with_env(c, serve));
    }
    command
}

/// Parses the process's arguments and environment (see [`command`]); exits with clap's message
/// on bad input.
pub fn parse() -> Cli {
    let matches = command().get_matches();
    Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every (sub)command's help, with the paths of those taking `--db`.
    fn helps(command: &mut clap::Command, path: &str, out: &mut Vec<(String, bool, String)>) {
        let takes_db = command.get_arguments().any(|a| a.get_id() == "db");
        out.push((
            path.to_owned(),
            takes_db,
            command.render_long_help().to_string(),
        ));
        for sub in command.get_subcommands_mut() {
            let path = format!("{path} {}", sub.get_name());
            helps(sub, &path, out);
        }
    }

    #[test]
    fn help_names_postgresql_wherever_a_database_is_taken() {
        let mut all = Vec::new();
        helps(&mut command(), "dispatch", &mut all);
        let (_, _, top) = &all[0];
        assert!(top.contains("PostgreSQL"), "dispatch --help: {top}");
        for (path, takes_db, help) in &all {
            if *takes_db {
                assert!(help.contains("PostgreSQL"), "{path} --help: {help}");
                assert!(help.contains("SQLite"), "{path} --help: {help}");
            }
        }
        assert!(all.iter().filter(|(_, db, _)| *db).count() >= 5);
    }
}
