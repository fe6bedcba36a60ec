//! `dispatch keys`: access keys on the database directly, for the operator who lost one.
//!
//! - `dispatch keys list [--db PATH]` prints organisations, depots and their keys' names and
//!   permissions as one JSON document (never a key: only digests are stored).
//! - `dispatch keys create [--db PATH] --depot ID --name NAME [--permission all|read]` makes a
//!   new key and prints `access key: KEY` on stdout, the only time it is shown.
//! - `dispatch keys revoke [--db PATH] --depot ID --name NAME` revokes a key: it stops
//!   authenticating with the commit (a running `serve` looks keys up per request). A key
//!   created again under that name is a different key.

use std::sync::Arc;

use dispatch_core::model::organisation::{DepotScope, KeyPermission};
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::{Store, StoreError, StoreTx};
use serde_json::{json, Value};

use super::database::{Database, DatabaseParser};
use dispatch_http::clock::SystemClock;
use dispatch_http::keys::{create_key, CreateKeyError};

/// The subcommands of `dispatch keys`.
#[derive(Debug, clap::Args)]
pub struct KeysArgs {
    /// What to do with the keys.
    #[command(subcommand)]
    pub command: KeysCommand,
}

/// `dispatch keys list`, `create` and `revoke`.
#[derive(Debug, clap::Subcommand)]
pub enum KeysCommand {
    /// List organisations, depots and their keys' names and permissions (never the keys).
    List {
        /// The service's database: a SQLite file or a PostgreSQL URL.
        #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
        db: Database,
    },
    /// Create a key for a depot and print it (`access key: KEY`); it is shown only this once.
    Create {
        /// Which key of which depot.
        #[command(flatten)]
        key: DepotKey,
        /// `all` may call every endpoint, `read` only GET endpoints.
        #[arg(long, value_parser = ["all", "read"], default_value = "all")]
        permission: String,
    },
    /// Revoke a depot's key: requests with it are refused from now on.
    Revoke {
        /// Which key of which depot.
        #[command(flatten)]
        key: DepotKey,
    },
}

/// Which key of which depot (`create` and `revoke`).
#[derive(Debug, clap::Args)]
pub struct DepotKey {
    /// The service's database: a SQLite file or a PostgreSQL URL.
    #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
    db: Database,
    /// The depot's id (see `dispatch keys list`).
    #[arg(long)]
    depot: i64,
    /// The key's name, unique within the depot.
    #[arg(long)]
    name: String,
}

/// Runs `dispatch keys`.
pub fn run(args: KeysArgs) -> Result<(), String> {
    let now = SystemClock.now();
    match args.command {
        KeysCommand::List { db } => {
            let listing = open(&db)?.read(list).map_err(|e| e.to_string())?;
            let text = serde_json::to_string_pretty(&listing).map_err(|e| e.to_string())?;
            super::stdout::line(&text)?;
        }
        KeysCommand::Create {
            key: DepotKey { db, depot, name },
            permission,
        } => {
            if name.trim().is_empty() {
                return Err("--name must not be empty".into());
            }
            let permission = KeyPermission::parse(&permission)
                .ok_or_else(|| format!("--permission {permission}: must be all or read"))?;
            let clear = open(&db)?
                .transaction(|tx| {
                    let scope = depot_scope(tx, depot)?
                        .ok_or_else(|| format!("no depot {depot} (see `dispatch keys list`)"))?;
                    create_key(tx, scope, &name, permission, now)
                        .map(|(_, clear)| clear)
                        .map_err(|e: CreateKeyError| KeyCommandError(e.to_string()))
                })
                .map_err(|e: KeyCommandError| e.0)?;
            super::stdout::line(&format!("access key: {clear}"))?;
        }
        KeysCommand::Revoke {
            key: DepotKey { db, depot, name },
        } => {
            open(&db)?
                .transaction(|tx| {
                    let scope = depot_scope(tx, depot)?
                        .ok_or_else(|| format!("no depot {depot} (see `dispatch keys list`)"))?;
                    if tx.revoke_access_key(scope, &name, now)? {
                        Ok(())
                    } else {
                        Err(format!("depot {depot} has no key named {name:?}").into())
                    }
                })
                .map_err(|e: KeyCommandError| e.0)?;
            eprintln!("revoked key {name:?} of depot {depot}");
        }
    }
    Ok(())
}

/// A failed key command's message; the transaction rolls back on it.
struct KeyCommandError(String);

impl From<String> for KeyCommandError {
    fn from(message: String) -> Self {
        KeyCommandError(message)
    }
}

impl From<StoreError> for KeyCommandError {
    fn from(e: StoreError) -> Self {
        KeyCommandError(format!("cannot use the database: {e}"))
    }
}

pub(super) fn open(db: &Database) -> Result<Arc<dyn Store>, String> {
    if !db.exists() {
        return Err(format!(
            "no database at {db} (give --db, or start `dispatch serve` once to create it)"
        ));
    }
    db.open()
}

pub(super) fn depot_scope(
    tx: &mut dyn StoreTx,
    depot_id: i64,
) -> Result<Option<DepotScope>, StoreError> {
    for organisation in tx.list_organisations()? {
        if let Some(depot) = tx
            .list_depots(organisation.id)?
            .into_iter()
            .find(|d| d.id == depot_id)
        {
            return Ok(Some(depot.scope()));
        }
    }
    Ok(None)
}

fn list(tx: &mut dyn StoreTx) -> Result<Value, StoreError> {
    let mut organisations = Vec::new();
    for organisation in tx.list_organisations()? {
        let mut depots = Vec::new();
        for depot in tx.list_depots(organisation.id)? {
            let keys: Vec<Value> = tx
                .list_access_keys(depot.scope())?
                .iter()
                .map(|k| json!({"name": k.name, "permission": k.permission.as_str()}))
                .collect();
            depots.push(json!({"id": depot.id, "name": depot.name, "access_keys": keys}));
        }
        organisations.push(json!({
            "id": organisation.id,
            "name": organisation.name,
            "depots": depots,
        }));
    }
    Ok(json!({ "organisations": organisations }))
}
