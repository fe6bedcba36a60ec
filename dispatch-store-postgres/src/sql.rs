//! dispatch-store-sql's [`Connection`](SqlConnection) over the `tokio-postgres` client, driven
//! by a runtime of the connection's own (callers are synchronous, on blocking threads).
//!
//! - A transaction's `BEGIN` (with its advisory locks) is not sent alone: it goes to the server
//!   together with the transaction's first statement, without waiting for its answer between
//!   them (pipelined), so a transaction costs one round trip fewer. The server runs them in
//!   the order sent: the statement starts, and takes its READ COMMITTED snapshot, only once
//!   the locks are held, exactly as when it was sent after the `BEGIN`'s answer.
//! - Parameters are [`Val`]s encoded for the type PostgreSQL inferred for the placeholder (an
//!   integer bound to a `BOOLEAN` column is a boolean, to a `TEXT` one its decimal text), the
//!   way SQLite's dynamic typing accepted them; a [`Val::List`] is an array of its element
//!   type, each element encoded alike.
//! - Columns are read into [`Val`]s (`count(*)` into an integer, `JSONB` into its text).
//! - Placeholders are SQLite's: `?N` and bare `?` (numbered after the largest so far) are
//!   rewritten to `$N` once per statement, which is then prepared and cached per connection.
//! - Errors keep PostgreSQL's `SQLSTATE: message`; integrity constraint violations (class 23)
//!   are [`Error::Constraint`].

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::error::Error as StdError;
use std::future::Future;
use std::pin::{pin, Pin};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use bytes::{BufMut, BytesMut};
use dispatch_store_sql::sql::{
    Connection as SqlConnection, Dialect, Error, Params, RawRow, Result, Row,
    Statement as SqlStatement, Val,
};
use tokio_postgres::types::{FromSql as PgFromSql, IsNull, Kind, ToSql as PgToSql, Type};
use tokio_postgres::Client;

/// Statements kept prepared per connection before the cache is emptied (dynamic SQL varies).
const STATEMENT_CACHE: usize = 512;

type BoxError = Box<dyn StdError + Sync + Send>;

/// A parameter as the postgres client binds it.
#[derive(Debug)]
struct Bind<'a>(&'a Val);

impl PgToSql for Bind<'_> {
    fn to_sql(&self, ty: &Type, out: &mut BytesMut) -> std::result::Result<IsNull, BoxError> {
        match (self.0, ty) {
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
            // Each element encoded for the array's element type, as a parameter of it would be.
            (Val::List(items), t) if matches!(t.kind(), Kind::Array(_)) => {
                items.iter().map(Bind).collect::<Vec<_>>().to_sql(ty, out)?
            }
            (v, t) => return Err(format!("cannot bind {v:?} as {t}").into()),
        };
        Ok(IsNull::No)
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    tokio_postgres::types::to_sql_checked!();
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

/// A column as the postgres client reads it.
struct Column(Val);

impl<'a> PgFromSql<'a> for Column {
    fn from_sql(ty: &Type, raw: &'a [u8]) -> std::result::Result<Self, BoxError> {
        Ok(Column(match ty {
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
        }))
    }

    fn from_sql_null(_: &Type) -> std::result::Result<Self, BoxError> {
        Ok(Column(Val::Null))
    }

    fn accepts(_: &Type) -> bool {
        true
    }
}

/// One row of the client's result.
struct PgRow<'a>(&'a tokio_postgres::Row);

impl RawRow for PgRow<'_> {
    fn value(&self, idx: usize) -> Result<Val> {
        let column: Column = self.0.try_get(idx).map_err(error)?;
        Ok(column.0)
    }
}

/// The error of a failed statement: `SQLSTATE: message`, integrity constraint violations
/// (class 23) and transactions another got in the way of (serialization failures, deadlocks:
/// run again, they may succeed) apart.
pub fn error(e: tokio_postgres::Error) -> Error {
    match e.as_db_error() {
        Some(db) if db.code().code().starts_with("23") || CONTENDED.contains(&db.code().code()) => {
            Error::Constraint(format!("{}: {}", db.code().code(), db.message()))
        }
        Some(db) => Error::Backend(format!("{}: {}", db.code().code(), db.message())),
        None => match StdError::source(&e) {
            Some(source) => Error::Backend(format!("{e}: {source}")),
            None => Error::Backend(e.to_string()),
        },
    }
}

