//! The image compression worker. Uploads wake it, and it compresses what is pending
//! (`dispatch_core::service::pod::compress_pending`) with the codec of
//! `dispatch_adapters::images`; the pending state is a stored row, so a compression interrupted
//! by a crash is simply done again after the restart.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dispatch_adapters::images::Codec;
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::Store;
use dispatch_core::service::pod::compress_pending;
use dispatch_http::signal::JobSignal;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How often the worker looks at its wake-up counter (no store access).
const TICK: Duration = Duration::from_millis(100);
/// How often the store is asked for pending images without a wake-up.
pub const IDLE_POLL: Duration = Duration::from_secs(60);
/// Images compressed per round at most.
const BATCH: usize = 8;

/// Whether the store holds images still waiting for compression (left by a crash): asked once
/// at start, before the service listens.
pub fn pending_at_start(store: &dyn Store) -> Result<bool, String> {
    store
        .read(|tx| tx.pending_images(1))
        .map(|p| !p.is_empty())
        .map_err(|e| format!("cannot read pending images: {e}"))
}

/// Starts the compression worker on a thread of its own (image work is CPU-heavy and must not
/// hold the runtime's blocking pool). It touches the store only when an upload woke it
/// (`uploads`, which the upload handlers of this process notify), when
/// `pending` images were left from before the start, and every [`IDLE_POLL`] otherwise. It
/// stops when `stopping` turns true (an image in progress is finished or, when interrupted by
/// a crash, compressed again after the next start).
pub fn spawn(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    pending: bool,
    uploads: JobSignal,
    mut stopping: watch::Receiver<bool>,
) -> JoinHandle<()> {
    let (stop_tx, stop_rx) = std::sync::mpsc::channel::<()>();
    let worker = std::thread::Builder::new()
        .name("image-compression".into())
        .spawn(move || {
            let mut seen = uploads.current();
            let mut next_round = match pending {
                true => Instant::now(),
                false => Instant::now() + IDLE_POLL,
            };
            loop {
                let count = uploads.current();
                if count != seen || Instant::now() >= next_round {
                    seen = count;
                    let busy = round(&*store, &*clock);
                    next_round = Instant::now() + if busy { Duration::ZERO } else { IDLE_POLL };
                }
                match stop_rx.recv_timeout(TICK) {
                    Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {}
                    _ => return,
                }
            }
        });
    tokio::spawn(async move {
        let _ = stopping.wait_for(|s| *s).await;
        let _ = stop_tx.send(());
        if let Ok(worker) = worker {
            let _ = tokio::task::spawn_blocking(move || worker.join()).await;
        }
    })
}

/// One batch; true when the batch was full (more may be waiting).
fn round(store: &dyn Store, clock: &dyn Clock) -> bool {
    match compress_pending(store, &Codec, clock, BATCH) {
        Ok(done) => {
            if done > 0 {
                tracing::debug!(done, "images compressed");
            }
            done == BATCH
        }
        Err(e) => {
            tracing::error!(error = %e, "image compression: store failed; retrying");
            false
        }
    }
}
