//! The notification worker: every [`POLL`] of the clock's time it claims the tasks that are due for this node
//! under leases (`dispatch_core::service::notifications::sending`) and sends them through the
//! sender of their channel (round.rs). Without a configured sender a channel uses the embedded
//! default, which delivers nothing and records the task as sent by `recorded-only ...`; the
//! start-up log says so.

mod round;

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::notifier::NotificationSender;
use dispatch_core::ports::store::Store;
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// How often due tasks are looked for, in the clock's time (a simulated clock running fast
/// looks as often in its own time, within `runtime::clock_wait`'s bound).
pub const POLL: Duration = Duration::from_millis(500);

/// The sender of each channel.
#[derive(Clone)]
pub struct ChannelSenders {
    /// Sends the tasks of the `sms` channel.
    pub sms: Arc<dyn NotificationSender>,
    /// Sends the tasks of the `email` channel.
    pub email: Arc<dyn NotificationSender>,
}

/// What the worker of one process sends with.
#[derive(Clone)]
pub struct SendConfig {
    /// The sender of each channel.
    pub senders: ChannelSenders,
    /// This process's node name (the holder of its claims).
    pub node: String,
    /// How long a claim on a task lasts without renewal.
    pub lease: Duration,
}

/// Starts the worker; it stops when `stopping` turns true (a send in progress finishes; the
/// tasks of its batch not sent yet are handed back).
pub fn spawn(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    config: SendConfig,
    mut stopping: watch::Receiver<bool>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let (store, round_clock, config) = (store.clone(), clock.clone(), config.clone());
            let stop = stopping.clone();
            let round = tokio::task::spawn_blocking(move || {
                round::send_round(&*store, &*round_clock, &config, &stop)
            })
            .await;
            if let Ok(Ok(report)) = &round {
                metrics::counter!("dispatch_notifications_total", "outcome" => "sent")
                    .increment(report.sent as u64);
                metrics::counter!("dispatch_notifications_total", "outcome" => "recorded")
                    .increment(report.recorded as u64);
                metrics::counter!("dispatch_notifications_total", "outcome" => "failed")
                    .increment(report.failed as u64);
                metrics::counter!("dispatch_notifications_total", "outcome" => "interrupted")
                    .increment(report.interrupted);
            }
            match round {
                Ok(Ok(report))
                    if report.sent + report.recorded + report.failed + report.not_finished > 0
                        || report.interrupted > 0 =>
                {
                    tracing::info!(
                        sent = report.sent,
                        recorded = report.recorded,
                        failed = report.failed,
                        interrupted = report.interrupted,
                        not_finished = report.not_finished,
                        "notification tasks handled"
                    );
                }
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    tracing::error!(error = %e, "notification worker: store failed; retrying")
                }
                Err(e) => tracing::error!(error = %e, "notification worker round failed"),
            }
            tokio::select! {
                () = tokio::time::sleep(crate::runtime::clock_wait(&*clock, POLL)) => {}
                _ = stopping.wait_for(|s| *s) => return,
            }
        }
    })
}
