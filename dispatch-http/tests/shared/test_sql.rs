//! Plain SQL on a test database, for the few tests that look below the store: a secret must
//! not be stored in clear, a stored name as the store kept it, a depot filled to a limit in
//! one statement. The statements are written once, in the SQL both stores understand.

#![allow(dead_code)]

use dispatch_server::cli::database::Database;

use super::test_db::off_runtime;

/// Runs one statement.
pub fn execute(db: &Database, sql: &str) {
    let (db, sql) = (db.clone(), sql.to_owned());
    off_runtime(move || match db {
        Database::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            conn.busy_timeout(std::time::Duration::from_secs(10))
                .unwrap();
            conn.execute_batch(&sql).unwrap();
        }
        Database::Postgres(url) => {
            let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            client.batch_execute(&sql).unwrap();
        }
    })
}

/// The rows of a query whose columns are all text.
pub fn text_rows(db: &Database, sql: &str) -> Vec<Vec<String>> {
    let (db, sql) = (db.clone(), sql.to_owned());
    off_runtime(move || match db {
        Database::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path).unwrap();
            let mut stmt = conn.prepare(&sql).unwrap();
            let columns = stmt.column_count();
            stmt.query_map([], |r| (0..columns).map(|i| r.get(i)).collect())
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        }
        Database::Postgres(url) => {
            let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            client
                .query(&sql, &[])
                .unwrap()
                .iter()
                .map(|r| (0..r.len()).map(|i| r.get(i)).collect())
                .collect()
        }
    })
}

/// Everything the database holds, as bytes to search: the SQLite file and its WAL as they are
/// on disk; on PostgreSQL every row of every table as text (binary columns as `\x` hex, so
/// search with [`holds`]).
pub fn contents(db: &Database) -> Vec<u8> {
    match db {
        Database::Sqlite(path) => {
            let mut all = std::fs::read(path).unwrap();
            let mut wal = path.as_os_str().to_owned();
            wal.push("-wal");
            all.extend(std::fs::read(wal).unwrap_or_default());
            all
        }
        Database::Postgres(_) => {
            let tables = text_rows(
                db,
                "SELECT table_name::text FROM information_schema.tables \
                 WHERE table_schema = 'public' AND table_type = 'BASE TABLE'",
            );
            assert!(tables.len() > 10, "the schema's tables: {tables:?}");
            let mut all = Vec::new();
            for table in tables {
                let sql = format!("SELECT t::text FROM \"{}\" t", table[0]);
                for row in text_rows(db, &sql) {
                    all.extend(row[0].as_bytes());
                    all.push(b'\n');
                }
            }
            all
        }
    }
}

/// Whether `contents` holds `needle` as bytes or as PostgreSQL's hex text of bytes.
pub fn holds(contents: &[u8], needle: &[u8]) -> bool {
    let hex: Vec<u8> = needle
        .iter()
        .flat_map(|b| format!("{b:02x}").into_bytes())
        .collect();
    [needle, &hex[..]]
        .iter()
        .any(|n| contents.windows(n.len()).any(|w| w == *n))
}
