//! Sending due tasks: the loop body of the notification worker.

use crate::model::notification::{Channel, TaskStatus};
use crate::ports::clock::Clock;
use crate::ports::notifier::{NotificationSender, OutgoingMessage};
use crate::ports::store::{Store, StoreError};
use crate::time::Timestamp;

/// Tasks claimed longer ago than this and never finished were interrupted (a send is bounded
/// by the adapters' timeouts, well below this).
pub const STALE_CLAIM_MILLIS: i64 = 120_000;

/// The sender of each channel.
pub struct Senders<'a> {
    /// SMS.
    pub sms: &'a dyn NotificationSender,
    /// E-mail.
    pub email: &'a dyn NotificationSender,
}

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SendReport {
    /// Tasks handed to their sender.
    pub sent: usize,
    /// Tasks the sender refused.
    pub failed: usize,
    /// Interrupted tasks marked Failed.
    pub interrupted: u64,
}

/// Sends up to `limit` tasks due now. Each task is claimed in its own committed transaction
/// before its sender is called and finished after, so a crash between the two leaves a claim
/// that [`STALE_CLAIM_MILLIS`] later turns into Failed: a task is never sent twice.
pub fn send_due(
    store: &dyn Store,
    clock: &dyn Clock,
    senders: &Senders<'_>,
    limit: usize,
) -> Result<SendReport, StoreError> {
    let now = clock.now();
    let cutoff = Timestamp::from_millis(now.millis() - STALE_CLAIM_MILLIS);
    let mut report = SendReport {
        interrupted: store.transaction(|tx| tx.fail_stale_notification_tasks(cutoff, now))?,
        ..SendReport::default()
    };
    let due = store.read(|tx| tx.due_notification_tasks(now, limit))?;
    for d in due {
        let claimed = store.transaction(|tx| tx.claim_notification_task(d.task.id, clock.now()))?;
        if !claimed {
            continue;
        }
        let sender = match d.task.channel {
            Channel::Sms => senders.sms,
            Channel::Email => senders.email,
        };
        let message = OutgoingMessage {
            channel: d.task.channel,
            to: d.task.to.clone(),
            subject: d.task.subject.clone(),
            body: d.task.message.clone(),
        };
        let result = sender.send(&message);
        let (status, error) = match &result {
            Ok(()) => (TaskStatus::Sent, None),
            Err(e) => (TaskStatus::Failed, Some(e.to_string())),
        };
        store.transaction(|tx| {
            tx.finish_notification_task(
                d.task.id,
                status,
                &sender.name(),
                error.as_deref(),
                clock.now(),
            )
        })?;
        match result {
            Ok(()) => report.sent += 1,
            Err(_) => report.failed += 1,
        }
    }
    Ok(report)
}
