//! Sending due tasks, for several nodes on one database: every task is sent by one node at a
//! time under a lease, as optimisation jobs are run (`service::leases`).
//!
//! - **Claim** ([`claim_due`]): a node takes a batch of due tasks whose lease is free or ran
//!   out; each task's attempts grow by one and it is leased to the node until a deadline.
//!   Claimers on other nodes skip tasks being claimed and take the next ones.
//! - **Heartbeat** ([`renew_sends`]): the holder extends the leases of the tasks it has not
//!   finished; a renewal fails once a task is no longer the holder's.
//! - **Fencing** ([`finish_send`]): the outcome is written only in a transaction that locked
//!   the task and found it still the holder's attempt; [`send_batch`] asks before each send.
//! - **Expiry**: the lease of a node that died mid-send runs out and another node claims the
//!   task again and sends it; after [`MAX_SEND_ATTEMPTS`] starts it fails with
//!   [`INTERRUPTED`] instead.
//! - **Hand-back** ([`release_sends`]): a node that stops gracefully returns the tasks it has
//!   not sent, without counting the attempt.
//!
//! So a send is **at least once**: a node that dies after the provider accepted a message and
//! before the outcome committed leaves a task that another node sends again. The message
//! carries the task's stable [`OutgoingMessage::key`] so a provider (or the recipient's mail
//! client, by `Message-ID`) can drop the duplicate; nothing else can make it exactly once.

use crate::model::notification::{Channel, NotificationTask, TaskStatus};
use crate::model::organisation::DepotScope;
use crate::ports::clock::Clock;
use crate::ports::notifier::{NotificationSender, OutgoingMessage};
use crate::ports::store::{SendLease, Store, StoreError, StoreTx};
use crate::time::Timestamp;

/// Starts of one task after which a task whose node stopped every time fails instead of being
/// sent again (a message that kills its sender must not crash every node in turn).
pub const MAX_SEND_ATTEMPTS: u32 = 3;

/// The error recorded on a task whose node stopped on each of its [`MAX_SEND_ATTEMPTS`] starts.
pub const INTERRUPTED: &str = "interrupted while sending: the node sending it stopped on every \
     attempt (it may have gone out); not tried again";

/// The sender of each channel.
pub struct Senders<'a> {
    /// SMS.
    pub sms: &'a dyn NotificationSender,
    /// E-mail.
    pub email: &'a dyn NotificationSender,
}

/// A task as a node claimed it: the fencing identity of the send is (task id, holder,
/// attempt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskClaim {
    /// The task's depot.
    pub scope: DepotScope,
    /// The task as claimed.
    pub task: NotificationTask,
    /// The node sending it.
    pub holder: String,
    /// Which start this is (1 for the first).
    pub attempt: u32,
}

/// What [`claim_due`] took.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Claimed {
    /// The tasks to send, soonest first.
    pub tasks: Vec<TaskClaim>,
    /// Tasks failed with [`INTERRUPTED`] instead of being claimed again.
    pub interrupted: u64,
}

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SendReport {
    /// Tasks handed to a delivering sender and recorded Sent.
    pub sent: usize,
    /// Tasks the embedded default sender handled, recorded Recorded (nothing delivered).
    pub recorded: usize,
    /// Tasks the sender refused.
    pub failed: usize,
    /// Tasks failed with [`INTERRUPTED`].
    pub interrupted: u64,
    /// Claimed tasks this node did not finish: its lease was lost (another node took the task
    /// over) or it was stopping.
    pub not_finished: usize,
}

/// Claims up to `limit` tasks due at `now` for `holder`, leased until `until`.
pub fn claim_due(
    store: &dyn Store,
    holder: &str,
    now: Timestamp,
    until: Timestamp,
    limit: usize,
) -> Result<Claimed, StoreError> {
    store.claim(|tx| {
        let mut out = Claimed::default();
        for (due, lease) in tx.lock_sendable_notification_tasks(now, limit)? {
            if lease.attempts >= MAX_SEND_ATTEMPTS {
                tx.finish_notification_task(
                    due.task.id,
                    TaskStatus::Failed,
                    None,
                    Some(INTERRUPTED),
                    now,
                )?;
                out.interrupted += 1;
                continue;
            }
            let attempt = lease.attempts + 1;
            let lease = SendLease {
                holder: Some(holder.to_owned()),
                attempts: attempt,
                until: Some(until),
            };
            tx.set_notification_lease(due.task.id, &lease, now)?;
            out.tasks.push(TaskClaim {
                scope: due.scope,
                task: due.task,
                holder: holder.to_owned(),
                attempt,
            });
        }
        Ok(out)
    })
}

