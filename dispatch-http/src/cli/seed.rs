//! `dispatch seed`.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct SeedArgs {
    /// SQLite database file; created with its schema if missing.
    #[arg(long, default_value = "./dispatch.db")]
    pub db: PathBuf,
    /// Setup file (JSON); `-` reads standard input.
    pub file: String,
}

pub fn run(_args: SeedArgs) -> Result<(), String> {
    Err("seed is not built yet".into())
}
