//! Purging old records by age, shared by the retention loops: rows go in small batches, each
//! its own short transaction, so purging a long history never holds the write lock for long.

use std::future::Future;
use std::time::Duration;

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::StoreError;
use dispatch_core::time::Timestamp;
use tokio::sync::watch;

/// Rows deleted per transaction.
pub const BATCH: usize = 500;
/// Pause between batches while there is more to delete (lets the API's writers in).
const BETWEEN_BATCHES: Duration = Duration::from_millis(50);

/// Runs `batch` (which deletes at most [`BATCH`] rows and says how many) at start, then every
/// `every` of `clock`'s time, and again at once while a batch comes back full, until
/// `stopping` turns true. `what` names the records in logs.
pub async fn run<F, Fut>(
    what: &'static str,
    clock: &dyn Clock,
    every: Duration,
    mut stopping: watch::Receiver<bool>,
    mut batch: F,
) where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<usize, StoreError>>,
{
    loop {
        let pause = match batch().await {
            Ok(deleted) if deleted >= BATCH => BETWEEN_BATCHES,
            Ok(deleted) => {
                if deleted > 0 {
                    tracing::debug!(deleted, what, "old records purged");
                }
                every
            }
            Err(e) => {
                tracing::error!(error = %e, what, "purging old records failed; retrying later");
                every
            }
        };
        tokio::select! {
            () = tokio::time::sleep(super::clock_wait(clock, pause)) => {}
            _ = stopping.wait_for(|s| *s) => return,
        }
    }
}

/// The instant `keep` before the clock's now.
pub fn cut(clock: &dyn Clock, keep: Duration) -> Timestamp {
    clock
        .now()
        .add_millis(-i64::try_from(keep.as_millis()).unwrap_or(i64::MAX))
}

/// Runs `f` (a store transaction) on the blocking pool.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| StoreError::Backend(format!("purge task failed: {e}")))?
}
