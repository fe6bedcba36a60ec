//! Outbox retention: delivered and skipped rows are deleted once they are older than
//! [`Retention::finished`], ERROR rows (what an operator inspects and re-sends) once older than
//! the longer [`Retention::failed`]. Rows go in small batches, each its own short transaction, so
//! purging a long history never holds the write lock for long; pending rows are never touched.

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::time::Timestamp;
use tokio::sync::watch;

use crate::runtime::purge;

/// How long finished deliveries are kept; `None` keeps them forever.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// DELIVERED and SKIPPED rows, from when they finished (default 7 days).
    pub finished: Option<Duration>,
    /// ERROR rows, from when they failed (default 30 days); a row a re-send names is kept
    /// while the re-send is.
    pub failed: Option<Duration>,
    /// How often expired rows are looked for (at start, then this often).
    pub every: Duration,
}

impl Default for Retention {
    fn default() -> Self {
        Retention {
            finished: Some(Duration::from_secs(7 * 86_400)),
            failed: Some(Duration::from_secs(30 * 86_400)),
            every: Duration::from_secs(60),
        }
    }
}

/// Purges expired rows until `stopping` turns true.
pub async fn run(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    retention: Retention,
    stopping: watch::Receiver<bool>,
) {
    if retention.finished.is_none() && retention.failed.is_none() {
        return;
    }
    purge::run(
        "webhook deliveries",
        &*clock,
        retention.every,
        stopping,
        || purge_batch(&store, &*clock, retention),
    )
    .await;
}

fn purge_batch(
    store: &Arc<dyn Store>,
    clock: &dyn Clock,
    retention: Retention,
) -> impl std::future::Future<Output = Result<usize, StoreError>> {
    let cut = |keep: Option<Duration>| keep.map(|keep| purge::cut(clock, keep));
    let finished_before = cut(retention.finished).unwrap_or(Timestamp::from_millis(i64::MIN));
    let failed_before = cut(retention.failed);
    let store = store.clone();
    purge::blocking(move || {
        store.transaction(|tx| tx.purge_deliveries(finished_before, failed_before, purge::BATCH))
    })
}
