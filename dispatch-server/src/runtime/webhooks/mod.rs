//! Webhook delivery from the outbox (spec: Events). One dispatcher task reads pending events
//! oldest first and hands each to its depot's lanes (`lanes`); lanes deliver with the retry
//! policy of `dispatch_core::webhook`; outcomes are written back in batches (`recorder`).
//!
//! - At least once: an event leaves the outbox only when its outcome is recorded, after the
//!   receiver answered. Events in flight when the process dies are still pending at the next
//!   start and go out again (receivers may see a duplicate, never a gap). Events of rolled-back
//!   changes were never in the outbox.
//! - Isolation: each depot has its own lanes with bounded queues. When a depot's queues are
//!   full (its receiver is slow or dead) the dispatcher stops reading that depot's events from
//!   the shared scan and reads them from the depot's own backlog once there is room, so other
//!   depots' events keep flowing. Attempts in flight are bounded overall.
//! - Commit order: the shared scan reads by id, and on PostgreSQL an event can commit after a
//!   later id of another depot was read. Every scan also asks, in the same snapshot, which
//!   depots have pending events at or below its position; a depot with one it did not hand
//!   out is read from its own backlog, whose ids do grow in commit order (`catch_up`). Such an
//!   event goes out within one scan after its commit, before anything later of its depot.
//! - The API never waits for a receiver: requests only append to the outbox.
//! - Wake-up: a commit of this process that appended events wakes the dispatcher at once
//!   (`SqliteStore::on_outbox_commit`); commits of other processes (`dispatch seed`,
//!   `dispatch webhooks resend`) are found by the scan every [`WebhookConfig::poll_interval`].
//! - Several nodes: each depot's events go out from one node at a time, the holder of the
//!   depot's lease (`leases`); other nodes skip them.
//! - Retention: finished rows are purged by age in small batches (`retention`).
//! - Receiver settings are re-read every [`WebhookConfig::settings_refresh`]: `dispatch seed`
//!   with a changed `webhook` applies to the next attempt without a restart.

mod lanes;
mod leases;
mod recorder;
mod retention;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use dispatch_adapters::webhook::WebhookClient;
use dispatch_core::model::organisation::{DepotScope, Webhook};
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::{OutboxEvent, PendingDepot, Store, StoreError};
use dispatch_core::webhook::{RetryPolicy, ATTEMPT_TIMEOUT_MS};
use tokio::sync::{mpsc, watch, Notify, Semaphore};
use tokio::task::JoinHandle;

use lanes::{DepotLanes, LaneContext};
use leases::{DepotLeases, Take};

pub use retention::Retention;

/// How often depots with a backlog are checked for room in their lanes (no database read
/// unless there is room).
const REFILL_TICK: Duration = Duration::from_millis(5);

/// What ended an idle wait.
enum Woke {
    Scan,
    Leases,
    Settings,
    Refill,
}

/// Tuning of the delivery worker; [`WebhookConfig::default`] is the spec's behaviour.
#[derive(Debug, Clone)]
pub struct WebhookConfig {
    /// Retries and backoff.
    pub policy: RetryPolicy,
    /// Limit of one attempt (spec: 3 s).
    pub attempt_timeout: Duration,
    /// Parallel deliveries per depot (events of one entity always share one lane).
    pub lanes_per_depot: usize,
    /// Events queued per lane before the depot's backlog is left in the outbox.
    pub lane_queue: usize,
    /// Attempts in flight across all depots.
    pub max_in_flight: usize,
    /// How often the outbox is scanned when nothing woke the worker: the delay of events
    /// committed by other processes.
    pub poll_interval: Duration,
    /// How often receiver settings are re-read.
    pub settings_refresh: Duration,
    /// Events read per scan.
    pub batch: usize,
    /// How long finished deliveries are kept.
    pub retention: Retention,
    /// How long a node's hold on a depot's deliveries lasts without renewal: after a node dies,
    /// another takes its depots over this long after its last renewal.
    pub lease: Duration,
}

