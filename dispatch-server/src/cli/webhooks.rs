//! `dispatch webhooks`: what an operator needs to see and repair webhook deliveries.
//!
//! - `dispatch webhooks failed [--db PATH|URL] [--depot ID] [--limit N]` prints the deliveries
//!   marked ERROR, newest first, as one JSON document.
//! - `dispatch webhooks show [--db PATH|URL] ID` prints one delivery.
//! - `dispatch webhooks resend [--db PATH|URL] ID` queues a new delivery of the same event; the
//!   ERROR record stays as it was. A running `serve` picks the new delivery up within its next
//!   scan.

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::{DeliveryRecord, DeliveryState, Store, StoreError};
use serde_json::{json, Value};

use super::database::{Database, DatabaseParser};
use dispatch_adapters::webhook::body;
use dispatch_http::clock::SystemClock;

/// The subcommands of `dispatch webhooks`.
#[derive(Debug, clap::Args)]
pub struct WebhooksArgs {
    /// What to do with the deliveries.
    #[command(subcommand)]
    pub command: WebhooksCommand,
}

/// `dispatch webhooks failed`, `show` and `resend`.
#[derive(Debug, clap::Subcommand)]
pub enum WebhooksCommand {
    /// List deliveries that failed for good (ERROR), newest first.
    Failed {
        /// SQLite database file or PostgreSQL URL.
        #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
        db: Database,
        /// Only this depot's deliveries.
        #[arg(long)]
        depot: Option<i64>,
        /// At most this many.
        #[arg(long, default_value_t = 100)]
        limit: usize,
    },
    /// Show one delivery.
    Show {
        /// SQLite database file or PostgreSQL URL.
        #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
        db: Database,
        /// The delivery id.
        id: i64,
    },
    /// Deliver the event of a delivery again, as a new delivery.
    Resend {
        /// SQLite database file or PostgreSQL URL.
        #[arg(long, default_value = "./dispatch.db", value_parser = DatabaseParser)]
        db: Database,
        /// The delivery id (from `failed`).
        id: i64,
    },
}

/// Runs `dispatch webhooks`.
pub fn run(args: WebhooksArgs) -> Result<(), String> {
    let output = match args.command {
        WebhooksCommand::Failed { db, depot, limit } => {
            let store = open(&db)?;
            let rows = store
                .read(|tx| tx.list_deliveries(DeliveryState::Error, depot, limit))
                .map_err(|e| e.to_string())?;
            json!({ "failed": rows.iter().map(render).collect::<Vec<_>>() })
        }
        WebhooksCommand::Show { db, id } => {
            let store = open(&db)?;
            let row = store
                .read(|tx| tx.get_delivery(id))
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("no delivery {id}"))?;
            json!({ "delivery": render(&row) })
        }
        WebhooksCommand::Resend { db, id } => {
            let store = open(&db)?;
            let now = SystemClock.now();
            let new = store
                .transaction(|tx| tx.resend_event(id, now))
                .map_err(|e: StoreError| e.to_string())?
                .ok_or_else(|| format!("no delivery {id}"))?;
            json!({ "resent": id, "delivery": new })
        }
    };
    let text = serde_json::to_string_pretty(&output).map_err(|e| e.to_string())?;
    super::stdout::line(&text)
}

fn open(db: &Database) -> Result<std::sync::Arc<dyn Store>, String> {
    if !db.exists() {
        return Err(format!("no database at {db}"));
    }
    db.open()
}

fn render(r: &DeliveryRecord) -> Value {
    json!({
        "id": r.id,
        "depot_id": r.scope.depot_id,
        "event": body(&r.event),
        "created": r.created.to_string(),
        "state": r.state.as_str(),
        "attempts": r.attempts,
        "error": r.error,
        "finished": r.finished.map(|t| t.to_string()),
        "resend_of": r.resend_of,
    })
}
