//! Online backups: a consistent copy of a database file while other processes (`serve`) read
//! and write it, through SQLite's online backup API (rusqlite's `backup` feature) — copying the
//! file itself could catch it between a commit's pages, and misses what still sits in the WAL.
//!
//! The whole database is copied in one step, which reads one snapshot: in WAL mode a reader
//! never blocks writers, so the service keeps serving, and the copy is the database as of one
//! commit. A copy taken page block by page block would restart whenever the service commits,
//! and might never finish on a busy day.
//!
//! The copy is written next to `out` under a temporary name, checked (`PRAGMA
//! integrity_check`), switched to the rollback journal (one self-contained file) and only then
//! renamed to `out`, so a failed or interrupted backup never leaves a half-written file under
//! the name a restore would use.

use std::path::{Path, PathBuf};
use std::time::Duration;

use dispatch_core::ports::store::StoreError;
use rusqlite::backup::{Backup, StepResult};
use rusqlite::{Connection, OpenFlags};

use crate::sql::db_err;

/// How long a step waits for a lock before trying again, and how many tries it gets.
const RETRY_PAUSE: Duration = Duration::from_millis(50);
const MAX_RETRIES: u32 = 600;

/// What a backup copied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackupReport {
    /// Database pages copied.
    pub pages: i64,
    /// Size of the copy in bytes.
    pub bytes: u64,
    /// Schema version of the copy (`PRAGMA user_version`).
    pub schema_version: u32,
}

fn fail(what: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| StoreError::Backend(format!("{what}: {e}"))
}

/// Copies the SQLite database `db` to a new file `out` (which must not exist), consistently,
/// while other connections use `db`.
pub fn backup(db: &Path, out: &Path) -> Result<BackupReport, StoreError> {
    if !db.is_file() {
        return Err(StoreError::Backend(format!(
            "{} is not a database file",
            db.display()
        )));
    }
    if out.exists() {
        return Err(StoreError::Backend(format!(
            "{} exists already; a backup never overwrites a file",
            out.display()
        )));
    }
    let source = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(fail("cannot open the database"))?;
    source
        .busy_timeout(Duration::from_secs(10))
        .map_err(db_err)?;
    let partial = partial_name(out);
    let _ = std::fs::remove_file(&partial);
    let result = copy(&source, &partial).and_then(|report| {
        std::fs::rename(&partial, out).map_err(|e| {
            StoreError::Backend(format!("cannot name the copy {}: {e}", out.display()))
        })?;
        Ok(report)
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

fn partial_name(out: &Path) -> PathBuf {
    let mut name = out.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    out.with_file_name(name)
}

fn copy(source: &Connection, to: &Path) -> Result<BackupReport, StoreError> {
    let mut target = Connection::open(to).map_err(fail("cannot create the copy"))?;
    let pages = {
        let backup = Backup::new(source, &mut target).map_err(fail("cannot start the backup"))?;
        let mut tries = 0;
        loop {
            match backup.step(-1).map_err(fail("backup step failed"))? {
                StepResult::Done => break,
                StepResult::More => {}
                StepResult::Busy | StepResult::Locked => {
                    tries += 1;
                    if tries > MAX_RETRIES {
                        return Err(StoreError::Backend(
                            "the database stayed locked for 30 seconds".into(),
                        ));
                    }
                    std::thread::sleep(RETRY_PAUSE);
                }
                _ => {}
            }
        }
        i64::from(backup.progress().pagecount)
    };
    let mode: String = target
        .query_row("PRAGMA journal_mode = DELETE", [], |r| r.get(0))
        .map_err(db_err)?;
    if !mode.eq_ignore_ascii_case("delete") {
        return Err(StoreError::Backend(format!(
            "the copy kept journal mode {mode}"
        )));
    }
    let check: String = target
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .map_err(db_err)?;
    if check != "ok" {
        return Err(StoreError::Backend(format!(
            "the copy failed its integrity check: {check}"
        )));
    }
    let schema_version: u32 = target
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(db_err)?;
    drop(target);
    let bytes = std::fs::metadata(to)
        .map_err(|e| StoreError::Backend(format!("cannot read the copy: {e}")))?
        .len();
    Ok(BackupReport {
        pages,
        bytes,
        schema_version,
    })
}