/// SQLSTATEs of a transaction a concurrent one got in the way of: `serialization_failure`,
/// `deadlock_detected`.
const CONTENDED: [&str; 2] = ["40001", "40P01"];

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

/// A session's own task: it writes the client's requests to the server and reads the answers.
type Session = Pin<Box<dyn Future<Output = std::result::Result<(), PgError>> + Send>>;

type PgError = tokio_postgres::Error;

/// Ends the session: dropping the client tells the session to say goodbye to the server, and
/// the session's runtime runs it to its end. Blocking on that runtime panics on a thread that
/// drives an async runtime (where the last clone of a service's state, and so its store, may
/// be dropped): there, it is done on a thread of its own.
impl Drop for Connection {
    fn drop(&mut self) {
        let (Some(runtime), client) = (self.runtime.take(), self.client.take()) else {
            return;
        };
        let session = self.session.get_mut().take();
        let close = move || {
            drop(client);
            if let Some(session) = session {
                let _ = runtime.block_on(session);
            }
        };
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::spawn(close);
        } else {
            close();
        }
    }
}

/// A connection: the client of one session, the runtime that drives it, and its prepared
/// statements.
pub struct Connection {
    /// Always `Some` until the connection is dropped (see its `Drop`).
    client: Option<Client>,
    /// A current-thread runtime: the session runs only while a request waits for its answer.
    /// Always `Some` until the connection is dropped.
    runtime: Option<tokio::runtime::Runtime>,
    /// `None` once the session has ended.
    session: RefCell<Option<Session>>,
    statements: RefCell<HashMap<String, tokio_postgres::Statement>>,
    in_transaction: Cell<bool>,
    /// The open transaction's BEGIN while it waits to go with the first statement.
    begin: RefCell<Option<String>>,
    /// From sending the last BEGIN to its answer: the wait for its locks (and a round trip).
    begin_wait: Cell<Option<Duration>>,
    /// Counts every exchange with the server that waits for its answer (shared by a pool).
    round_trips: Arc<AtomicU64>,
    /// Statements the current work may still run outside a transaction (`None`: any number,
    /// inside one); see [`Connection::single_statement`].
    outside_transaction: Cell<Option<u32>>,
}

impl Connection {
    /// Opens a session to the server `config` names, with a runtime of its own, and applies
    /// `settings` (statements without parameters) to it.
    pub fn connect(
        config: &tokio_postgres::Config,
        settings: &str,
        round_trips: Arc<AtomicU64>,
    ) -> std::result::Result<Self, PgError> {
        // As the synchronous `postgres` client does: building a current-thread runtime fails
        // only where the process cannot create its I/O driver at all.
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime for a database session");
        let (client, session) = runtime.block_on(config.connect(tokio_postgres::NoTls))?;
        let conn = Connection {
            client: Some(client),
            runtime: Some(runtime),
            session: RefCell::new(Some(Box::pin(session))),
            statements: RefCell::new(HashMap::new()),
            in_transaction: Cell::new(false),
            begin: RefCell::new(None),
            begin_wait: Cell::new(None),
            round_trips,
            outside_transaction: Cell::new(None),
        };
        conn.drive(conn.client().batch_execute(settings))?;
        Ok(conn)
    }

    fn client(&self) -> &Client {
        self.client
            .as_ref()
            .expect("the client lives as long as the connection")
    }

