//! The lanes of one depot. A lane is a task that delivers one event at a time, oldest first,
//! with the retry policy; events of one entity always take the same lane, so they reach the
//! receiver in the order they happened, while other entities go out in parallel on the other
//! lanes. A depot's lanes touch only its own receiver: a slow or dead receiver holds up that
//! depot's lanes and nothing else.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use dispatch_core::model::organisation::Webhook;
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::{DeliveryOutcome, DeliveryState, OutboxEvent};
use dispatch_core::webhook::{self, AttemptResult, NextStep};
use tokio::sync::{mpsc, watch, Semaphore};

use super::WebhookConfig;
use dispatch_adapters::webhook::{self as post, WebhookClient};

/// What every lane shares.
#[derive(Clone)]
pub struct LaneContext {
    pub client: WebhookClient,
    pub clock: Arc<dyn Clock>,
    pub config: WebhookConfig,
    /// Bounds the attempts in flight across all depots.
    pub in_flight: Arc<Semaphore>,
    /// Finished deliveries, recorded in batches.
    pub outcomes: mpsc::UnboundedSender<DeliveryOutcome>,
    pub stopping: watch::Receiver<bool>,
}

/// The receiver settings of a depot as last read; swapped when the operator changes them.
pub type Receiver = Arc<RwLock<Option<Webhook>>>;

/// One depot's lanes.
pub struct DepotLanes {
    lanes: Vec<mpsc::Sender<OutboxEvent>>,
    pub receiver: Receiver,
    /// Set when this node lost the depot's lease: queued events are dropped, not delivered.
    revoked: Arc<AtomicBool>,
}

impl DepotLanes {
    /// Starts the lanes of a depot whose receiver is `receiver`.
    pub fn start(context: &LaneContext, receiver: Option<Webhook>) -> DepotLanes {
        let receiver: Receiver = Arc::new(RwLock::new(receiver));
        let revoked = Arc::new(AtomicBool::new(false));
        let lanes = (0..context.config.lanes_per_depot.max(1))
            .map(|_| {
                let (tx, rx) = mpsc::channel(context.config.lane_queue.max(1));
                tokio::spawn(run_lane(
                    context.clone(),
                    receiver.clone(),
                    revoked.clone(),
                    rx,
                ));
                tx
            })
            .collect();
        DepotLanes {
            lanes,
            receiver,
            revoked,
        }
    }

    /// Stops the lanes after the delivery in progress: another node delivers the depot now.
    pub fn revoke(&self) {
        self.revoked.store(true, Ordering::SeqCst);
    }

    /// Queues `event` on its lane; false when that lane's queue is full (the event stays
    /// pending in the outbox and is offered again later).
    pub fn offer(&self, event: OutboxEvent) -> bool {
        let lane = webhook::lane(&event.event, self.lanes.len());
        self.lanes[lane].try_send(event).is_ok()
    }

    /// Whether every lane can take at least one more event.
    pub fn has_room(&self) -> bool {
        self.lanes.iter().all(|l| l.capacity() > 0)
    }
}

async fn run_lane(
    context: LaneContext,
    receiver: Receiver,
    revoked: Arc<AtomicBool>,
    mut queue: mpsc::Receiver<OutboxEvent>,
) {
    let mut stopping = context.stopping.clone();
    loop {
        let event = tokio::select! {
            event = queue.recv() => event,
            _ = stopping.wait_for(|s| *s) => None,
        };
        let Some(event) = event else { return };
        if revoked.load(Ordering::SeqCst) {
            return;
        }
        // `None`: the process is stopping mid-delivery; the event stays pending and is
        // delivered again after the restart (at least once).
        let Some(outcome) = deliver(&context, &receiver, &event).await else {
            return;
        };
        if context.outcomes.send(outcome).is_err() {
            return;
        }
    }
}

/// Delivers one event with the retry policy, reading the receiver settings before every
/// attempt so a changed URL or password applies to the next attempt.
async fn deliver(
    context: &LaneContext,
    receiver: &Receiver,
    event: &OutboxEvent,
) -> Option<DeliveryOutcome> {
    let body = post::body(&event.event).to_string().into_bytes();
    let mut stopping = context.stopping.clone();
    let mut attempts = 0u32;
    loop {
        let current = receiver.read().unwrap_or_else(|e| e.into_inner()).clone();
        let Some(target) = current else {
            return Some(finished(
                context,
                event.id,
                DeliveryState::Skipped,
                attempts,
                Some("no webhook receiver configured for the depot".into()),
            ));
        };
        let result = {
            let _permit = context.in_flight.acquire().await.ok()?;
            context
                .client
                .attempt(&target, event.id, &body, context.config.attempt_timeout)
                .await
        };
        attempts += 1;
        if result.is_success() {
            return Some(finished(
                context,
                event.id,
                DeliveryState::Delivered,
                attempts,
                None,
            ));
        }
        metrics::counter!("dispatch_webhook_attempt_failures_total").increment(1);
        tracing::debug!(delivery = event.id, depot = event.scope.depot_id, attempts, error = %result.describe(), "webhook attempt failed");
        match context.config.policy.after_failure(attempts) {
            NextStep::GiveUp => {
                tracing::warn!(delivery = event.id, depot = event.scope.depot_id, event = event.event.name(), attempts, error = %result.describe(), "webhook delivery failed for good (ERROR)");
                return Some(failed(context, event.id, attempts, &result));
            }
            NextStep::RetryAfterMs(ms) => {
                tokio::select! {
                    () = tokio::time::sleep(crate::runtime::clock_wait(&*context.clock, Duration::from_millis(ms))) => {}
                    _ = stopping.wait_for(|s| *s) => return None,
                }
            }
        }
    }
}

fn failed(context: &LaneContext, id: i64, attempts: u32, last: &AttemptResult) -> DeliveryOutcome {
    finished(
        context,
        id,
        DeliveryState::Error,
        attempts,
        Some(last.describe()),
    )
}

fn finished(
    context: &LaneContext,
    id: i64,
    state: DeliveryState,
    attempts: u32,
    error: Option<String>,
) -> DeliveryOutcome {
    let outcome = match state {
        DeliveryState::Delivered => "delivered",
        DeliveryState::Error => "error",
        DeliveryState::Skipped => "skipped",
        DeliveryState::Pending => "pending",
    };
    metrics::counter!("dispatch_webhook_deliveries_total", "outcome" => outcome).increment(1);
    DeliveryOutcome {
        id,
        state,
        attempts,
        error,
        at: context.clock.now(),
    }
}
