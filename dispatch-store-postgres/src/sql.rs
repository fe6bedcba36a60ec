//! A small typed-value layer over the `postgres` client, shaped like the part of rusqlite the
//! SQLite store uses, so the two stores' repositories read alike and a change to one is easy to
//! carry to the other.
//!
//! - Parameters become [`Val`]s and are encoded for the type PostgreSQL inferred for the
//!   placeholder (an integer bound to a `BOOLEAN` column is a boolean, to a `TEXT` one its
//!   decimal text), the way SQLite's dynamic typing accepted them.
//! - Columns are read into [`Val`]s and converted to the Rust type asked for (`count(*)` into
//!   `u64`, a `BOOLEAN` into `bool` or `i64`, `JSONB` into its text).
//! - Placeholders are SQLite's: `?N` and bare `?` (numbered after the largest so far) are
//!   rewritten to `$N` once per statement, which is then prepared and cached per connection.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::error::Error as StdError;

use bytes::{BufMut, BytesMut};
use postgres::types::{FromSql as PgFromSql, IsNull, ToSql as PgToSql, Type};

/// Statements kept prepared per connection before the cache is emptied (dynamic SQL varies).
const STATEMENT_CACHE: usize = 512;

/// A dynamically typed SQL value.
#[derive(Debug, Clone, PartialEq)]
pub enum Val {
    /// NULL.
    Null,
    /// Any integer.
    Int(i64),
    /// A float.
    Real(f64),
    /// Text (also JSON documents).
    Text(String),
    /// Bytes.
    Blob(Vec<u8>),
    /// A boolean.
    Bool(bool),
}

/// Failures of this layer, rusqlite-style: the repositories map them once (`repo::db_err`).
#[derive(Debug)]
pub enum Error {
    /// `query_row` found no row.
    QueryReturnedNoRows,
    /// PostgreSQL (or the connection) failed.
    Db(postgres::Error),
    /// A column could not be converted to the Rust type asked for.
    FromSqlConversionFailure(usize, types::Type, Box<dyn StdError + Send + Sync>),
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::QueryReturnedNoRows => f.write_str("query returned no rows"),
            Error::Db(e) => match e.as_db_error() {
                Some(db) => write!(f, "{}: {}", db.code().code(), db.message()),
                None => match StdError::source(e) {
                    Some(source) => write!(f, "{e}: {source}"),
                    None => write!(f, "{e}"),
                },
            },
            Error::FromSqlConversionFailure(i, _, e) => write!(f, "column {i}: {e}"),
        }
    }
}

impl From<postgres::Error> for Error {
    fn from(e: postgres::Error) -> Self {
        Error::Db(e)
    }
}

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

/// A value that can be bound as a parameter.
pub trait ToSql {
    /// The value.
    fn to_val(&self) -> Val;
}

macro_rules! int_to_sql {
    ($($t:ty),*) => {$(
        impl ToSql for $t {
            fn to_val(&self) -> Val {
                Val::Int(i64::try_from(*self).unwrap_or(i64::MAX))
            }
        }
    )*};
}
int_to_sql!(i64, i32, i16, i8, u64, u32, u16, u8, usize);

impl ToSql for f64 {
    fn to_val(&self) -> Val {
        Val::Real(*self)
    }
}
impl ToSql for f32 {
    fn to_val(&self) -> Val {
        Val::Real(f64::from(*self))
    }
}
impl ToSql for bool {
    fn to_val(&self) -> Val {
        Val::Bool(*self)
    }
}
impl ToSql for str {
    fn to_val(&self) -> Val {
        Val::Text(self.to_owned())
    }
}
impl ToSql for String {
    fn to_val(&self) -> Val {
        Val::Text(self.clone())
    }
}
impl ToSql for [u8] {
    fn to_val(&self) -> Val {
        Val::Blob(self.to_vec())
    }
}
impl ToSql for Vec<u8> {
    fn to_val(&self) -> Val {
        Val::Blob(self.clone())
    }
}
impl ToSql for Val {
    fn to_val(&self) -> Val {
        self.clone()
    }
}
impl<T: ToSql> ToSql for Option<T> {
    fn to_val(&self) -> Val {
        self.as_ref().map_or(Val::Null, ToSql::to_val)
    }
}
impl<T: ToSql + ?Sized> ToSql for &T {
    fn to_val(&self) -> Val {
        (**self).to_val()
    }
}
impl<T: ToSql + ?Sized> ToSql for Box<T> {
    fn to_val(&self) -> Val {
        (**self).to_val()
    }
}