    /// Runs `request` to its end, driving the session meanwhile.
    fn drive<T>(
        &self,
        request: impl Future<Output = std::result::Result<T, PgError>>,
    ) -> std::result::Result<T, PgError> {
        let runtime = self
            .runtime
            .as_ref()
            .expect("the runtime lives as long as the connection");
        let mut session = self.session.borrow_mut();
        let mut request = pin!(request);
        runtime.block_on(std::future::poll_fn(|cx| {
            if let Some(running) = session.as_mut() {
                if let Poll::Ready(ended) = running.as_mut().poll(cx) {
                    *session = None;
                    ended?;
                }
            }
            request.as_mut().poll(cx)
        }))
    }

    /// Runs `request` (made from [`Connection::client`], not yet sent) as one round trip, after
    /// the open transaction's BEGIN if that has not gone yet, in the same flight: the BEGIN's
    /// failure (a lock's timeout) is the answer then, before the request's own (which fails in
    /// the aborted transaction).
    fn exchange<T>(
        &self,
        request: impl Future<Output = std::result::Result<T, PgError>>,
    ) -> std::result::Result<T, PgError> {
        self.round_trips.fetch_add(1, Ordering::Relaxed);
        let Some(begin) = self.begin.take() else {
            return self.drive(request);
        };
        let sent = Instant::now();
        let begun = async {
            let begun = self.client().batch_execute(&begin).await;
            self.begin_wait.set(Some(sent.elapsed()));
            begun
        };
        // `join` polls the BEGIN first: it is written to the server before the request.
        let (begun, answer) =
            self.drive(async { Ok(futures_util::future::join(begun, request).await) })?;
        begun?;
        answer
    }

    /// Whether the connection can no longer be reused: the server is gone, or a transaction
    /// was left open (its work panicked).
    pub fn is_broken(&self) -> bool {
        self.in_transaction.get()
            || self.session.borrow().is_none()
            || self.client.as_ref().is_none_or(Client::is_closed)
    }

    /// Starts a transaction with `begin` (statements without parameters), sent with the
    /// transaction's first statement.
    pub fn begin(&self, begin: &str) -> Result<()> {
        self.in_transaction.set(true);
        self.begin_wait.set(None);
        *self.begin.borrow_mut() = Some(begin.to_owned());
        Ok(())
    }

    /// How long the current transaction's `BEGIN` waited for its answer (its locks), once it
    /// has been sent.
    pub fn begin_wait(&self) -> Option<Duration> {
        self.begin_wait.get()
    }

    /// Ends the transaction with `end` (`COMMIT` or `ROLLBACK`); a failed `COMMIT` is rolled
    /// back before its error is returned. A transaction that ran no statement sends its
    /// `BEGIN` with the `COMMIT` (its locks are still taken: a write waits for the writers
    /// before it), or nothing for a `ROLLBACK` (nothing to undo).
    pub fn finish(&self, end: &str) -> Result<()> {
        if end == "ROLLBACK" && self.begin.take().is_some() {
            self.in_transaction.set(false);
            return Ok(());
        }
        let result = self.execute_batch(end);
        if result.is_err() && end != "ROLLBACK" && self.execute_batch("ROLLBACK").is_err() {
            return result;
        }
        self.in_transaction.set(false);
        result
    }

    /// Runs `work` with no transaction around it, allowing it one statement (which sees one
    /// consistent state by itself): a second one fails without running, since it would see
    /// another state than the first.
    pub fn single_statement<T>(&self, work: impl FnOnce() -> T) -> T {
        self.outside_transaction.set(Some(1));
        let out = work();
        self.outside_transaction.set(None);
        out
    }

    /// Counts a statement against [`Connection::single_statement`]'s allowance.
    fn run_statement(&self) -> Result<()> {
        match self.outside_transaction.get() {
            None => Ok(()),
            Some(0) => Err(Error::Backend(
                "a single read ran a second statement, outside the first one's snapshot".into(),
            )),
            Some(n) => {
                self.outside_transaction.set(Some(n - 1));
                Ok(())
            }
        }
    }

    /// Whether the server answers.
    pub fn ping(&self) -> std::result::Result<(), PgError> {
        self.exchange(self.client().simple_query("")).map(drop)
    }

    /// Runs statements without parameters (simple query protocol).
    pub fn execute_batch(&self, sql: &str) -> Result<()> {
        self.exchange(self.client().batch_execute(sql))
            .map_err(error)
    }