impl Default for WebhookConfig {
    fn default() -> Self {
        WebhookConfig {
            policy: RetryPolicy::SPEC,
            attempt_timeout: Duration::from_millis(ATTEMPT_TIMEOUT_MS),
            lanes_per_depot: 32,
            lane_queue: 64,
            max_in_flight: 1024,
            poll_interval: Duration::from_millis(250),
            settings_refresh: Duration::from_secs(1),
            batch: 1000,
            retention: Retention::default(),
            lease: Duration::from_secs(3),
        }
    }
}

/// Starts the delivery worker of node `node`; it stops when `stopping` turns true, leaving
/// undelivered events pending for the next start (or another node). `wake` is notified after
/// commits that appended events.
pub fn spawn(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    config: WebhookConfig,
    wake: Arc<Notify>,
    stopping: watch::Receiver<bool>,
    node: String,
) -> Result<JoinHandle<()>, String> {
    let client = WebhookClient::new(config.lanes_per_depot.max(1), config.attempt_timeout)?;
    let (outcomes, recorded) = mpsc::unbounded_channel();
    let recorder = tokio::spawn(recorder::run(store.clone(), recorded));
    let purger = tokio::spawn(retention::run(
        store.clone(),
        clock.clone(),
        config.retention,
        stopping.clone(),
    ));
    let leases = DepotLeases::new(store.clone(), clock.clone(), node, config.lease);
    let context = LaneContext {
        client,
        clock,
        in_flight: Arc::new(Semaphore::new(config.max_in_flight.max(1))),
        config,
        outcomes,
        stopping: stopping.clone(),
    };
    Ok(tokio::spawn(async move {
        let mut dispatcher = Dispatcher::new(store, context, leases);
        dispatcher.run(&wake, stopping).await;
        dispatcher.leases.release_all().await;
        // The recorder ends once every outcome sender is gone and what reached it is written:
        // the dispatcher's own sender goes here, the lanes drop theirs as they stop. Awaiting
        // it with the dispatcher alive would hold every stop for the whole grace period.
        drop(dispatcher);
        let _ = recorder.await;
        let _ = purger.await;
    }))
}

/// A depot the dispatcher has seen, with how far its events were handed to its lanes.
struct DepotState {
    scope: DepotScope,
    lanes: DepotLanes,
    /// Highest event id handed to the lanes.
    handed: i64,
    /// Its lanes were full: its events are read from its own backlog, not the shared scan.
    backlogged: bool,
}

struct Dispatcher {
    store: Arc<dyn Store>,
    context: LaneContext,
    /// Highest event id the shared scan has read.
    scanned: i64,
    depots: HashMap<i64, DepotState>,
    settings_read: Instant,
    leases: DepotLeases,
}

impl Dispatcher {
    fn new(store: Arc<dyn Store>, context: LaneContext, leases: DepotLeases) -> Self {
        Dispatcher {
            store,
            context,
            scanned: 0,
            depots: HashMap::new(),
            settings_read: Instant::now(),
            leases,
        }
    }

    async fn run(&mut self, wake: &Notify, mut stopping: watch::Receiver<bool>) {
        loop {
            if *stopping.borrow() {
                return;
            }
            let busy = match self.step().await {
                Ok(busy) => busy,
                Err(e) => {
                    tracing::error!(error = %e, "webhook dispatcher: reading the outbox failed; retrying");
                    false
                }
            };
            if busy {
                continue;
            }
            // Idle: the next scan comes when a commit of this process wakes us or the poll
            // interval passes; receiver settings are re-read on their own schedule meanwhile,
            // and depots with a backlog are refilled as soon as their lanes have room.
            let scan_due = tokio::time::Instant::now() + self.context.config.poll_interval;
            loop {
                let settings_due = tokio::time::Instant::from_std(
                    self.settings_read + self.context.config.settings_refresh,
                );
                let backlogged = self.depots.values().any(|d| d.backlogged);
                let woke = tokio::select! {
                    () = wake.notified() => Woke::Scan,
                    () = tokio::time::sleep_until(scan_due) => Woke::Scan,
                    () = tokio::time::sleep_until(self.leases.renew_due()) => Woke::Leases,
                    () = tokio::time::sleep_until(settings_due) => Woke::Settings,
                    () = tokio::time::sleep(REFILL_TICK), if backlogged => Woke::Refill,
                    _ = stopping.wait_for(|s| *s) => return,
                };
                match woke {
                    Woke::Scan => break,
                    Woke::Leases => {
                        if let Err(e) = self.renew_leases().await {
                            tracing::error!(error = %e, "webhook dispatcher: renewing depot leases failed; retrying");
                        }
                    }
                    Woke::Settings => {
                        if let Err(e) = self.refresh_settings().await {
                            tracing::error!(error = %e, "webhook dispatcher: reading receiver settings failed; retrying");
                        }
                    }
                    Woke::Refill => match self.refill_backlogs().await {
                        Ok(true) => break,
                        Ok(false) => {}
                        Err(e) => {
                            tracing::error!(error = %e, "webhook dispatcher: reading a depot's backlog failed; retrying");
                        }
                    },
                }
            }
        }
    }

