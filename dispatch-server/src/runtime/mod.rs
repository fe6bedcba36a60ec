//! Background work of the service, off the request path: the optimisation workers, webhook
//! delivery, notification sending, image compression and the purge of old driver positions. Each is a small loop over a core use
//! case, started by `dispatch serve` beside the HTTP server (unless `--workers off`) or by
//! `dispatch worker` alone, and stopped with it. Several processes on one database share the
//! work through leases (`dispatch_core::service::leases`); [`node::node_id`] names each.

pub mod images;
pub mod node;
pub mod notifications;
pub mod optimiser;
pub mod positions;
mod purge;
pub mod webhooks;

pub use optimiser::{Optimiser, OptimiserConfig};

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::Store;
use dispatch_http::signal::JobSignal;
use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

/// How long stopping waits for the workers to record what they finished.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// The shortest wait of a worker that waits for a time of the clock: on a fast simulated clock
/// a poll or a retry scaled down by the clock's speed still leaves the machine time to work.
const SHORTEST_CLOCK_WAIT: Duration = Duration::from_millis(20);

/// The wall time a worker sleeps to wait `span` of `clock`'s time (the same on the wall clock;
/// shorter, but at least 20 ms, on a simulated clock running faster).
pub fn clock_wait(clock: &dyn Clock, span: Duration) -> Duration {
    if clock.speed() == 1.0 {
        return span;
    }
    clock.wall_time_of(span).max(SHORTEST_CLOCK_WAIT.min(span))
}

/// The running background workers.
pub struct Workers {
    tasks: Vec<(&'static str, JoinHandle<()>)>,
}

/// Starts the webhook, notification and image workers of node `node` over `store` and
/// `clock` (notifications are sent as `sending` says, on its node); they stop when `stopping` turns true. `outbox_commits` is notified after this
/// process commits outbox events. `images_pending`: images were left waiting for compression
/// (see [`images::pending_at_start`]); `uploads` is notified when this process stores images.
/// Driver positions are kept for `positions` (`None`: forever).
#[allow(clippy::too_many_arguments)]
pub fn start(
    store: &Arc<dyn Store>,
    clock: &Arc<dyn Clock>,
    node: &str,
    sending: notifications::SendConfig,
    webhooks: webhooks::WebhookConfig,
    outbox_commits: Arc<Notify>,
    images_pending: bool,
    uploads: JobSignal,
    positions: Option<Duration>,
    stopping: watch::Receiver<bool>,
) -> Result<Workers, String> {
    let webhooks = webhooks::spawn(
        store.clone(),
        clock.clone(),
        webhooks,
        outbox_commits,
        stopping.clone(),
        node.to_owned(),
    )?;
    let notifications =
        notifications::spawn(store.clone(), clock.clone(), sending, stopping.clone());
    let images = images::spawn(
        store.clone(),
        clock.clone(),
        images_pending,
        uploads,
        stopping.clone(),
    );
    let positions = positions::spawn(store.clone(), clock.clone(), positions, stopping);
    Ok(Workers {
        tasks: vec![
            ("webhook delivery", webhooks),
            ("notification sending", notifications),
            ("image compression", images),
            ("position retention", positions),
        ],
    })
}

impl Workers {
    /// Waits (a bounded time) for the workers to finish after `stopping` turned true.
    pub async fn stop(self) {
        for (name, task) in self.tasks {
            if tokio::time::timeout(STOP_GRACE, task).await.is_err() {
                tracing::warn!(worker = name, "worker did not stop in time");
            }
        }
    }
}
