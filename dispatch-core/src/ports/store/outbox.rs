//! The event outbox: every change writes its webhook events here, in the change's own
//! transaction ([`OutboxRepo::append_event`]), so an event exists exactly when its change
//! committed. The delivery worker reads pending events, delivers them and records the outcome;
//! operators list failed deliveries and re-send them.
//!
//! The worker's methods (`pending_*`, `mark_*`, `*_deliveries`, `resend_event`) look across
//! depots: they serve the one process that delivers for every depot and the operator's command
//! line, never a request, so they take no [`DepotScope`]; every record they return names its
//! depot.

use super::StoreError;
use crate::events::DomainEvent;
use crate::model::organisation::DepotScope;
use crate::time::Timestamp;

/// An event waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutboxEvent {
    /// Position in the outbox: events committed later have larger ids.
    pub id: i64,
    /// The depot whose receiver gets it.
    pub scope: DepotScope,
    /// The event.
    pub event: DomainEvent,
    /// When its change committed.
    pub created: Timestamp,
}

/// A depot with pending events at or below an id, as [`OutboxRepo::pending_depots`] finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingDepot {
    /// The depot.
    pub scope: DepotScope,
    /// Its newest pending event at or below the id asked about.
    pub newest: i64,
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryState {
    /// Not yet delivered (or being delivered).
    Pending,
    /// A 2xx answer was received.
    Delivered,
    /// Every attempt failed; never retried by itself (an operator may re-send it).
    Error,
    /// The depot had no webhook receiver configured when the event came up for delivery.
    Skipped,
}

impl DeliveryState {
    /// Stable spelling (`PENDING`, `DELIVERED`, `ERROR`, `SKIPPED`).
    pub fn as_str(self) -> &'static str {
        match self {
            DeliveryState::Pending => "PENDING",
            DeliveryState::Delivered => "DELIVERED",
            DeliveryState::Error => "ERROR",
            DeliveryState::Skipped => "SKIPPED",
        }
    }

    /// Parses the stable spelling.
    pub fn parse(s: &str) -> Option<DeliveryState> {
        [
            DeliveryState::Pending,
            DeliveryState::Delivered,
            DeliveryState::Error,
            DeliveryState::Skipped,
        ]
        .into_iter()
        .find(|state| state.as_str() == s)
    }
}

/// The finished outcome of one delivery, as the worker records it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryOutcome {
    /// The outbox row.
    pub id: i64,
    /// Delivered, Error or Skipped (never Pending).
    pub state: DeliveryState,
    /// HTTP attempts made (0 when skipped).
    pub attempts: u32,
    /// Why the last attempt failed (Error) or why nothing was sent (Skipped).
    pub error: Option<String>,
    /// When the outcome was reached.
    pub at: Timestamp,
}

/// One outbox row with its delivery record: what operators inspect.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryRecord {
    /// The row (the delivery's id).
    pub id: i64,
    /// Its depot.
    pub scope: DepotScope,
    /// The event.
    pub event: DomainEvent,
    /// When its change committed (a re-send: when the re-send was asked for).
    pub created: Timestamp,
    /// Where it stands.
    pub state: DeliveryState,
    /// HTTP attempts made.
    pub attempts: u32,
    /// Why the last attempt failed, or why nothing was sent.
    pub error: Option<String>,
    /// When it was delivered, failed for good or skipped.
    pub finished: Option<Timestamp>,
    /// For a re-send: the delivery it repeats.
    pub resend_of: Option<i64>,
}

/// The durable outbox of webhook events.
pub trait OutboxRepo {
    /// Appends an event to the depot's outbox, in the caller's transaction.
    fn append_event(
        &mut self,
        scope: DepotScope,
        event: &DomainEvent,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// The depot's outbox, oldest first, whatever its delivery state.
    fn list_events(&mut self, scope: DepotScope) -> Result<Vec<DomainEvent>, StoreError>;
    /// How many events of every depot are still to be delivered (the webhook backlog).
    fn count_pending_events(&mut self) -> Result<u64, StoreError>;
    /// Pending events of every depot with an id above `after`, oldest first, at most `limit`.
    fn pending_events(&mut self, after: i64, limit: usize) -> Result<Vec<OutboxEvent>, StoreError>;
    /// Pending events of one depot with an id above `after`, oldest first, at most `limit`.
    fn pending_events_of_depot(
        &mut self,
        depot_id: i64,
        after: i64,
        limit: usize,
    ) -> Result<Vec<OutboxEvent>, StoreError>;
    /// The depots with pending events at or below `up_to`, each with its newest such event, in
    /// depot order. With writers of different depots committing in parallel, an event can commit
    /// after a later id of another depot was read; a reader going by id finds it here (within one
    /// depot, ids are taken and committed in one order).
    fn pending_depots(&mut self, up_to: i64) -> Result<Vec<PendingDepot>, StoreError>;
    /// Records finished deliveries. Rows that are no longer pending keep their first outcome.
    fn mark_deliveries(&mut self, outcomes: &[DeliveryOutcome]) -> Result<(), StoreError>;
    /// Deletes at most `limit` finished deliveries that are old enough: DELIVERED and SKIPPED ones
    /// finished before `finished_before`, ERROR ones finished before `failed_before` (`None`:
    /// ERROR records are kept). A delivery that a re-send names is kept while the re-send
    /// exists. Pending deliveries are never deleted. Returns how many were deleted.
    fn purge_deliveries(
        &mut self,
        finished_before: Timestamp,
        failed_before: Option<Timestamp>,
        limit: usize,
    ) -> Result<usize, StoreError>;
    /// Deliveries in `state` (of one depot, or of all), newest first, at most `limit`.
    fn list_deliveries(
        &mut self,
        state: DeliveryState,
        depot_id: Option<i64>,
        limit: usize,
    ) -> Result<Vec<DeliveryRecord>, StoreError>;
    /// One delivery by id.
    fn get_delivery(&mut self, id: i64) -> Result<Option<DeliveryRecord>, StoreError>;
    /// Queues a new delivery of the same event as delivery `id` (its record is left as it
    /// is) and returns the new delivery's id; `None` when `id` does not exist.
    fn resend_event(&mut self, id: i64, now: Timestamp) -> Result<Option<i64>, StoreError>;
}
