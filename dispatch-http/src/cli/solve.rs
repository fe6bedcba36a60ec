//! `dispatch solve`.

#[derive(Debug, clap::Args)]
pub struct SolveArgs {
    /// Instance file.
    pub file: String,
}

pub fn run(_args: SolveArgs) -> Result<(), String> {
    Err("solve is not built yet".into())
}
