//! `dispatch seed`.

use std::io::Read;

use dispatch_core::ports::clock::Clock;

use super::database::{Database, DatabaseParser};
use dispatch_core::service::seed;
use dispatch_http::clock::SystemClock;
use dispatch_http::keys::DerivedKeys;

/// The flags of `dispatch seed`.
#[derive(Debug, clap::Args)]
pub struct SeedArgs {
    /// SQLite database file (created with its schema if missing) or PostgreSQL URL
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME`; the schema is created or upgraded on start.
    #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
    pub db: Database,
    /// Setup file (JSON); `-` reads standard input.
    pub file: String,
}

/// Runs `dispatch seed`.
pub fn run(args: SeedArgs) -> Result<(), String> {
    let text = if args.file == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        s
    } else {
        std::fs::read_to_string(&args.file)
            .map_err(|e| format!("cannot read {}: {e}", args.file))?
    };
    let seed = seed::parse(&text).map_err(|e| e.to_string())?;
    let store = args.db.open()?;
    let output =
        seed::apply(&*store, &DerivedKeys, &seed, SystemClock.now()).map_err(|e| e.to_string())?;
    let text = serde_json::to_string_pretty(&output).map_err(|e| e.to_string())?;
    super::stdout::line(&text)
}