    /// One round: refresh settings when due, hand out new events, refill backlogged depots.
    /// True when there may be more to read right away.
    async fn step(&mut self) -> Result<bool, StoreError> {
        if self.settings_read.elapsed() >= self.context.config.settings_refresh {
            self.refresh_settings().await?;
        }
        if tokio::time::Instant::now() >= self.leases.renew_due() {
            self.renew_leases().await?;
        }
        let batch = self.context.config.batch;
        let after = self.scanned;
        // One snapshot for both reads: an event of a depot in this batch committed after every
        // event of that depot below it, so one the scan passed over is visible here as well.
        let (events, passed_over) = self
            .blocking(move |store| {
                store.read(|tx| Ok((tx.pending_events(after, batch)?, tx.pending_depots(after)?)))
            })
            .await?;
        self.catch_up(passed_over).await?;
        let full = events.len() == batch;
        for event in events {
            self.scanned = event.id;
            self.hand_out_scanned(event).await?;
        }
        let refilled = self.refill_backlogs().await?;
        Ok(full || refilled)
    }

    async fn hand_out_scanned(&mut self, event: OutboxEvent) -> Result<(), StoreError> {
        match self.leases.take(event.scope).await? {
            Take::Held => {}
            Take::Other => return Ok(()),
            Take::Acquired => {
                self.read_from_start(event.scope).await?;
                return Ok(());
            }
        }
        let depot = self.depot(event.scope).await?;
        if depot.backlogged || event.id <= depot.handed {
            return Ok(());
        }
        let id = event.id;
        if depot.lanes.offer(event) {
            depot.handed = id;
        } else {
            depot.backlogged = true;
            tracing::debug!(
                depot = depot.scope.depot_id,
                "webhook lanes full; reading the depot's backlog separately"
            );
        }
        Ok(())
    }

