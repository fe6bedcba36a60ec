//! Building blocks of the statements that read or write many rows at once: lists of keys
//! bound as one parameter ([`in_list`], [`each_of_list`]), rows bound as one
//! array a column ([`unnest`], [`columns`]) and runs of rows cut to a statement's bounds
//! ([`in_statements`]).

use crate::sql::{Dialect, Val};
use dispatch_core::ports::store::StoreError;

/// Rows per multi-row statement (PostgreSQL), beside the bound on their text
/// ([`TEXT_PER_STATEMENT`]).
const ROWS_PER_STATEMENT: usize = 500;

/// Membership in the list bound at parameter `?param` (texts, or integers with `integers`; bound
/// as [`text_list`] or [`integer_list`] make it), spelt so that an index answers it: one
/// statement for a list of any length, prepared once per connection. SQLite reads a JSON array
/// (`json_each`); PostgreSQL an array of the column's type (`= ANY (?::text[])`, an index
/// condition; `IN (SELECT ...)` over a set-returning function is hash-joined with a scan of the
/// whole table, as the planner guesses 100 elements).
pub(super) fn in_list(dialect: Dialect, param: usize, integers: bool) -> String {
    match dialect {
        Dialect::Sqlite => format!("IN (SELECT value FROM json_each(?{param}))"),
        Dialect::Postgres => format!("= ANY (?{param}::{})", array_type(integers)),
    }
}

/// On PostgreSQL, the rows `lookup` finds for each distinct element of the array bound at
/// `?param` (texts, or integers with `integers`), taken in the elements' order: `lookup` is a
/// `SELECT` naming the element `k.key`, run once per element (a `LATERAL` subquery that an
/// `ORDER BY` or `FOR UPDATE` keeps from being merged into a join). Each element is found
/// through the index its equality names, whatever the statistics: a join would be planned
/// from them, and without them (a table filled since its last `ANALYZE`) PostgreSQL takes a
/// depot's rows for a handful and reads them all through the depot's index.
pub(super) fn each_of_list(param: usize, integers: bool, lookup: &str) -> String {
    format!(
        "SELECT l.* FROM {}, LATERAL ({lookup}) l",
        keys(param, integers)
    )
}

/// `(SELECT DISTINCT key ... ORDER BY 1) k`: the distinct elements of the array bound at
/// `?param` as `k.key`, in order (PostgreSQL).
pub(super) fn keys(param: usize, integers: bool) -> String {
    format!(
        "(SELECT DISTINCT u.key FROM unnest(?{param}::{}) AS u(key) ORDER BY 1) k",
        array_type(integers)
    )
}

fn array_type(integers: bool) -> &'static str {
    match integers {
        true => "bigint[]",
        false => "text[]",
    }
}

/// Texts as the one parameter of an [`in_list`] or [`each_of_list`]: a JSON array on SQLite,
/// an array on PostgreSQL (sent in binary, each element as it is: nothing to encode as JSON
/// nor to parse back).
pub(super) fn text_list(dialect: Dialect, texts: &[&str]) -> Val {
    match dialect {
        Dialect::Sqlite => Val::Text(serde_json::to_string(texts).expect("strings encode")),
        Dialect::Postgres => Val::List(texts.iter().map(|&t| Val::Text(t.to_owned())).collect()),
    }
}

/// Integers as the one parameter of an [`in_list`] or [`each_of_list`], as [`text_list`].
pub(super) fn integer_list(dialect: Dialect, integers: &[i64]) -> Val {
    match dialect {
        Dialect::Sqlite => Val::Text(serde_json::to_string(integers).expect("integers encode")),
        Dialect::Postgres => Val::List(integers.iter().map(|&i| Val::Int(i)).collect()),
    }
}

/// `unnest(?{first}::{type}[], ...)`: the rows of a multi-row statement (PostgreSQL) as one
/// array parameter per column of `types`, numbered from `first`, bound as [`columns`] makes
/// them. One statement text for any number of rows (prepared once per connection, where a
/// `VALUES` list of one parameter a value was a text, a preparation and a plan per row count),
/// and one parameter a column for both sides to encode and receive.
pub(super) fn unnest(first: usize, types: &[&str]) -> String {
    let arrays: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(c, ty)| format!("?{}::{ty}[]", first + c))
        .collect();
    format!("unnest({})", arrays.join(", "))
}

/// `values`, rows of `width` values each in row order, as one array per column ([`Val::List`]),
/// the parameters of an [`unnest`]: the values are moved, not copied.
pub(super) fn columns(values: Vec<Val>, width: usize) -> Vec<Val> {
    let rows = values.len() / width;
    let mut columns: Vec<Vec<Val>> = (0..width).map(|_| Vec::with_capacity(rows)).collect();
    for (i, value) in values.into_iter().enumerate() {
        columns[i % width].push(value);
    }
    columns.into_iter().map(Val::List).collect()
}

/// Bytes of text and blobs in `values`, lists' elements included.
fn text_size(values: &[Val]) -> usize {
    values
        .iter()
        .map(|v| match v {
            Val::Text(s) => s.len(),
            Val::Blob(b) => b.len(),
            Val::List(l) => text_size(l),
            _ => 0,
        })
        .sum()
}

/// Bytes of text a statement may bind beyond its first row: enough for hundreds of ordinary
/// orders, while a batch of orders carrying the largest notes is split into statements
/// whose parameters (copied by the driver into its message) stay a small part of the batch.
const TEXT_PER_STATEMENT: usize = 1 << 20;

/// Writes `items` with multi-row statements: consecutive runs of at most
/// [`ROWS_PER_STATEMENT`] rows and, past a run's first row, at most [`TEXT_PER_STATEMENT`]
/// bytes of text, each given to `write` with its rows' values (`row` of each item, in turn).
/// SQLite, which keeps a statement journal and a copy of the `VALUES` of a multi-row write,
/// stays within a few times the bound as well.
pub(super) fn in_statements<T>(
    items: &[T],
    mut row: impl FnMut(&T) -> Result<Vec<Val>, StoreError>,
    mut write: impl FnMut(&[T], Vec<Val>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let (mut start, mut text, mut values) = (0, 0, Vec::new());
    for (i, item) in items.iter().enumerate() {
        let row = row(item)?;
        let size = text_size(&row);
        if i > start && (i - start == ROWS_PER_STATEMENT || text + size > TEXT_PER_STATEMENT) {
            write(&items[start..i], std::mem::take(&mut values))?;
            (start, text) = (i, 0);
        }
        values.extend(row);
        text += size;
    }
    if start < items.len() {
        write(&items[start..], values)?;
    }
    Ok(())
}
