//! The schema of the open database as SQLite's catalog describes it (`sqlite_schema` and the
//! `pragma_*` table functions), for dispatch-store-sql's check that both stores' migrations
//! describe the same schema.

use std::collections::BTreeMap;

use dispatch_core::ports::store::StoreError;
use dispatch_store_sql::schema::{Catalog, Column, ForeignKey, Table, Unique};
use rusqlite::Connection;

use crate::sql::db_err;

/// Reads every table but SQLite's own (`sqlite_*`).
pub fn read(conn: &Connection) -> Result<Catalog, StoreError> {
    let names: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' \
             ESCAPE '\\' ORDER BY name",
        )
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(db_err)?;
    let mut catalog = Catalog::default();
    for name in &names {
        catalog
            .tables
            .insert(name.to_ascii_lowercase(), table(conn, name)?);
    }
    // `REFERENCES t` without columns names t's primary key.
    let keys: BTreeMap<String, Vec<String>> = catalog
        .tables
        .iter()
        .map(|(n, t)| (n.clone(), t.primary_key.clone()))
        .collect();
    for table in catalog.tables.values_mut() {
        table.foreign_keys = std::mem::take(&mut table.foreign_keys)
            .into_iter()
            .map(|mut fk| {
                if fk.references.is_empty() {
                    fk.references = keys.get(&fk.table).cloned().unwrap_or_default();
                }
                fk
            })
            .collect();
    }
    Ok(catalog)
}

fn table(conn: &Connection, name: &str) -> Result<Table, StoreError> {
    let mut table = Table::default();
    let mut key = Vec::new();
    let mut columns = conn
        .prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?1)")
        .map_err(db_err)?;
    let rows = columns
        .query_map([name], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, bool>(2)?,
                r.get::<_, i64>(3)?,
            ))
        })
        .map_err(db_err)?;
    for row in rows {
        let (column, declared, not_null, pk) = row.map_err(db_err)?;
        let column = column.to_ascii_lowercase();
        if pk > 0 {
            key.push((pk, column.clone()));
        }
        table.columns.insert(
            column,
            Column {
                declared,
                nullable: !not_null,
            },
        );
    }
    key.sort();
    table.primary_key = key.into_iter().map(|(_, c)| c).collect();

    let indexes: Vec<(String, bool)> = conn
        .prepare(
            "SELECT name, partial FROM pragma_index_list(?1) WHERE \"unique\" AND origin <> 'pk'",
        )
        .and_then(|mut s| {
            s.query_map([name], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect()
        })
        .map_err(db_err)?;
    for (index, partial) in indexes {
        let columns: Vec<String> = conn
            .prepare("SELECT coalesce(name, '<expr>') FROM pragma_index_info(?1) ORDER BY seqno")
            .and_then(|mut s| {
                s.query_map([&index], |r| r.get::<_, String>(0))?
                    .map(|c| c.map(|c| c.to_ascii_lowercase()))
                    .collect()
            })
            .map_err(db_err)?;
        table.unique.insert(Unique { columns, partial });
    }

    let mut keys = conn
        .prepare(
            "SELECT id, \"table\", \"from\", \"to\", on_delete FROM pragma_foreign_key_list(?1) \
             ORDER BY id, seq",
        )
        .map_err(db_err)?;
    let rows = keys
        .query_map([name], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, String>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, String>(4)?,
            ))
        })
        .map_err(db_err)?;
    let mut foreign: BTreeMap<i64, ForeignKey> = BTreeMap::new();
    for row in rows {
        let (id, target, from, to, on_delete) = row.map_err(db_err)?;
        let fk = foreign.entry(id).or_insert_with(|| ForeignKey {
            columns: Vec::new(),
            table: target.to_ascii_lowercase(),
            references: Vec::new(),
            on_delete: on_delete.to_ascii_uppercase(),
        });
        fk.columns.push(from.to_ascii_lowercase());
        if let Some(to) = to {
            fk.references.push(to.to_ascii_lowercase());
        }
    }
    table.foreign_keys = foreign.into_values().collect();
    Ok(table)
}
