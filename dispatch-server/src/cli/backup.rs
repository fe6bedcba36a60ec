//! `dispatch backup --db FILE OUT`: a consistent copy of a SQLite database, also while `serve`
//! (or `worker`, `seed`) uses it. The copy is one self-contained SQLite file; restoring is
//! stopping the service and putting the copy in the database's place (docs/operations.md).
//! A PostgreSQL database is backed up with PostgreSQL's own `pg_dump`.

use std::path::PathBuf;

use super::database::{Database, DatabaseParser};

/// The flags of `dispatch backup`.
#[derive(Debug, clap::Args)]
pub struct BackupArgs {
    /// The SQLite database file to copy (a PostgreSQL URL is refused: use `pg_dump`).
    #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
    pub db: Database,
    /// The file to write the copy to; it must not exist yet.
    #[arg(value_name = "OUT")]
    pub out: PathBuf,
}

/// Copies the database and prints one JSON line saying what was copied.
pub fn run(args: BackupArgs) -> Result<(), String> {
    let path = match &args.db {
        Database::Sqlite(path) => path,
        Database::Postgres(_) => {
            return Err(
                "dispatch backup copies SQLite files; back up a PostgreSQL database with \
                 pg_dump (for example `pg_dump --format=custom --file OUT DBNAME`) and restore \
                 it with pg_restore"
                    .into(),
            )
        }
    };
    let report = dispatch_store_sqlite::backup::backup(path, &args.out)
        .map_err(|e| format!("backup of {} failed: {e}", path.display()))?;
    super::stdout::line(
        &serde_json::json!({
            "database": path.display().to_string(),
            "backup": args.out.display().to_string(),
            "pages": report.pages,
            "bytes": report.bytes,
            "schema_version": report.schema_version,
        })
        .to_string(),
    )
}
