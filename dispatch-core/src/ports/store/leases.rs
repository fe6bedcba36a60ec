//! Leases on background work shared by every node on one database: which node runs an
//! optimisation job, which node sends a notification task, and which node delivers a depot's
//! webhooks. The rules (who may claim,
//! when a lease is lost, what a result needs) live in [`crate::service::leases`]; the store
//! only locks, reads and writes rows.
//!
//! The `lock_*` methods lock the rows they return until the transaction ends. Run inside
//! [`Store::claim`](super::Store) they are the only ordering between nodes: on PostgreSQL they
//! are `SELECT ... FOR UPDATE [SKIP LOCKED]` and a claim never waits for the API's write
//! lock; on SQLite and in memory every write transaction runs alone, which gives the same.

use super::{DueTask, StoreError};
use crate::model::notification::TaskStatus;
use crate::model::optimisation::Optimisation;
use crate::time::Timestamp;

/// A named lease (e.g. `webhooks:7`, one depot's webhook deliveries) as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lease {
    /// What it is on.
    pub name: String,
    /// The node holding it.
    pub holder: String,
    /// Grows by one whenever another node takes the lease over.
    pub token: i64,
    /// Until when it holds without renewal.
    pub until: Timestamp,
}

/// A running job's best solution so far, kept when its node handed it back (graceful stop),
/// so the next run starts from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobCheckpoint {
    /// The routes, as the optimisation service encodes them.
    pub routes: String,
    /// Search time already spent on the job, in milliseconds.
    pub spent_ms: u64,
}

/// A notification task's send lease as stored (migration 0013 on SQLite, 0005 on PostgreSQL).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SendLease {
    /// The node sending it; `None` when nobody is.
    pub holder: Option<String>,
    /// How many times a node started sending it.
    pub attempts: u32,
    /// Until when the holder's lease lasts without renewal.
    pub until: Option<Timestamp>,
}

/// The lease bookkeeping of background work.
pub trait LeaseRepo {
    /// Locks and returns the oldest queued job of any depot, skipping jobs another transaction
    /// has locked (so concurrent claimers each get a different one).
    fn lock_next_queued_optimisation(&mut self) -> Result<Option<Optimisation>, StoreError>;
    /// Locks and returns the running jobs of any depot whose lease ended before `now`,
    /// skipping locked ones.
    fn lock_expired_optimisations(
        &mut self,
        now: Timestamp,
    ) -> Result<Vec<Optimisation>, StoreError>;
    /// Locks one job (waiting for other lockers) and returns it, whatever its depot.
    fn lock_optimisation(&mut self, id: &str) -> Result<Option<Optimisation>, StoreError>;
    /// Records which node runs the job (`None`: nobody).
    fn set_optimisation_holder(&mut self, id: &str, holder: Option<&str>)
        -> Result<(), StoreError>;
    /// The node that runs (or last ran) the job.
    fn optimisation_holder(&mut self, id: &str) -> Result<Option<String>, StoreError>;
    /// Keeps (or with `None` drops) the job's checkpoint.
    fn set_optimisation_checkpoint(
        &mut self,
        id: &str,
        checkpoint: Option<&JobCheckpoint>,
    ) -> Result<(), StoreError>;
    /// The job's checkpoint, if it has one.
    fn optimisation_checkpoint(&mut self, id: &str) -> Result<Option<JobCheckpoint>, StoreError>;
    /// Locks and returns up to `limit` Scheduled notification tasks of any depot that are due
    /// at `now` and whose send lease is free or ended before `now`, soonest first, each with
    /// its lease; tasks another transaction has locked are skipped.
    fn lock_sendable_notification_tasks(
        &mut self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<(DueTask, SendLease)>, StoreError>;
    /// Locks one notification task (waiting for other lockers), whatever its depot: its status
    /// and send lease.
    fn lock_notification_task(
        &mut self,
        id: i64,
    ) -> Result<Option<(TaskStatus, SendLease)>, StoreError>;
    /// Writes a task's send lease. A task with a holder counts as claimed from `now` (or its
    /// first claim) until a lease without holder is written: claimed tasks are never cancelled
    /// by a dispatch.
    fn set_notification_lease(
        &mut self,
        id: i64,
        lease: &SendLease,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// Takes the named lease for `holder` until `until` when it is free, expired at `now` or
    /// already `holder`'s (then it is extended); returns it when `holder` holds it afterwards.
    fn acquire_lease(
        &mut self,
        name: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Option<Lease>, StoreError>;
    /// Extends the named lease while `holder` holds it; false when another node took it over.
    fn renew_lease(
        &mut self,
        name: &str,
        holder: &str,
        until: Timestamp,
    ) -> Result<bool, StoreError>;
    /// Gives the named lease up, if `holder` holds it: it is left expired, so any node may
    /// take it at once (the next holder's token still grows).
    fn release_lease(&mut self, name: &str, holder: &str) -> Result<(), StoreError>;
    /// The named lease, whoever holds it.
    fn get_lease(&mut self, name: &str) -> Result<Option<Lease>, StoreError>;
}
