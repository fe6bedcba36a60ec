//! One round of the notification worker on a blocking thread: claim a batch of due tasks for
//! this node, send them one after another while a heartbeat thread renews the leases of those
//! not yet finished, hand back what was not sent, and go on while batches come back full.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::Duration;

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::service::notifications::{
    claim_due, release_sends, renew_sends, send_batch, SendReport, Senders, TaskClaim,
};
use tokio::sync::watch;

use super::SendConfig;

/// Tasks one claim takes at most: small, so the due tasks of a busy minute spread over the
/// nodes instead of waiting behind one node's long batch.
const BATCH: usize = 16;

/// Sends every due task this node can claim (until a batch comes back short or `stopping`).
pub(super) fn send_round(
    store: &dyn Store,
    clock: &dyn Clock,
    config: &SendConfig,
    stopping: &watch::Receiver<bool>,
) -> Result<SendReport, StoreError> {
    let mut total = SendReport::default();
    let lease_ms = clock.span_of(config.lease);
    loop {
        let now = clock.now();
        let claimed = claim_due(store, &config.node, now, now.add_millis(lease_ms), BATCH)?;
        total.interrupted += claimed.interrupted;
        let claims = claimed.tasks;
        if claims.is_empty() {
            return Ok(total);
        }
        metrics::counter!("dispatch_notification_claims_total").increment(claims.len() as u64);
        let report = with_heartbeat(store, clock, config, &claims, |may_send| {
            let senders = Senders {
                sms: &*config.senders.sms,
                email: &*config.senders.email,
            };
            send_batch(store, clock, &senders, &claims, &|c| {
                may_send(c) && !*stopping.borrow()
            })
        })?;
        if report.not_finished > 0 {
            let released = release_sends(store, &claims, clock.now())?;
            if released > 0 {
                tracing::info!(released, "notification tasks handed back unsent");
            }
        }
        total.sent += report.sent;
        total.recorded += report.recorded;
        total.failed += report.failed;
        total.not_finished += report.not_finished;
        if claims.len() < BATCH || *stopping.borrow() {
            return Ok(total);
        }
    }
}

/// Runs `send` (which sends `claims` in order, asking its argument before each) while a
/// heartbeat renews the leases of the claims not yet finished every third of the lease. A
/// claim the heartbeat found lost is not sent: another node has it.
fn with_heartbeat<T>(
    store: &dyn Store,
    clock: &dyn Clock,
    config: &SendConfig,
    claims: &[TaskClaim],
    send: impl FnOnce(&dyn Fn(&TaskClaim) -> bool) -> T,
) -> T {
    let lost = Mutex::new(HashSet::new());
    // Claims before this index are finished; the one at it may be in flight.
    let next = AtomicUsize::new(0);
    let (done, beat) = mpsc::channel::<()>();
    std::thread::scope(|s| {
        let (next, lost) = (&next, &lost);
        s.spawn(move || heartbeat(store, clock, config, claims, next, lost, beat));
        let asked = AtomicUsize::new(0);
        let may_send = |c: &TaskClaim| {
            next.store(asked.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst);
            !lost
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .contains(&c.task.id)
        };
        let out = send(&may_send);
        drop(done);
        out
    })
}

fn heartbeat(
    store: &dyn Store,
    clock: &dyn Clock,
    config: &SendConfig,
    claims: &[TaskClaim],
    next: &AtomicUsize,
    lost: &Mutex<HashSet<i64>>,
    beat: mpsc::Receiver<()>,
) {
    let every = (config.lease / 3).max(Duration::from_millis(10));
    let lease_ms = clock.span_of(config.lease);
    // The sender side is dropped when the batch is done: then the heartbeat ends at once.
    while let Err(mpsc::RecvTimeoutError::Timeout) = beat.recv_timeout(every) {
        let open = &claims[next.load(Ordering::SeqCst).min(claims.len())..];
        let now = clock.now();
        match renew_sends(store, open, now.add_millis(lease_ms), now) {
            Ok(gone) => {
                metrics::counter!("dispatch_notification_lease_renewals_total", "outcome" => "renewed")
                    .increment((open.len() - gone.len()) as u64);
                if !gone.is_empty() {
                    metrics::counter!("dispatch_notification_lease_renewals_total", "outcome" => "lost")
                        .increment(gone.len() as u64);
                    tracing::warn!(tasks = ?gone, "notification tasks no longer this node's (finished meanwhile, or taken over after the lease ran out): not sent here");
                    lost.lock().unwrap_or_else(|e| e.into_inner()).extend(gone);
                }
            }
            Err(e) => tracing::warn!(error = %e, "cannot renew the leases of notification tasks"),
        }
    }
}
