//! The schema of the database as PostgreSQL's catalog describes it (`pg_class`,
//! `pg_attribute`, `pg_index`, `pg_constraint` of the current schema), for dispatch-store-sql's
//! check that both stores' migrations describe the same schema.

use dispatch_core::ports::store::StoreError;
use dispatch_store_sql::schema::{Catalog, Column, ForeignKey, Unique};
use dispatch_store_sql::sql::{params, Connection as _, FromColumns, Statement as _};
use dispatch_store_sql::Sql;

use crate::sql::{Connection, Pg};

/// Columns of ordinary tables, with the type named without modifiers.
const COLUMNS: &str = "
    SELECT c.relname, a.attname, format_type(a.atttypid, NULL), NOT a.attnotnull
    FROM pg_attribute a
    JOIN pg_class c ON c.oid = a.attrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r'
      AND a.attnum > 0 AND NOT a.attisdropped";

/// Unique indexes (the primary key's among them), columns in index order.
const UNIQUE: &str = "
    SELECT c.relname, i.indisprimary, i.indpred IS NOT NULL,
        (SELECT string_agg(coalesce(a.attname, '<expr>'), ',' ORDER BY k.ord)
         FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, ord)
         LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)
    FROM pg_index i
    JOIN pg_class c ON c.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND c.relkind = 'r' AND i.indisunique";

/// Foreign keys, columns in key order.
const FOREIGN_KEYS: &str = "
    SELECT c.relname, t.relname,
        (SELECT string_agg(a.attname, ',' ORDER BY k.ord)
         FROM unnest(f.conkey) WITH ORDINALITY k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = f.conrelid AND a.attnum = k.attnum),
        (SELECT string_agg(a.attname, ',' ORDER BY k.ord)
         FROM unnest(f.confkey) WITH ORDINALITY k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = f.confrelid AND a.attnum = k.attnum),
        f.confdeltype::text
    FROM pg_constraint f
    JOIN pg_class c ON c.oid = f.conrelid
    JOIN pg_class t ON t.oid = f.confrelid
    JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname = current_schema() AND f.contype = 'f'";

/// Every row of `sql`, its columns read as they are.
fn rows<T: FromColumns>(db: Pg<'_>, sql: &str) -> Result<Vec<T>, StoreError> {
    db.prepare(sql)
        .and_then(|mut s| s.query_map(params![], |r| r.columns())?.collect())
        .st()
}

fn list(text: &str) -> Vec<String> {
    text.split(',').map(str::to_owned).collect()
}

/// Reads every table of the current schema.
pub fn read(conn: &Connection) -> Result<Catalog, StoreError> {
    let db = Pg(conn);
    let mut catalog = Catalog::default();
    let columns: Vec<(String, String, String, bool)> = rows(db, COLUMNS)?;
    for (table, column, declared, nullable) in columns {
        catalog
            .tables
            .entry(table)
            .or_default()
            .columns
            .insert(column, Column { declared, nullable });
    }
    let unique: Vec<(String, bool, bool, String)> = rows(db, UNIQUE)?;
    for (table, primary, partial, columns) in unique {
        let table = catalog.tables.entry(table).or_default();
        if primary {
            table.primary_key = list(&columns);
        } else {
            table.unique.insert(Unique {
                columns: list(&columns),
                partial,
            });
        }
    }
    let foreign: Vec<(String, String, String, String, String)> = rows(db, FOREIGN_KEYS)?;
    for (table, target, columns, references, action) in foreign {
        let on_delete = match action.as_str() {
            "a" => "NO ACTION",
            "r" => "RESTRICT",
            "c" => "CASCADE",
            "n" => "SET NULL",
            "d" => "SET DEFAULT",
            other => other,
        };
        catalog
            .tables
            .entry(table)
            .or_default()
            .foreign_keys
            .insert(ForeignKey {
                columns: list(&columns),
                table: target,
                references: list(&references),
                on_delete: on_delete.to_owned(),
            });
    }
    Ok(catalog)
}
