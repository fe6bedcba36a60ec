//! One schema on two stores: the catalog each SQL store reads back from its database after its
//! migrations, and the comparison that says where the two describe different tables.
//!
//! Each store has its own migration list (SQLite's `PRAGMA user_version` and PostgreSQL's
//! `dispatch_schema_migrations` count different histories), so nothing but a check keeps them
//! describing the same schema. Both stores read their catalog into a [`Catalog`] (tables,
//! columns with their declared type and nullability, primary keys, unique constraints and
//! indexes, foreign keys), and [`differences`] compares the two after normalising what is a
//! difference of dialect only, each normalisation listed once in [`DIALECT_TYPES`],
//! [`ONE_STORE_TABLES`] and [`ACCEPTED_COLUMN_DIFFERENCES`]. A migration added to one store only, or written differently in the
//! other, shows up as a difference in the PostgreSQL store's tests.

use std::collections::{BTreeMap, BTreeSet};

use crate::sql::Dialect;

/// The schema of one database as its catalog describes it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Catalog {
    /// The tables by (lower-case) name, the store's own bookkeeping tables left out
    /// (`sqlite_*`).
    pub tables: BTreeMap<String, Table>,
}

/// One table of a [`Catalog`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Table {
    /// The columns by (lower-case) name.
    pub columns: BTreeMap<String, Column>,
    /// The primary key's columns in key order; empty when the table has none.
    pub primary_key: Vec<String>,
    /// Unique constraints and unique indexes other than the primary key.
    pub unique: BTreeSet<Unique>,
    /// Foreign keys.
    pub foreign_keys: BTreeSet<ForeignKey>,
}

/// One column of a [`Table`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// The type as the dialect's catalog names it (`INTEGER`, `bigint`, `double precision`).
    pub declared: String,
    /// Whether the column accepts NULL.
    pub nullable: bool,
}

/// A unique constraint or unique index.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Unique {
    /// The indexed columns in index order (`<expr>` for an expression).
    pub columns: Vec<String>,
    /// Whether the index covers only the rows of a `WHERE` clause.
    pub partial: bool,
}

/// A foreign key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ForeignKey {
    /// The referencing columns, in key order.
    pub columns: Vec<String>,
    /// The referenced table.
    pub table: String,
    /// The referenced columns, in key order (the referenced primary key where the declaration
    /// names none).
    pub references: Vec<String>,
    /// What deleting the referenced row does: `NO ACTION`, `RESTRICT`, `CASCADE`, `SET NULL`
    /// or `SET DEFAULT`.
    pub on_delete: String,
}

/// The column types each dialect writes for one kind of value: (dialect, type as the catalog
/// names it, case ignored, the kind both compare as). A type missing here is reported, never
/// guessed.
///
/// | SQLite | PostgreSQL | compared as | why they are the same |
/// |---|---|---|---|
/// | `INTEGER`, `BIGINT` | `bigint` | integer | 64-bit integers on both (SQLite's integers are 64-bit; `BIGINT` has INTEGER affinity) |
/// | `INTEGER` | `boolean` | integer | SQLite has no boolean type: the stores write 0 and 1, and the PostgreSQL connection binds them as booleans |
/// | `REAL` | `double precision` | real | 8-byte IEEE floats on both |
/// | `TEXT` | `text` | text | JSON value sets are TEXT on both, written by the same codec |
/// | `BLOB` | `bytea` | blob | bytes |
///
/// PostgreSQL's `integer` (32 bits) is left out on purpose: a column SQLite holds as a 64-bit
/// integer must not be narrower on PostgreSQL.
pub const DIALECT_TYPES: &[(Dialect, &str, &str)] = &[
    (Dialect::Sqlite, "integer", "integer"),
    (Dialect::Sqlite, "bigint", "integer"),
    (Dialect::Sqlite, "real", "real"),
    (Dialect::Sqlite, "text", "text"),
    (Dialect::Sqlite, "blob", "blob"),
    (Dialect::Postgres, "bigint", "integer"),
    (Dialect::Postgres, "boolean", "integer"),
    (Dialect::Postgres, "double precision", "real"),
    (Dialect::Postgres, "text", "text"),
    (Dialect::Postgres, "bytea", "blob"),
];