    /// Prepares `sql` (SQLite placeholders), reusing this connection's earlier preparation.
    /// A preparation does not depend on the transaction, so an unsent `BEGIN` stays unsent.
    pub fn prepare_cached(&self, sql: &str) -> Result<Statement<'_>> {
        if let Some(stmt) = self.statements.borrow().get(sql) {
            return Ok(Statement {
                conn: self,
                stmt: stmt.clone(),
            });
        }
        let translated = translate(sql);
        let begin = self.begin.take();
        let stmt = self.exchange(self.client().prepare(&translated));
        *self.begin.borrow_mut() = begin;
        let stmt = stmt.map_err(error)?;
        let mut cache = self.statements.borrow_mut();
        if cache.len() >= STATEMENT_CACHE {
            cache.clear();
        }
        cache.insert(sql.to_owned(), stmt.clone());
        Ok(Statement { conn: self, stmt })
    }

    fn rows(
        &self,
        stmt: &tokio_postgres::Statement,
        params: Vec<Val>,
    ) -> Result<Vec<tokio_postgres::Row>> {
        self.run_statement()?;
        let binds: Vec<Bind<'_>> = params.iter().map(Bind).collect();
        let refs: Vec<&(dyn PgToSql + Sync)> =
            binds.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
        self.exchange(self.client().query(stmt, &refs))
            .map_err(error)
    }
}

/// A prepared statement of a connection.
pub struct Statement<'c> {
    conn: &'c Connection,
    stmt: tokio_postgres::Statement,
}

impl SqlStatement for Statement<'_> {
    /// Runs the statement; returns the rows it changed (or returned, for a statement that
    /// returns rows).
    fn execute(&mut self, params: impl Params) -> Result<usize> {
        let params = params.into_vals();
        if !self.stmt.columns().is_empty() {
            return Ok(self.conn.rows(&self.stmt, params)?.len());
        }
        self.conn.run_statement()?;
        let binds: Vec<Bind<'_>> = params.iter().map(Bind).collect();
        let refs: Vec<&(dyn PgToSql + Sync)> =
            binds.iter().map(|v| v as &(dyn PgToSql + Sync)).collect();
        let stmt = &self.stmt;
        let changed = self
            .conn
            .exchange(self.conn.client().execute(stmt, &refs))
            .map_err(error)?;
        Ok(usize::try_from(changed).unwrap_or(usize::MAX))
    }

    fn query_row<T>(
        &mut self,
        params: impl Params,
        map: impl FnOnce(&Row<'_>) -> Result<T>,
    ) -> Result<T> {
        let rows = self.conn.rows(&self.stmt, params.into_vals())?;
        match rows.first() {
            Some(row) => map(&Row::new(&PgRow(row))),
            None => Err(Error::QueryReturnedNoRows),
        }
    }

    fn query_map<T>(
        &mut self,
        params: impl Params,
        mut map: impl FnMut(&Row<'_>) -> Result<T>,
    ) -> Result<std::vec::IntoIter<Result<T>>> {
        let rows = self.conn.rows(&self.stmt, params.into_vals())?;
        Ok(rows
            .iter()
            .map(|r| map(&Row::new(&PgRow(r))))
            .collect::<Vec<_>>()
            .into_iter())
    }
}

/// A connection inside an open transaction, for the shared repositories.
#[derive(Clone, Copy)]
pub struct Pg<'c>(pub &'c Connection);

impl<'c> SqlConnection for Pg<'c> {
    const DIALECT: Dialect = Dialect::Postgres;

    type Statement<'s>
        = Statement<'s>
    where
        Self: 's;

    fn prepare_cached(&self, sql: &str) -> Result<Statement<'_>> {
        self.0.prepare_cached(sql)
    }

    /// Cached too: statements are prepared on the server, and the cache bounds their number.
    fn prepare(&self, sql: &str) -> Result<Statement<'_>> {
        self.0.prepare_cached(sql)
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
