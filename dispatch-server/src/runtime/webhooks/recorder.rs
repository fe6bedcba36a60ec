//! Writes finished deliveries back to the outbox in batches: one transaction for everything
//! that finished since the last write, so delivery bookkeeping costs the API's writers a few
//! short transactions a second however many events flow.

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::store::{DeliveryOutcome, Store, StoreError};
use tokio::sync::mpsc;

/// Most outcomes written in one transaction.
const MAX_BATCH: usize = 2000;

/// Runs until every sender is gone and everything received is written.
pub async fn run(store: Arc<dyn Store>, mut outcomes: mpsc::UnboundedReceiver<DeliveryOutcome>) {
    let mut batch = Vec::new();
    while let Some(first) = outcomes.recv().await {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match outcomes.try_recv() {
                Ok(o) => batch.push(o),
                Err(_) => break,
            }
        }
        write(&store, &mut batch).await;
    }
}

/// Writes the batch, retrying a failed write (the rows stay pending meanwhile: a crash now
/// only means these events are delivered once more after the restart).
async fn write(store: &Arc<dyn Store>, batch: &mut Vec<DeliveryOutcome>) {
    let mut delay = Duration::from_millis(50);
    loop {
        let store = store.clone();
        let rows = batch.clone();
        let result =
            tokio::task::spawn_blocking(move || store.transaction(|tx| tx.mark_deliveries(&rows)))
                .await
                .map_err(|e| StoreError::Backend(e.to_string()))
                .and_then(|r| r);
        match result {
            Ok(()) => {
                batch.clear();
                return;
            }
            Err(e) => {
                tracing::error!(error = %e, rows = batch.len(), "recording webhook outcomes failed; retrying");
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(5));
            }
        }
    }
}