/// Tables only one store has, each for a reason of its dialect: (dialect, table, why).
pub const ONE_STORE_TABLES: &[(Dialect, &str, &str)] = &[
    (
        Dialect::Sqlite,
        "access_key_ids",
        "never-reused access-key ids (AUTOINCREMENT); PostgreSQL's identity column never reuses",
    ),
    (
        Dialect::Sqlite,
        "line_item_ids",
        "never-reused line-item ids (AUTOINCREMENT); PostgreSQL's identity column never reuses",
    ),
    (
        Dialect::Sqlite,
        "plan_ids",
        "plan and solution ids (AUTOINCREMENT); PostgreSQL has the sequence plan_ids",
    ),
    (
        Dialect::Sqlite,
        "vehicle_ids",
        "never-reused vehicle ids (AUTOINCREMENT); PostgreSQL's identity column never reuses",
    ),
    (
        Dialect::Postgres,
        "dispatch_schema_migrations",
        "the applied migrations; SQLite counts them in PRAGMA user_version",
    ),
    (
        Dialect::Postgres,
        "rate_limit_windows",
        "rate-limit windows shared by the API nodes; one SQLite process counts in memory",
    ),
];

/// Columns declared differently on purpose: (table, column, why). Each is a column whose
/// SQLite declaration predates the check and which would take a table rebuild to change, while
/// what it stores reads back the same on both stores.
pub const ACCEPTED_COLUMN_DIFFERENCES: &[(&str, &str, &str)] = &[(
    "customers",
    "duration",
    "seconds as a float: REAL on PostgreSQL, INTEGER on SQLite, whose INTEGER affinity keeps a \
     fractional value as REAL and the codec reads either as f64",
)];

/// The kind a column of `dialect` declared as `declared` compares as, if [`DIALECT_TYPES`]
/// knows it.
pub fn normal_type(dialect: Dialect, declared: &str) -> Option<&'static str> {
    let declared = declared.trim().to_ascii_lowercase();
    DIALECT_TYPES
        .iter()
        .find(|(d, name, _)| *d == dialect && *name == declared)
        .map(|(_, _, normal)| *normal)
}

/// Every way the SQLite store's catalog and the PostgreSQL store's differ beyond the
/// normalisations of [`DIALECT_TYPES`], [`ONE_STORE_TABLES`] and
/// [`ACCEPTED_COLUMN_DIFFERENCES`], one line each (empty when
/// they describe the same schema). Primary-key columns count as NOT NULL on both (SQLite
/// reports an `INTEGER PRIMARY KEY` as nullable, yet it never holds NULL).
pub fn differences(sqlite: &Catalog, postgres: &Catalog) -> Vec<String> {
    let mut found = Vec::new();
    let only = |dialect: Dialect, name: &str| {
        ONE_STORE_TABLES
            .iter()
            .any(|(d, t, _)| *d == dialect && *t == name)
    };
    for (name, table) in &sqlite.tables {
        match postgres.tables.get(name) {
            Some(other) => compare_tables(name, table, other, &mut found),
            None if only(Dialect::Sqlite, name) => {}
            None => found.push(format!("table {name}: only on SQLite")),
        }
    }
    for name in postgres.tables.keys() {
        if !sqlite.tables.contains_key(name) && !only(Dialect::Postgres, name) {
            found.push(format!("table {name}: only on PostgreSQL"));
        }
    }
    found
}

