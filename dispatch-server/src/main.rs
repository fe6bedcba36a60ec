//! The `dispatch` binary: a thin shell over the library crates.
//! Subcommands and flags follow `operator-interface.md` exactly.

use std::process::ExitCode;

use dispatch_server::cli::serve::LogFormat;
use dispatch_server::cli::Command;

fn main() -> ExitCode {
    let cli = dispatch_server::cli::parse();
    // Under --log-format json every line on stderr is a JSON object, the error that ends the
    // process too: it is logged through the subscriber `run` installed.
    let mut json_logs = false;
    let result = match cli.command {
        Command::Serve(args) => {
            json_logs = args.log_format == LogFormat::Json;
            dispatch_server::cli::serve::run(*args)
        }
        Command::Worker(args) => {
            json_logs = args.log_format == LogFormat::Json;
            dispatch_server::cli::worker::run(*args)
        }
        Command::Seed(args) => dispatch_server::cli::seed::run(args),
        Command::Solve(args) => match dispatch_server::cli::solve::run(args) {
            Ok(code) => return code,
            Err(message) => Err(message),
        },
        Command::ExportProblem(args) => dispatch_server::cli::export_problem::run(args),
        Command::Webhooks(args) => dispatch_server::cli::webhooks::run(args),
        Command::Keys(args) => dispatch_server::cli::keys::run(args),
        Command::Backup(args) => dispatch_server::cli::backup::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) if json_logs => {
            tracing::error!("{message}");
            ExitCode::FAILURE
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
