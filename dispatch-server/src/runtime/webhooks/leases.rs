//! Which depots' webhooks this node delivers. With several nodes on one database each depot's
//! deliveries go out from one node at a time, the holder of the depot's lease
//! (`webhooks:DEPOT`, `dispatch_core::service::leases`): receivers get each event once in normal
//! operation and every entity's events in order. A node takes a depot's lease when it meets
//! the depot's events and the lease is free or expired, renews its leases every third of
//! [`WebhookConfig::lease`](super::WebhookConfig), releases them when it stops, and looks again
//! at depots other nodes held once their lease may have run out (that node died). A node that
//! takes a depot over reads the depot's pending events from the start: deliveries the dead
//! node made but had not recorded go out again (at least once, never lost).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::store::{Store, StoreError};
use dispatch_core::service::leases::{hold_named, release_named, renew_named};
use tokio::time::Instant;

/// What [`DepotLeases::take`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Take {
    /// This node already delivers the depot's events.
    Held,
    /// This node took the lease just now: read the depot's backlog from the start.
    Acquired,
    /// Another node delivers them.
    Other,
}

/// The depot leases of this node.
pub struct DepotLeases {
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    node: String,
    lease: Duration,
    held: HashSet<i64>,
    /// Depots another node held, with when to try again.
    others: HashMap<i64, (DepotScope, Instant)>,
    renewed: Instant,
}

fn name(depot_id: i64) -> String {
    format!("webhooks:{depot_id}")
}

impl DepotLeases {
    pub fn new(
        store: Arc<dyn Store>,
        clock: Arc<dyn Clock>,
        node: String,
        lease: Duration,
    ) -> Self {
        DepotLeases {
            store,
            clock,
            node,
            lease,
            held: HashSet::new(),
            others: HashMap::new(),
            renewed: Instant::now(),
        }
    }

    /// Whether this node delivers `scope`'s events, taking the lease when it is free.
    pub async fn take(&mut self, scope: DepotScope) -> Result<Take, StoreError> {
        if self.held.contains(&scope.depot_id) {
            return Ok(Take::Held);
        }
        if self
            .others
            .get(&scope.depot_id)
            .is_some_and(|(_, retry)| Instant::now() < *retry)
        {
            return Ok(Take::Other);
        }
        Ok(if self.try_acquire(scope).await? {
            Take::Acquired
        } else {
            Take::Other
        })
    }

    async fn try_acquire(&mut self, scope: DepotScope) -> Result<bool, StoreError> {
        let (store, clock, node, lease) = (
            self.store.clone(),
            self.clock.clone(),
            self.node.clone(),
            self.lease,
        );
        let got = tokio::task::spawn_blocking(move || {
            let now = clock.now();
            hold_named(
                &*store,
                &name(scope.depot_id),
                &node,
                now,
                now.add_millis(clock.span_of(lease)),
            )
        })
        .await
        .map_err(|e| StoreError::Backend(format!("lease task failed: {e}")))??;
        metrics::counter!("dispatch_webhook_lease_claims_total", "outcome" => if got.is_some() { "taken" } else { "held_elsewhere" }).increment(1);
        if got.is_some() {
            self.others.remove(&scope.depot_id);
            self.held.insert(scope.depot_id);
            tracing::info!(depot = scope.depot_id, node = %self.node, "this node now delivers the depot's webhooks");
        } else {
            self.others
                .insert(scope.depot_id, (scope, Instant::now() + self.lease));
        }
        Ok(got.is_some())
    }

    /// When the held leases are next renewed.
    pub fn renew_due(&self) -> Instant {
        self.renewed + self.lease / 3
    }

    /// Renews the held leases and looks again at depots whose other holder's lease may have
    /// run out. Returns the depots lost (another node took them: stop delivering) and those
    /// taken over (read their backlog from the start).
    pub async fn tick(&mut self) -> Result<(Vec<i64>, Vec<DepotScope>), StoreError> {
        self.renewed = Instant::now();
        let names: Vec<String> = self.held.iter().map(|d| name(*d)).collect();
        let (store, clock, node, lease) = (
            self.store.clone(),
            self.clock.clone(),
            self.node.clone(),
            self.lease,
        );
        let lost_names = tokio::task::spawn_blocking(move || {
            renew_named(
                &*store,
                &names,
                &node,
                clock.now().add_millis(clock.span_of(lease)),
            )
        })
        .await
        .map_err(|e| StoreError::Backend(format!("lease task failed: {e}")))??;
        let lost: Vec<i64> = self
            .held
            .iter()
            .copied()
            .filter(|d| lost_names.contains(&name(*d)))
            .collect();
        for depot in &lost {
            self.held.remove(depot);
            metrics::counter!("dispatch_webhook_leases_lost_total").increment(1);
            tracing::warn!(depot, node = %self.node, "another node took over the depot's webhooks");
        }
        let due: Vec<DepotScope> = self
            .others
            .values()
            .filter(|(_, retry)| Instant::now() >= *retry)
            .map(|(scope, _)| *scope)
            .collect();
        let mut acquired = Vec::new();
        for scope in due {
            if self.try_acquire(scope).await? {
                acquired.push(scope);
            }
        }
        Ok((lost, acquired))
    }

    /// Gives every held lease up (a graceful stop): another node may take them at once.
    pub async fn release_all(&mut self) {
        let names: Vec<String> = self.held.drain().map(name).collect();
        if names.is_empty() {
            return;
        }
        let (store, node) = (self.store.clone(), self.node.clone());
        let released =
            tokio::task::spawn_blocking(move || release_named(&*store, &names, &node)).await;
        if !matches!(released, Ok(Ok(()))) {
            tracing::warn!(
                "cannot release the webhook leases; other nodes take them when they run out"
            );
        }
    }
}
