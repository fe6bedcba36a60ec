//! `--db`: where the service keeps its data. A PostgreSQL URL (`postgres://` or
//! `postgresql://`) selects the PostgreSQL store, anything else is a SQLite file path (the
//! default, `./dispatch.db`). Every subcommand that opens the data takes it.

use std::ffi::OsStr;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use clap::builder::TypedValueParser;
use clap::error::ErrorKind;
use clap::{Arg, Command};
use dispatch_core::ports::geocoder::{Geocoder, StoreGazetteer};
use dispatch_core::ports::idempotency::IdempotencyStore;
use dispatch_core::ports::store::Store;
use dispatch_store_postgres::idempotency::PostgresIdempotencyStore;
use dispatch_store_postgres::PostgresStore;
use dispatch_store_sqlite::idempotency::SqliteIdempotencyStore;
use dispatch_store_sqlite::SqliteStore;

/// The database of `--db`.
#[derive(Clone, PartialEq, Eq)]
pub enum Database {
    /// A SQLite file, created with its schema if missing.
    Sqlite(PathBuf),
    /// A PostgreSQL database (`postgres://USER[:PASSWORD]@HOST[:PORT]/DBNAME`).
    Postgres(String),
}

impl Database {
    /// Reads a `--db` value; an error names a PostgreSQL URL without its password.
    pub fn parse(value: &str) -> Result<Database, String> {
        if value.starts_with("postgres://") || value.starts_with("postgresql://") {
            PostgresStore::check_url(value).map_err(|e| format!("{}: {e}", redact(value)))?;
            Ok(Database::Postgres(value.to_owned()))
        } else if value.is_empty() {
            Err("empty database path".into())
        } else {
            Ok(Database::Sqlite(PathBuf::from(value)))
        }
    }

    /// Whether the database can be opened without creating it: the SQLite file exists (a
    /// PostgreSQL database is created by its administrator, so it always counts).
    pub fn exists(&self) -> bool {
        match self {
            Database::Sqlite(path) => path.exists(),
            Database::Postgres(_) => true,
        }
    }

    /// Opens the store (migrating the schema), for the subcommands that only read or write
    /// data (`seed`, `webhooks`, `export-problem`): the idempotency records are left alone
    /// (opening SQLite's releases unfinished claims, which a running `serve` may hold).
    pub fn open(&self) -> Result<Arc<dyn Store>, String> {
        let store: Arc<dyn Store> = match self {
            Database::Sqlite(path) => {
                Arc::new(SqliteStore::open(path).map_err(|e| self.failed(&e))?)
            }
            Database::Postgres(url) => {
                Arc::new(PostgresStore::open(url).map_err(|e| self.failed(&e))?)
            }
        };
        Ok(store)
    }

    fn failed(&self, e: &dyn fmt::Display) -> String {
        format!("cannot open database {self}: {e}")
    }

    /// Opens everything `serve` needs on this database: the store, told to call `on_outbox`
    /// after every commit of this process that appended outbox events, its idempotency
    /// records and its gazetteer.
    pub fn open_service(&self, on_outbox: Arc<dyn Fn() + Send + Sync>) -> Result<Service, String> {
        let failed = |e: &dyn fmt::Display| self.failed(e);
        let (store, idempotency): (Arc<dyn Store>, Arc<dyn IdempotencyStore>) = match self {
            Database::Sqlite(path) => {
                let store = SqliteStore::open(path).map_err(|e| failed(&e))?;
                store.on_outbox_commit(move || on_outbox());
                let keys = SqliteIdempotencyStore::open(path).map_err(|e| failed(&e))?;
                (Arc::new(store), Arc::new(keys))
            }
            Database::Postgres(url) => {
                let store = PostgresStore::open(url).map_err(|e| failed(&e))?;
                store.on_outbox_commit(move || on_outbox());
                let keys = PostgresIdempotencyStore::new(&store).map_err(|e| failed(&e))?;
                (Arc::new(store), Arc::new(keys))
            }
        };
        Ok(Service {
            geocoder: Arc::new(StoreGazetteer::new(store.clone())),
            store,
            idempotency,
        })
    }
}

