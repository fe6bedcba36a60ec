//! Background work of the service, off the request path: the optimisation workers, webhook
//! delivery, notification sending and image compression. Each is a small loop over a core use
//! case, started by `dispatch serve` beside the HTTP server and stopped with it.

pub mod images;
pub mod notifications;
pub mod optimiser;
mod routing;
mod signal;
pub mod webhooks;

pub use optimiser::{Optimiser, OptimiserConfig};
pub use routing::{Routing, DISPATCH_DEADLINE};
pub use signal::JobSignal;

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{watch, Notify};
use tokio::task::JoinHandle;

use crate::AppState;

/// How long stopping waits for the workers to record what they finished.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// The running background workers.
pub struct Workers {
    tasks: Vec<(&'static str, JoinHandle<()>)>,
}

/// Starts every background worker over the state's store and clock; they stop when `stopping`
/// turns true. `outbox_commits` is notified after this process commits outbox events.
/// `images_pending`: images were left waiting for compression (see
/// [`images::pending_at_start`]).
pub fn start(
    state: &AppState,
    senders: notifications::ChannelSenders,
    webhooks: webhooks::WebhookConfig,
    outbox_commits: Arc<Notify>,
    images_pending: bool,
    stopping: watch::Receiver<bool>,
) -> Result<Workers, String> {
    let webhooks = webhooks::spawn(
        state.store.clone(),
        state.clock.clone(),
        webhooks,
        outbox_commits,
        stopping.clone(),
    )?;
    let notifications = notifications::spawn(
        state.store.clone(),
        state.clock.clone(),
        senders,
        stopping.clone(),
    );
    let images = images::spawn(
        state.store.clone(),
        state.clock.clone(),
        images_pending,
        stopping,
    );
    Ok(Workers {
        tasks: vec![
            ("webhook delivery", webhooks),
            ("notification sending", notifications),
            ("image compression", images),
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