/// A set of parameters.
pub trait Params {
    /// The values, in placeholder order.
    fn into_vals(self) -> Vec<Val>;
}

impl Params for &[&dyn ToSql] {
    fn into_vals(self) -> Vec<Val> {
        self.iter().map(|v| v.to_val()).collect()
    }
}

impl<T: ToSql, const N: usize> Params for [T; N] {
    fn into_vals(self) -> Vec<Val> {
        self.iter().map(ToSql::to_val).collect()
    }
}

impl<T: ToSql, const N: usize> Params for &[T; N] {
    fn into_vals(self) -> Vec<Val> {
        self.iter().map(ToSql::to_val).collect()
    }
}

/// Parameters from an iterator (dynamic SQL).
pub struct ParamsFromIter(Vec<Val>);

impl Params for ParamsFromIter {
    fn into_vals(self) -> Vec<Val> {
        self.0
    }
}

/// Parameters from an iterator of values.
pub fn params_from_iter<I>(iter: I) -> ParamsFromIter
where
    I: IntoIterator,
    I::Item: ToSql,
{
    ParamsFromIter(iter.into_iter().map(|v| v.to_val()).collect())
}

/// A parameter list: `params![a, b, c]`.
#[macro_export]
#[doc(hidden)]
macro_rules! __params {
    () => { &[] as &[&dyn $crate::sql::ToSql] };
    ($($p:expr),+ $(,)?) => { &[$(&$p as &dyn $crate::sql::ToSql),+] as &[&dyn $crate::sql::ToSql] };
}
pub use crate::__params as params;

/// A value that can be read from a column.
pub trait FromSql: Sized {
    /// Converts the column's value.
    fn from_val(v: Val) -> std::result::Result<Self, String>;
}

fn mismatch<T>(v: &Val) -> std::result::Result<T, String> {
    Err(format!(
        "cannot read {v:?} as {}",
        std::any::type_name::<T>()
    ))
}

impl FromSql for i64 {
    fn from_val(v: Val) -> std::result::Result<Self, String> {
        match v {
            Val::Int(i) => Ok(i),
            Val::Bool(b) => Ok(i64::from(b)),
            other => mismatch(&other),
        }
    }
}

macro_rules! int_from_sql {
    ($($t:ty),*) => {$(
        impl FromSql for $t {
            fn from_val(v: Val) -> std::result::Result<Self, String> {
                let i = i64::from_val(v)?;
                <$t>::try_from(i).map_err(|_| format!("{i} is out of range"))
            }
        }
    )*};
}
int_from_sql!(i32, i16, u64, u32, u16, u8, usize);

impl FromSql for f64 {
    fn from_val(v: Val) -> std::result::Result<Self, String> {
        match v {
            Val::Real(f) => Ok(f),
            Val::Int(i) => Ok(i as f64),
            other => mismatch(&other),
        }
    }
}
impl FromSql for bool {
    fn from_val(v: Val) -> std::result::Result<Self, String> {
        match v {
            Val::Bool(b) => Ok(b),
            Val::Int(i) => Ok(i != 0),
            other => mismatch(&other),
        }
    }
}
impl FromSql for String {
    fn from_val(v: Val) -> std::result::Result<Self, String> {
        match v {
            Val::Text(s) => Ok(s),
            other => mismatch(&other),
        }
    }
}
impl FromSql for Vec<u8> {
    fn from_val(v: Val) -> std::result::Result<Self, String> {
        match v {
            Val::Blob(b) => Ok(b),
            Val::Text(s) => Ok(s.into_bytes()),
            other => mismatch(&other),
        }
    }
}
impl FromSql for Val {
    fn from_val(v: Val) -> std::result::Result<Self, String> {
        Ok(v)
    }
}
impl<T: FromSql> FromSql for Option<T> {
    fn from_val(v: Val) -> std::result::Result<Self, String> {
        match v {
            Val::Null => Ok(None),
            v => T::from_val(v).map(Some),
        }
    }
}