/// Locks the task for the rest of `tx`; true when it is still `claim`'s attempt (Scheduled,
/// same holder, same attempt). Every write of a send's outcome starts with this.
pub fn holds(tx: &mut dyn StoreTx, claim: &TaskClaim) -> Result<bool, StoreError> {
    Ok(match tx.lock_notification_task(claim.task.id)? {
        Some((status, lease)) => {
            status == TaskStatus::Scheduled
                && lease.attempts == claim.attempt
                && lease.holder.as_deref() == Some(claim.holder.as_str())
        }
        None => false,
    })
}

/// The heartbeat: extends the leases of `claims` to `until`; returns the ids of those no
/// longer the holder's (finished, cancelled, or taken over after the lease ran out).
pub fn renew_sends(
    store: &dyn Store,
    claims: &[TaskClaim],
    until: Timestamp,
    now: Timestamp,
) -> Result<Vec<i64>, StoreError> {
    store.claim(|tx| {
        let mut lost = Vec::new();
        for claim in claims {
            if holds(tx, claim)? {
                let lease = SendLease {
                    holder: Some(claim.holder.clone()),
                    attempts: claim.attempt,
                    until: Some(until),
                };
                tx.set_notification_lease(claim.task.id, &lease, now)?;
            } else {
                lost.push(claim.task.id);
            }
        }
        Ok(lost)
    })
}

/// Records a send's outcome (`Ok` Sent, or Recorded when the sender `delivered` nothing; `Err`
/// Failed with the reason) while the task is still `claim`'s; false (nothing written) when it
/// is not.
pub fn finish_send(
    store: &dyn Store,
    claim: &TaskClaim,
    outcome: Result<(), String>,
    sender: &str,
    delivered: bool,
    now: Timestamp,
) -> Result<bool, StoreError> {
    store.claim(|tx| {
        if !holds(tx, claim)? {
            return Ok(false);
        }
        let (status, error) = match &outcome {
            Ok(()) if delivered => (TaskStatus::Sent, None),
            Ok(()) => (TaskStatus::Recorded, None),
            Err(e) => (TaskStatus::Failed, Some(e.as_str())),
        };
        tx.finish_notification_task(claim.task.id, status, Some(sender), error, now)?;
        Ok(true)
    })
}

/// A graceful stop: hands the tasks of `claims` still the holder's back, unclaimed and with
/// the attempt not counted, so any node sends them at once. Returns how many.
pub fn release_sends(
    store: &dyn Store,
    claims: &[TaskClaim],
    now: Timestamp,
) -> Result<usize, StoreError> {
    store.claim(|tx| {
        let mut released = 0;
        for claim in claims {
            if holds(tx, claim)? {
                let lease = SendLease {
                    holder: None,
                    attempts: claim.attempt - 1,
                    until: None,
                };
                tx.set_notification_lease(claim.task.id, &lease, now)?;
                released += 1;
            }
        }
        Ok(released)
    })
}

/// The message of a claimed task, with its stable key.
pub fn message(task: &NotificationTask) -> OutgoingMessage {
    OutgoingMessage {
        channel: task.channel,
        key: format!("notification-task-{}", task.id),
        to: task.to.clone(),
        subject: task.subject.clone(),
        body: task.message.clone(),
    }
}

/// Sends the claimed tasks one after another, each only while `may_send` says the claim is
/// still good (the caller's heartbeat saw no loss and it is not stopping), and records each
/// outcome fenced by the claim.
pub fn send_batch(
    store: &dyn Store,
    clock: &dyn Clock,
    senders: &Senders<'_>,
    claims: &[TaskClaim],
    may_send: &dyn Fn(&TaskClaim) -> bool,
) -> Result<SendReport, StoreError> {
    let mut report = SendReport::default();
    for claim in claims {
        if !may_send(claim) {
            report.not_finished += 1;
            continue;
        }
        let sender = match claim.task.channel {
            Channel::Sms => senders.sms,
            Channel::Email => senders.email,
        };
        let outcome = sender
            .send(&message(&claim.task))
            .map_err(|e| e.to_string());
        let failed = outcome.is_err();
        let delivered = sender.delivers();
        if !finish_send(
            store,
            claim,
            outcome,
            &sender.name(),
            delivered,
            clock.now(),
        )? {
            report.not_finished += 1;
        } else if failed {
            report.failed += 1;
        } else if delivered {
            report.sent += 1;
        } else {
            report.recorded += 1;
        }
    }
    Ok(report)
}

/// One round without a heartbeat, for callers whose whole batch is sent well within `lease_ms`
/// (tests, a single process): claims up to `limit` due tasks for `holder` and sends them.
pub fn send_due(
    store: &dyn Store,
    clock: &dyn Clock,
    senders: &Senders<'_>,
    holder: &str,
    lease_ms: i64,
    limit: usize,
) -> Result<SendReport, StoreError> {
    let now = clock.now();
    let claimed = claim_due(store, holder, now, now.add_millis(lease_ms), limit)?;
    let mut report = send_batch(store, clock, senders, &claimed.tasks, &|_| true)?;
    report.interrupted = claimed.interrupted;
    Ok(report)
}