fn compare_tables(name: &str, sqlite: &Table, postgres: &Table, found: &mut Vec<String>) {
    for (column, s) in &sqlite.columns {
        let Some(p) = postgres.columns.get(column) else {
            found.push(format!("{name}.{column}: only on SQLite"));
            continue;
        };
        let (st, pt) = (
            normal_type(Dialect::Sqlite, &s.declared),
            normal_type(Dialect::Postgres, &p.declared),
        );
        let accepted = ACCEPTED_COLUMN_DIFFERENCES
            .iter()
            .any(|(t, c, _)| *t == name && c == column);
        match (st, pt) {
            (Some(st), Some(pt)) if st == pt || accepted => {}
            (None, _) => found.push(format!(
                "{name}.{column}: SQLite type {} is not in the dialect table",
                s.declared
            )),
            (_, None) => found.push(format!(
                "{name}.{column}: PostgreSQL type {} is not in the dialect table",
                p.declared
            )),
            _ => found.push(format!(
                "{name}.{column}: type {} on SQLite, {} on PostgreSQL",
                s.declared, p.declared
            )),
        }
        let in_key = |t: &Table| t.primary_key.iter().any(|k| k == column);
        let (sn, pn) = (
            s.nullable && !in_key(sqlite),
            p.nullable && !in_key(postgres),
        );
        if sn != pn {
            found.push(format!(
                "{name}.{column}: {} on SQLite, {} on PostgreSQL",
                nullability(sn),
                nullability(pn)
            ));
        }
    }
    for column in postgres.columns.keys() {
        if !sqlite.columns.contains_key(column) {
            found.push(format!("{name}.{column}: only on PostgreSQL"));
        }
    }
    if sqlite.primary_key != postgres.primary_key {
        found.push(format!(
            "{name}: primary key ({}) on SQLite, ({}) on PostgreSQL",
            sqlite.primary_key.join(", "),
            postgres.primary_key.join(", ")
        ));
    }
    for u in sqlite.unique.difference(&postgres.unique) {
        found.push(format!("{name}: {} only on SQLite", describe_unique(u)));
    }
    for u in postgres.unique.difference(&sqlite.unique) {
        found.push(format!("{name}: {} only on PostgreSQL", describe_unique(u)));
    }
    for fk in sqlite.foreign_keys.difference(&postgres.foreign_keys) {
        found.push(format!(
            "{name}: {} only on SQLite",
            describe_foreign_key(fk)
        ));
    }
    for fk in postgres.foreign_keys.difference(&sqlite.foreign_keys) {
        found.push(format!(
            "{name}: {} only on PostgreSQL",
            describe_foreign_key(fk)
        ));
    }
}

fn nullability(nullable: bool) -> &'static str {
    if nullable {
        "NULL"
    } else {
        "NOT NULL"
    }
}

fn describe_unique(u: &Unique) -> String {
    let partial = if u.partial { " (partial)" } else { "" };
    format!("UNIQUE ({}){partial}", u.columns.join(", "))
}

