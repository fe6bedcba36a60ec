//! dispatch-store-sql's [`Connection`] over rusqlite: values bind without copies, columns read
//! through rusqlite's value references, errors keep rusqlite's messages (constraint violations
//! become [`Error::Constraint`]).

use dispatch_core::ports::store::StoreError;
use dispatch_store_sql::sql::{
    Connection, Dialect, Error, Params, RawRow, Result, Row, Statement, Val,
};
use rusqlite::types::{ToSqlOutput, ValueRef};

/// A rusqlite connection inside an open transaction.
#[derive(Clone, Copy)]
pub struct Sqlite<'c>(pub &'c rusqlite::Connection);

/// Maps a rusqlite error of the store's own statements (pragmas, migrations, transactions) as
/// the repositories' errors are mapped: constraint violations are conflicts.
pub fn db_err(e: rusqlite::Error) -> StoreError {
    dispatch_store_sql::db_err(error(e))
}

fn error(e: rusqlite::Error) -> Error {
    match e.sqlite_error_code() {
        _ if matches!(e, rusqlite::Error::QueryReturnedNoRows) => Error::QueryReturnedNoRows,
        Some(rusqlite::ErrorCode::ConstraintViolation) => Error::Constraint(e.to_string()),
        _ => Error::Backend(e.to_string()),
    }
}

/// A parameter as rusqlite binds it: text and blobs borrowed, booleans as 0 and 1.
struct Bind<'a>(&'a Val);

impl rusqlite::ToSql for Bind<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self.0 {
            Val::List(_) => {
                return Err(rusqlite::Error::ToSqlConversionFailure(
                    "SQLite binds no arrays".into(),
                ))
            }
            Val::Null => ValueRef::Null,
            Val::Int(i) => ValueRef::Integer(*i),
            Val::Real(f) => ValueRef::Real(*f),
            Val::Text(s) => ValueRef::Text(s.as_bytes()),
            Val::Blob(b) => ValueRef::Blob(b),
            Val::Bool(b) => ValueRef::Integer(i64::from(*b)),
        }))
    }
}

struct SqliteRow<'a, 'r>(&'a rusqlite::Row<'r>);

impl RawRow for SqliteRow<'_, '_> {
    fn value(&self, idx: usize) -> Result<Val> {
        Ok(match self.0.get_ref(idx).map_err(error)? {
            ValueRef::Null => Val::Null,
            ValueRef::Integer(i) => Val::Int(i),
            ValueRef::Real(f) => Val::Real(f),
            ValueRef::Text(t) => Val::Text(
                std::str::from_utf8(t)
                    .map_err(|e| Error::Backend(format!("column {idx}: {e}")))?
                    .to_owned(),
            ),
            ValueRef::Blob(b) => Val::Blob(b.to_vec()),
        })
    }
}

/// A statement of the connection's cache, or one prepared for a single use.
pub struct SqliteStatement<'c> {
    stmt: Prepared<'c>,
    /// The statement is a one-row `INSERT ... RETURNING id` prepared without its `RETURNING`
    /// clause: the id is the connection's last inserted rowid.
    rowid: Option<&'c rusqlite::Connection>,
}

enum Prepared<'c> {
    Cached(rusqlite::CachedStatement<'c>),
    Once(rusqlite::Statement<'c>),
}

impl<'c> SqliteStatement<'c> {
    fn stmt(&mut self) -> &mut rusqlite::Statement<'c> {
        match &mut self.stmt {
            Prepared::Cached(s) => s,
            Prepared::Once(s) => s,
        }
    }
}

const RETURNING_ID: &str = " RETURNING id";

/// `INSERT INTO t (...) VALUES (...) RETURNING id` without its `RETURNING` clause, when the
/// statement inserts exactly one row or fails (no upsert, no `INSERT ... SELECT`, no `OR
/// IGNORE`): SQLite runs `RETURNING` as a trigger, which makes every such insert a multi-write
/// statement with a statement journal of its own, while the connection's last inserted rowid
/// is the same id for free.
fn without_returning_id(sql: &str) -> Option<&str> {
    let stripped = sql.strip_suffix(RETURNING_ID)?;
    let plain = sql.starts_with("INSERT INTO ")
        && !stripped.contains(" SELECT ")
        && !stripped.contains("ON CONFLICT");
    plain.then_some(stripped)
}

/// The row of an `INSERT ... RETURNING id` answered from the last inserted rowid.
struct RowidRow(i64);

impl RawRow for RowidRow {
    fn value(&self, idx: usize) -> Result<Val> {
        match idx {
            0 => Ok(Val::Int(self.0)),
            _ => Err(Error::Backend(format!("column {idx}: out of range"))),
        }
    }
}

fn bound(params: impl Params) -> Vec<Val> {
    params.into_vals()
}

impl Statement for SqliteStatement<'_> {
    fn execute(&mut self, params: impl Params) -> Result<usize> {
        let vals = bound(params);
        self.stmt()
            .execute(rusqlite::params_from_iter(vals.iter().map(Bind)))
            .map_err(error)
    }

    fn query_row<T>(
        &mut self,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        let vals = bound(params);
        if let Some(conn) = self.rowid {
            self.stmt()
                .execute(rusqlite::params_from_iter(vals.iter().map(Bind)))
                .map_err(error)?;
            return map(&Row::new(&RowidRow(conn.last_insert_rowid())));
        }
        let mut rows = self
            .stmt()
            .query(rusqlite::params_from_iter(vals.iter().map(Bind)))
            .map_err(error)?;
        match rows.next().map_err(error)? {
            Some(row) => map(&Row::new(&SqliteRow(row))),
            None => Err(Error::QueryReturnedNoRows),
        }
    }

    fn query_map<T>(
        &mut self,
        params: impl Params,
        mut map: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<std::vec::IntoIter<Result<T>>> {
        if self.rowid.is_some() {
            return Ok(vec![self.query_row(params, map)].into_iter());
        }
        let vals = bound(params);
        let mut rows = self
            .stmt()
            .query(rusqlite::params_from_iter(vals.iter().map(Bind)))
            .map_err(error)?;
        let mut out = Vec::new();
        loop {
            match rows.next() {
                Ok(Some(row)) => out.push(map(&Row::new(&SqliteRow(row)))),
                Ok(None) => break,
                Err(e) => {
                    out.push(Err(error(e)));
                    break;
                }
            }
        }
        Ok(out.into_iter())
    }
}

impl<'c> Connection for Sqlite<'c> {
    const DIALECT: Dialect = Dialect::Sqlite;

    type Statement<'s>
        = SqliteStatement<'s>
    where
        Self: 's;

    fn prepare_cached(&self, sql: &str) -> Result<SqliteStatement<'_>> {
        let plain = without_returning_id(sql);
        Ok(SqliteStatement {
            stmt: Prepared::Cached(self.0.prepare_cached(plain.unwrap_or(sql)).map_err(error)?),
            rowid: plain.map(|_| self.0),
        })
    }

    fn prepare(&self, sql: &str) -> Result<SqliteStatement<'_>> {
        let plain = without_returning_id(sql);
        Ok(SqliteStatement {
            stmt: Prepared::Once(self.0.prepare(plain.unwrap_or(sql)).map_err(error)?),
            rowid: plain.map(|_| self.0),
        })
    }
}