    /// Depots with pending events at or below the scan's position that were not handed out.
    /// Ids come from one sequence, but on PostgreSQL writers of different depots commit in
    /// parallel: an event can commit after the scan read a later id of another depot, and the
    /// scan by id never comes back to it. Within one depot ids are taken and committed in one
    /// order, so such an event lies above the depot's `handed`: a held depot with one is read
    /// from its own backlog from there, oldest first, before the scan hands it anything
    /// later. A depot no node holds (its events all passed over, or its node gone) is taken.
    async fn catch_up(&mut self, found: Vec<PendingDepot>) -> Result<(), StoreError> {
        for PendingDepot { scope, newest } in found {
            match self.leases.take(scope).await? {
                Take::Other => {}
                Take::Acquired => self.read_from_start(scope).await?,
                Take::Held => {
                    let depot = self.depot(scope).await?;
                    if !depot.backlogged && newest > depot.handed {
                        depot.backlogged = true;
                        metrics::counter!("dispatch_webhook_late_commits_total").increment(1);
                        tracing::debug!(
                            depot = scope.depot_id,
                            delivery = newest,
                            "webhook events committed after the outbox scan passed their ids; reading the depot's backlog"
                        );
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads the backlog of depots whose lanes have room again; true when some depot may have
    /// more right away.
    async fn refill_backlogs(&mut self) -> Result<bool, StoreError> {
        let ready: Vec<(i64, i64)> = self
            .depots
            .values()
            .filter(|d| d.backlogged && d.lanes.has_room())
            .map(|d| (d.scope.depot_id, d.handed))
            .collect();
        let mut more = false;
        for (depot_id, handed) in ready {
            let batch = self.context.config.lane_queue.max(1);
            let events = self
                .blocking(move |store| {
                    store.read(|tx| tx.pending_events_of_depot(depot_id, handed, batch))
                })
                .await?;
            let Some(depot) = self.depots.get_mut(&depot_id) else {
                continue;
            };
            let read_all = events.len() < batch;
            let mut all_taken = true;
            for event in events {
                let id = event.id;
                if !depot.lanes.offer(event) {
                    all_taken = false;
                    break;
                }
                depot.handed = id;
            }
            if read_all && all_taken {
                depot.backlogged = false;
            } else {
                more = true;
            }
        }
        Ok(more)
    }

    /// A depot this node just took over: its pending events are read from its own backlog,
    /// oldest first, whatever the shared scan has passed.
    async fn read_from_start(&mut self, scope: DepotScope) -> Result<(), StoreError> {
        let depot = self.depot(scope).await?;
        depot.handed = 0;
        depot.backlogged = true;
        Ok(())
    }

    /// Renews this node's depot leases: lost depots stop (their queued events are dropped,
    /// still pending for the new holder); depots taken over are read from the start.
    async fn renew_leases(&mut self) -> Result<(), StoreError> {
        let (lost, acquired) = self.leases.tick().await?;
        for depot in lost {
            if let Some(state) = self.depots.remove(&depot) {
                state.lanes.revoke();
            }
        }
        for scope in acquired {
            self.read_from_start(scope).await?;
        }
        Ok(())
    }

    async fn depot(&mut self, scope: DepotScope) -> Result<&mut DepotState, StoreError> {
        if !self.depots.contains_key(&scope.depot_id) {
            let receiver = self.receiver_of(scope).await?;
            let lanes = DepotLanes::start(&self.context, receiver);
            self.depots.insert(
                scope.depot_id,
                DepotState {
                    scope,
                    lanes,
                    handed: 0,
                    backlogged: false,
                },
            );
        }
        Ok(self
            .depots
            .get_mut(&scope.depot_id)
            .expect("inserted above"))
    }

    async fn receiver_of(&self, scope: DepotScope) -> Result<Option<Webhook>, StoreError> {
        self.blocking(move |store| store.read(|tx| tx.get_depot(scope)))
            .await
            .map(|d| d.and_then(|d| d.settings.webhook))
    }

    async fn refresh_settings(&mut self) -> Result<(), StoreError> {
        self.settings_read = Instant::now();
        let scopes: Vec<DepotScope> = self.depots.values().map(|d| d.scope).collect();
        let settings = self
            .blocking(move |store| {
                store.read(|tx| {
                    scopes
                        .iter()
                        .map(|s| {
                            Ok((
                                s.depot_id,
                                tx.get_depot(*s)?.and_then(|d| d.settings.webhook),
                            ))
                        })
                        .collect::<Result<Vec<_>, StoreError>>()
                })
            })
            .await?;
        for (depot_id, webhook) in settings {
            if let Some(depot) = self.depots.get(&depot_id) {
                let mut current = depot
                    .lanes
                    .receiver
                    .write()
                    .unwrap_or_else(|e| e.into_inner());
                if *current != webhook {
                    tracing::info!(
                        depot = depot_id,
                        url = webhook.as_ref().map(|w| w.url.as_str()),
                        "webhook receiver settings changed"
                    );
                    *current = webhook;
                }
            }
        }
        Ok(())
    }

    async fn blocking<R: Send + 'static>(
        &self,
        work: impl FnOnce(&dyn Store) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || work(&*store))
            .await
            .map_err(|e| StoreError::Backend(format!("outbox task failed: {e}")))?
    }
}