/// What `serve` opens on its database.
pub struct Service {
    /// The store.
    pub store: Arc<dyn Store>,
    /// Idempotency-key records on the same database.
    pub idempotency: Arc<dyn IdempotencyStore>,
    /// The depots' gazetteers, read through the store.
    pub geocoder: Arc<dyn Geocoder>,
}

/// The path, or the PostgreSQL URL without its password.
impl fmt::Display for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Database::Sqlite(path) => write!(f, "{}", path.display()),
            Database::Postgres(url) => f.write_str(&redact(url)),
        }
    }
}

impl fmt::Debug for Database {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// clap's parser of `--db` (and `DISPATCH_DB`). clap's own message for a refused value repeats
/// it as given, which for a PostgreSQL URL may hold its password; this one names it redacted.
#[derive(Clone, Copy)]
pub struct DatabaseParser;

impl TypedValueParser for DatabaseParser {
    type Value = Database;

    fn parse_ref(
        &self,
        cmd: &Command,
        arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<Database, clap::Error> {
        let flag = arg.map_or_else(|| "--db".to_owned(), |a| a.to_string());
        let refused = |message: String| {
            clap::Error::raw(
                ErrorKind::ValueValidation,
                format!("invalid value for '{flag}': {message}\n"),
            )
            .with_cmd(cmd)
        };
        let value = value
            .to_str()
            .ok_or_else(|| refused("not valid UTF-8".to_owned()))?;
        Database::parse(value).map_err(refused)
    }
}

/// A PostgreSQL URL as it may be shown: `scheme://user:***@rest`, and `***` for the value of
/// a `password` (or `sslpassword`) query parameter. The credentials end at the first `@`, as
/// the PostgreSQL client reads them, so whatever it takes for the password is hidden.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (credentials, rest) = match rest.split_once('@') {
        Some((credentials, host)) => match credentials.split_once(':') {
            Some((user, _)) => (format!("{user}:***@"), host),
            None => (format!("{credentials}@"), host),
        },
        None => (String::new(), rest),
    };
    let Some((location, query)) = rest.split_once('?') else {
        return format!("{scheme}://{credentials}{rest}");
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if name.to_ascii_lowercase().ends_with("password") => {
                format!("{name}=***")
            }
            _ => pair.to_owned(),
        })
        .collect();
    format!("{scheme}://{credentials}{location}?{}", query.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_postgres_url_selects_postgres_and_anything_else_is_a_sqlite_path() {
        assert_eq!(
            Database::parse("postgres://u:p@db:5432/dispatch").unwrap(),
            Database::Postgres("postgres://u:p@db:5432/dispatch".into())
        );
        assert!(matches!(
            Database::parse("postgresql://u@db/d").unwrap(),
            Database::Postgres(_)
        ));
        assert_eq!(
            Database::parse("./dispatch.db").unwrap(),
            Database::Sqlite("./dispatch.db".into())
        );
        assert_eq!(
            Database::parse("postgres.db").unwrap(),
            Database::Sqlite("postgres.db".into())
        );
        assert!(Database::parse("postgres://u@db:notaport/d").is_err());
    }

    #[test]
    fn the_password_never_shows() {
        let db = Database::parse("postgres://u:secret@db:5432/dispatch").unwrap();
        assert_eq!(db.to_string(), "postgres://u:***@db:5432/dispatch");
        assert!(!format!("{db:?}").contains("secret"));
        let db =
            Database::parse("postgresql://u@db/dispatch?sslmode=disable&password=secret").unwrap();
        assert_eq!(
            db.to_string(),
            "postgresql://u@db/dispatch?sslmode=disable&password=***"
        );
        let refused = Database::parse("postgres://u:secret@db:notaport/d").unwrap_err();
        assert!(
            refused.contains("postgres://u:***@db:notaport/d"),
            "{refused}"
        );
        assert!(!refused.contains("secret"), "{refused}");
    }
}