fn describe_foreign_key(fk: &ForeignKey) -> String {
    format!(
        "FOREIGN KEY ({}) REFERENCES {} ({}) ON DELETE {}",
        fk.columns.join(", "),
        fk.table,
        fk.references.join(", "),
        fk.on_delete
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn column(declared: &str, nullable: bool) -> Column {
        Column {
            declared: declared.into(),
            nullable,
        }
    }

    /// `orders` as each store declares it: an id key, a depot reference, a flag, a number
    /// unique per depot.
    fn orders(dialect: Dialect) -> Catalog {
        let (int, flag) = match dialect {
            Dialect::Sqlite => ("INTEGER", "INTEGER"),
            Dialect::Postgres => ("bigint", "boolean"),
        };
        let table = Table {
            columns: BTreeMap::from([
                ("id".to_owned(), column(int, dialect == Dialect::Sqlite)),
                ("depot_id".to_owned(), column(int, false)),
                ("flagged".to_owned(), column(flag, false)),
                ("number".to_owned(), column("TEXT", true)),
            ]),
            primary_key: vec!["id".into()],
            unique: BTreeSet::from([Unique {
                columns: vec!["depot_id".into(), "number".into()],
                partial: false,
            }]),
            foreign_keys: BTreeSet::from([ForeignKey {
                columns: vec!["depot_id".into()],
                table: "depots".into(),
                references: vec!["id".into()],
                on_delete: "NO ACTION".into(),
            }]),
        };
        let mut catalog = Catalog::default();
        catalog.tables.insert("orders".into(), table);
        if dialect == Dialect::Postgres {
            catalog.tables.insert(
                "dispatch_schema_migrations".into(),
                Table {
                    columns: BTreeMap::from([("version".to_owned(), column("bigint", false))]),
                    primary_key: vec!["version".into()],
                    ..Table::default()
                },
            );
        }
        catalog
    }

    #[test]
    fn the_same_table_in_both_dialects_has_no_differences() {
        assert_eq!(
            differences(&orders(Dialect::Sqlite), &orders(Dialect::Postgres)),
            Vec::<String>::new()
        );
    }

    #[test]
    fn a_drifted_column_type_nullability_or_missing_column_is_reported() {
        let mut drifted = orders(Dialect::Postgres);
        let table = drifted.tables.get_mut("orders").unwrap();
        table.columns.get_mut("depot_id").unwrap().declared = "integer".into();
        table.columns.get_mut("flagged").unwrap().nullable = true;
        table.columns.insert("extra".into(), column("text", true));
        table.columns.remove("number");
        let found = differences(&orders(Dialect::Sqlite), &drifted);
        assert_eq!(
            found,
            vec![
                "orders.depot_id: PostgreSQL type integer is not in the dialect table",
                "orders.flagged: NOT NULL on SQLite, NULL on PostgreSQL",
                "orders.number: only on SQLite",
                "orders.extra: only on PostgreSQL",
            ]
        );
    }

    #[test]
    fn a_type_of_another_kind_is_reported() {
        let mut drifted = orders(Dialect::Postgres);
        let table = drifted.tables.get_mut("orders").unwrap();
        table.columns.get_mut("number").unwrap().declared = "bigint".into();
        assert_eq!(
            differences(&orders(Dialect::Sqlite), &drifted),
            vec!["orders.number: type TEXT on SQLite, bigint on PostgreSQL"]
        );
    }

    #[test]
    fn drifted_keys_and_constraints_are_reported() {
        let mut drifted = orders(Dialect::Postgres);
        let table = drifted.tables.get_mut("orders").unwrap();
        table.primary_key = vec!["id".into(), "depot_id".into()];
        table.unique = BTreeSet::from([Unique {
            columns: vec!["depot_id".into(), "number".into()],
            partial: true,
        }]);
        table.foreign_keys = BTreeSet::from([ForeignKey {
            columns: vec!["depot_id".into()],
            table: "depots".into(),
            references: vec!["id".into()],
            on_delete: "CASCADE".into(),
        }]);
        let found = differences(&orders(Dialect::Sqlite), &drifted);
        assert_eq!(
            found,
            vec![
                "orders: primary key (id) on SQLite, (id, depot_id) on PostgreSQL",
                "orders: UNIQUE (depot_id, number) only on SQLite",
                "orders: UNIQUE (depot_id, number) (partial) only on PostgreSQL",
                "orders: FOREIGN KEY (depot_id) REFERENCES depots (id) ON DELETE NO ACTION only on SQLite",
                "orders: FOREIGN KEY (depot_id) REFERENCES depots (id) ON DELETE CASCADE only on PostgreSQL",
            ]
        );
    }

    #[test]
    fn a_table_on_one_store_only_is_reported_unless_the_dialect_explains_it() {
        let mut sqlite = orders(Dialect::Sqlite);
        sqlite.tables.insert("leftover".into(), Table::default());
        let mut postgres = orders(Dialect::Postgres);
        postgres.tables.insert("newer".into(), Table::default());
        assert_eq!(
            differences(&sqlite, &postgres),
            vec![
                "table leftover: only on SQLite",
                "table newer: only on PostgreSQL"
            ]
        );
    }
}