type BoxError = Box<dyn StdError + Sync + Send>;

impl PgToSql for Val {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> std::result::Result<IsNull, BoxError> {
        match (self, ty) {
            (Val::Null, _) => return Ok(IsNull::Yes),
            (Val::Int(i), t) if *t == Type::INT8 => i.to_sql(ty, out)?,
            (Val::Int(i), t) if *t == Type::INT4 => i32::try_from(*i)?.to_sql(ty, out)?,
            (Val::Int(i), t) if *t == Type::INT2 => i16::try_from(*i)?.to_sql(ty, out)?,
            (Val::Int(i), t) if *t == Type::BOOL => (*i != 0).to_sql(ty, out)?,
            (Val::Int(i), t) if *t == Type::FLOAT8 => (*i as f64).to_sql(ty, out)?,
            (Val::Int(i), t) if is_text(t) => i.to_string().as_str().to_sql(ty, out)?,
            (Val::Real(f), t) if *t == Type::FLOAT8 => f.to_sql(ty, out)?,
            (Val::Real(f), t) if *t == Type::FLOAT4 => (*f as f32).to_sql(ty, out)?,
            (Val::Real(f), t) if is_text(t) => f.to_string().as_str().to_sql(ty, out)?,
            (Val::Text(s), t) if *t == Type::JSONB => {
                out.put_u8(1);
                out.put_slice(s.as_bytes());
                IsNull::No
            }
            (Val::Text(s), t) if is_text(t) || *t == Type::JSON => {
                out.put_slice(s.as_bytes());
                IsNull::No
            }
            (Val::Blob(b), t) if *t == Type::BYTEA => b.as_slice().to_sql(ty, out)?,
            (Val::Bool(b), t) if *t == Type::BOOL => b.to_sql(ty, out)?,
            (Val::Bool(b), t) if *t == Type::INT8 => i64::from(*b).to_sql(ty, out)?,
            (Val::Bool(b), t) if *t == Type::INT4 => i32::from(*b).to_sql(ty, out)?,
            (v, t) => return Err(format!("cannot bind {v:?} as {t}").into()),
        };
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    postgres::types::to_sql_checked!();
}

fn is_text(t: &Type) -> bool {
    [
        Type::TEXT,
        Type::VARCHAR,
        Type::BPCHAR,
        Type::NAME,
        Type::UNKNOWN,
    ]
    .contains(t)
}

impl<'a> PgFromSql<'a> for Val {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> std::result::Result<Self, BoxError> {
        Ok(match ty {
            t if *t == Type::INT8 => Val::Int(i64::from_sql(ty, raw)?),
            t if *t == Type::INT4 => Val::Int(i32::from_sql(ty, raw)?.into()),
            t if *t == Type::INT2 => Val::Int(i16::from_sql(ty, raw)?.into()),
            t if *t == Type::OID => Val::Int(u32::from_sql(ty, raw)?.into()),
            t if *t == Type::FLOAT8 => Val::Real(f64::from_sql(ty, raw)?),
            t if *t == Type::FLOAT4 => Val::Real(f32::from_sql(ty, raw)?.into()),
            t if *t == Type::BOOL => Val::Bool(bool::from_sql(ty, raw)?),
            t if *t == Type::BYTEA => Val::Blob(raw.to_vec()),
            t if *t == Type::JSONB => match raw.split_first() {
                Some((1, text)) => Val::Text(std::str::from_utf8(text)?.to_owned()),
                _ => return Err("unsupported JSONB version".into()),
            },
            t if is_text(t) || *t == Type::JSON => Val::Text(std::str::from_utf8(raw)?.to_owned()),
            t => return Err(format!("unsupported column type {t}").into()),
        })
    }

