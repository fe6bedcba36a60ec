//! `dispatch serve`.

use std::path::PathBuf;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// SQLite database file; created with its schema if missing.
    #[arg(long, default_value = "./dispatch.db")]
    pub db: PathBuf,
    /// Address to bind; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// `off` disables every rate tier.
    #[arg(long, value_parser = ["on", "off"], default_value = "on")]
    pub rate_limits: String,
}

pub fn run(_args: ServeArgs) -> Result<(), String> {
    Err("serve is not built yet".into())
}
