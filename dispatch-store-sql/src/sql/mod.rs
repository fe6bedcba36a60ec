//! The connection the repositories run on: a small, rusqlite-shaped interface
//! ([`Connection`], [`Statement`], [`Row`]) over dynamically typed values ([`Val`]), with one
//! implementation per store (`dispatch-store-sqlite` over rusqlite, `dispatch-store-postgres`
//! over the postgres client).
//!
//! - Statements are written with SQLite's placeholders (`?N`, bare `?`); the PostgreSQL
//!   connection rewrites them to `$N` once per prepared statement.
//! - Parameters bind as [`Val`]s; columns read into them and convert to the Rust type asked for.
//! - Where the two SQL dialects really differ, the repositories pick the statement by
//!   [`Connection::DIALECT`] at the point of use, both spellings side by side.

mod value;

use std::error::Error as StdError;

pub use crate::__params as params;
pub use value::{params_from_iter, FromSql, Params, ParamsFromIter, ToSql, Val};

/// The SQL dialect a connection speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite (the embedded store).
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

impl Dialect {
    /// The statement written for this dialect.
    pub const fn pick(self, sqlite: &'static str, postgres: &'static str) -> &'static str {
        match self {
            Dialect::Sqlite => sqlite,
            Dialect::Postgres => postgres,
        }
    }
}

/// Failures of a statement, as the repositories see them (mapped once, `repo::db_err`).
#[derive(Debug)]
pub enum Error {
    /// `query_row` found no row.
    QueryReturnedNoRows,
    /// An integrity constraint refused the statement (unique, foreign key, check, not null), or
    /// a concurrent transaction got in the way of it (a deadlock, a serialization failure).
    Constraint(String),
    /// The database (or the connection to it) failed otherwise.
    Backend(String),
    /// A column could not be converted to the Rust type asked for.
    FromSqlConversionFailure(usize, types::Type, Box<dyn StdError + Send + Sync>),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::QueryReturnedNoRows => f.write_str("query returned no rows"),
            Error::Constraint(e) | Error::Backend(e) => f.write_str(e),
            Error::FromSqlConversionFailure(i, _, e) => write!(f, "column {i}: {e}"),
        }
    }
}

impl StdError for Error {}

/// Results of this layer.
pub type Result<T> = std::result::Result<T, Error>;

/// Column type names used in conversion errors.
pub mod types {
    /// The stored type a conversion failed on.
    #[derive(Debug, Clone, Copy)]
    pub enum Type {
        /// Text.
        Text,
    }
}

/// A backend's result row: column values by index.
pub trait RawRow {
    /// Column `idx`'s value.
    fn value(&self, idx: usize) -> Result<Val>;
}

/// A column index (rusqlite's `get::<_, T>` shape, which the repositories are written in).
pub trait RowIndex {
    /// The index.
    fn index(self) -> usize;
}

impl RowIndex for usize {
    fn index(self) -> usize {
        self
    }
}

/// One result row.
pub struct Row<'a>(&'a dyn RawRow);

impl<'a> Row<'a> {
    /// Wraps a backend's row.
    pub fn new(raw: &'a dyn RawRow) -> Self {
        Row(raw)
    }

    /// Column `idx` converted to `T`.
    pub fn get<I: RowIndex, T: FromSql>(&self, idx: I) -> Result<T> {
        let idx = idx.index();
        T::from_val(self.0.value(idx)?)
            .map_err(|e| Error::FromSqlConversionFailure(idx, types::Type::Text, e.into()))
    }

    /// The leading columns as a tuple, column 0 first: the row mapper of a query whose columns
    /// are read as they are (`query_map(params, Row::columns)`).
    pub fn columns<T: FromColumns>(&self) -> Result<T> {
        T::from_columns(self)
    }
}

/// A tuple read from a row's leading columns, one element a column.
pub trait FromColumns: Sized {
    /// Reads the tuple.
    fn from_columns(row: &Row<'_>) -> Result<Self>;
}

macro_rules! from_columns {
    ($($t:ident $i:tt),+) => {
        impl<$($t: FromSql),+> FromColumns for ($($t,)+) {
            fn from_columns(row: &Row<'_>) -> Result<Self> {
                Ok(($(row.get::<usize, $t>($i)?,)+))
            }
        }
    };
}

from_columns!(A 0, B 1);
from_columns!(A 0, B 1, C 2);
from_columns!(A 0, B 1, C 2, D 3);
from_columns!(A 0, B 1, C 2, D 3, E 4);
from_columns!(A 0, B 1, C 2, D 3, E 4, F 5);
from_columns!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// `Option` for a single-row result, as rusqlite's `OptionalExtension`.
pub trait OptionalExtension<T> {
    /// `Ok(None)` when no row was found.
    fn optional(self) -> Result<Option<T>>;
}

impl<T> OptionalExtension<T> for Result<T> {
    fn optional(self) -> Result<Option<T>> {
        match self {
            Ok(v) => Ok(Some(v)),
            Err(Error::QueryReturnedNoRows) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

/// A prepared statement.
pub trait Statement {
    /// Runs the statement; returns the rows it changed.
    fn execute(&mut self, params: impl Params) -> Result<usize>;

    /// The first row, mapped; [`Error::QueryReturnedNoRows`] when there is none.
    fn query_row<T>(
        &mut self,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T>;

    /// Every row, mapped.
    fn query_map<T>(
        &mut self,
        params: impl Params,
        map: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<std::vec::IntoIter<Result<T>>>;
}

/// A connection inside an open transaction: a cheap handle the repositories copy freely.
pub trait Connection: Copy {
    /// The dialect its statements are written in.
    const DIALECT: Dialect;

    /// A statement prepared on this connection.
    type Statement<'c>: Statement
    where
        Self: 'c;

    /// Prepares `sql`, reusing this connection's earlier preparation of the same text.
    fn prepare_cached(&self, sql: &str) -> Result<Self::Statement<'_>>;

    /// Prepares `sql` for one use (statements whose text varies, which would only churn the
    /// cache of a backend that keeps few).
    fn prepare(&self, sql: &str) -> Result<Self::Statement<'_>>;

    /// Runs one statement; returns the rows it changed.
    fn execute(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    /// The first row of `sql`, mapped; [`Error::QueryReturnedNoRows`] when there is none.
    fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.prepare_cached(sql)?.query_row(params, map)
    }

    /// Runs an `INSERT ... RETURNING id`; returns the id.
    fn insert(&self, sql: &str, params: impl Params) -> Result<i64> {
        self.query_row(sql, params, |r| r.get(0))
    }
}