    fn from_sql_null(_: &Type) -> std::result::Result<Self, BoxError> {
        Ok(Val::Null)
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// One result row.
pub struct Row<'a>(&'a postgres::Row);

/// A column index.
pub trait RowIndex {
    /// The index.
    fn index(self) -> usize;
}

impl RowIndex for usize {
    fn index(self) -> usize {
        self
    }
}

impl Row<'_> {
    /// Column `idx` converted to `T`.
    pub fn get<I: RowIndex, T: FromSql>(&self, idx: I) -> Result<T> {
        let idx = idx.index();
        let v: Val = self.0.try_get(idx)?;
        T::from_val(v)
            .map_err(|e| Error::FromSqlConversionFailure(idx, types::Type::Text, e.into()))
    }
}

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

/// Rewrites SQLite placeholders (`?N`, `?`) to PostgreSQL's (`$N`), outside string literals.
pub fn translate(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 8);
    let mut chars = sql.chars().peekable();
    let mut in_string = false;
    let mut highest = 0u32;
    while let Some(c) = chars.next() {
        if c == '\'' {
            in_string = !in_string;
        }
        if c != '?' || in_string {
            out.push(c);
            continue;
        }
        let mut digits = String::new();
        while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
            digits.push(d);
            chars.next();
        }
        let n = digits.parse().unwrap_or(highest + 1);
        highest = highest.max(n);
        out.push('$');
        out.push_str(&n.to_string());
    }
    out
}

/// Closing a client blocks on the client's own runtime, which panics on a thread that drives
/// an async runtime (where the last clone of a service's state, and so its store, may be
/// dropped): there, the client is closed on a thread of its own.
impl Drop for Connection {
    fn drop(&mut self) {
        let Some(client) = self.client.get_mut().take() else {
            return;
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::spawn(move || drop(client));
        }
    }
}

/// A connection: the client, its prepared statements and the id the last `RETURNING` gave.
pub struct Connection {
    /// Always `Some` until the connection is dropped (see its `Drop`).
    client: RefCell<Option<postgres::Client>>,
    statements: RefCell<HashMap<String, postgres::Statement>>,
    last_id: Cell<i64>,
    in_transaction: Cell<bool>,
}

impl Connection {
    fn client(&self) -> std::cell::RefMut<'_, postgres::Client> {
        std::cell::RefMut::map(self.client.borrow_mut(), |c| {
            c.as_mut()
                .expect("the client lives as long as the connection")
        })
    }

    /// Wraps a connected client.
    pub fn new(client: postgres::Client) -> Self {
        Connection {
            client: RefCell::new(Some(client)),
            statements: RefCell::new(HashMap::new()),
            last_id: Cell::new(0),
            in_transaction: Cell::new(false),
        }
    }

    /// Whether the connection can no longer be reused: the server is gone, or a transaction
    /// was left open (its work panicked).
    pub fn is_broken(&self) -> bool {
        self.in_transaction.get() || self.client().is_closed()
    }

    /// Starts a transaction with `begin` (statements without parameters).
    pub fn begin(&self, begin: &str) -> Result<()> {
        self.in_transaction.set(true);
        self.execute_batch(begin)?;
        Ok(())
    }

    /// Ends the transaction with `end` (`COMMIT` or `ROLLBACK`); a failed `COMMIT` is rolled
    /// back before its error is returned.
    pub fn finish(&self, end: &str) -> Result<()> {
        let result = self.execute_batch(end);
        if result.is_err() && end != "ROLLBACK" && self.execute_batch("ROLLBACK").is_err() {
            return result;
        }
        self.in_transaction.set(false);
        result
    }

    /// Whether the server answers.
    pub fn ping(&self) -> std::result::Result<(), postgres::Error> {
        self.client().simple_query("").map(|_| ())
    }

    /// Runs statements without parameters (simple query protocol).
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        self.client().batch_execute(sql)?;
        Ok(())
    }

    /// Prepares `sql` (SQLite placeholders), reusing this connection's earlier preparation.
    pub fn prepare_cached(&self, sql: &str) -> Result<Statement<'_>> {
        if let Some(stmt) = self.statements.borrow().get(sql) {
            return Ok(Statement {
                conn: self,
                stmt: stmt.clone(),
            });
        }
        let stmt = self.client().prepare(&translate(sql))?;
        let mut cache = self.statements.borrow_mut();
        if cache.len() >= STATEMENT_CACHE {
            cache.clear();
        }
        cache.insert(sql.to_owned(), stmt.clone());
        Ok(Statement { conn: self, stmt })
    }

    /// Runs one statement; returns the rows it changed.
    pub fn execute(&self, sql: &str, params: impl Params) -> Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    /// The first row of `sql`, mapped; [`Error::QueryReturnedNoRows`] when there is none.
    pub fn query_row<T>(
        &self,
        sql: &str,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        self.prepare_cached(sql)?.query_row(params, map)
    }

    /// The first column of the first row the last `INSERT ... RETURNING` run by
    /// [`Connection::execute`] returned: the id of the inserted row.
    pub fn last_insert_rowid(&self) -> i64 {
        self.last_id.get()
    }

    fn rows(&self, stmt: &postgres::Statement, params: Vec<Val>) -> Result<Vec<postgres::Row>> {
        let refs: Vec<&(dyn PgToSql + Sync)> =
            params.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
        Ok(self.client().query(stmt, &refs)?)
    }
}

/// A prepared statement of a connection.
pub struct Statement<'c> {
    conn: &'c Connection,
    stmt: postgres::Statement,
}

impl Statement<'_> {
    /// Runs the statement; returns the rows it changed. A statement with `RETURNING` leaves
    /// its first value for [`Connection::last_insert_rowid`].
    pub fn execute(&mut self, params: impl Params) -> Result<usize> {
        let params = params.into_vals();
        if self.stmt.columns().is_empty() {
            let refs: Vec<&(dyn PgToSql + Sync)> =
                params.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
            let changed = self.conn.client().execute(&self.stmt, &refs)?;
            return Ok(usize::try_from(changed).unwrap_or(usize::MAX));
        }
        let rows = self.conn.rows(&self.stmt, params)?;
        if let Some(first) = rows.first() {
            self.conn.last_id.set(Row(first).get(0)?);
        }
        Ok(rows.len())
    }

    /// The first row, mapped; [`Error::QueryReturnedNoRows`] when there is none.
    pub fn query_row<T>(
        &mut self,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        let rows = self.conn.rows(&self.stmt, params.into_vals())?;
        match rows.first() {
            Some(row) => map(&Row(row)),
            None => Err(Error::QueryReturnedNoRows),
        }
    }

    /// Every row, mapped.
    pub fn query_map<T>(
        &mut self,
        params: impl Params,
        mut map: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<std::vec::IntoIter<Result<T>>> {
        let rows = self.conn.rows(&self.stmt, params.into_vals())?;
        Ok(rows
            .iter()
            .map(|r| map(&Row(r)))
            .collect::<Vec<_>>()
            .into_iter())
    }
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn placeholders_are_numbered_like_sqlite_numbers_them() {
        assert_eq!(
            translate("a = ?1 AND b = ?2 OR c = ?1"),
            "a = $1 AND b = $2 OR c = $1"
        );
        assert_eq!(
            translate("a = ? AND b = ? AND c = ?"),
            "a = $1 AND b = $2 AND c = $3"
        );
        assert_eq!(translate("a = ?3 AND b = ?"), "a = $3 AND b = $4");
        assert_eq!(translate("a = '?' AND b = ?"), "a = '?' AND b = $1");
    }
}
