//! The two repositories each store still implements itself, leases and notification tasks,
//! forwarded from [`Db`]. They are being reworked (notification send leases) and move here
//! once that has landed; until then a store hands its own implementation over [`OwnRepos`].

use dispatch_core::model::notification::{NotificationSettings, NotificationTask, TaskStatus};
use dispatch_core::model::optimisation::Optimisation;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::paging::{Page, PageRequest};
use dispatch_core::ports::store::{
    DueTask, JobCheckpoint, Lease, LeaseRepo, NewTask, NotificationRepo, StoreError, TaskFilter,
};
use dispatch_core::time::Timestamp;

use super::Db;
use crate::sql::Connection;

/// A connection whose store implements leases and notification tasks itself.
pub trait OwnRepos: Connection {
    /// The store's implementation on this connection.
    type Repos: LeaseRepo + NotificationRepo;

    /// The store's repositories on this connection's transaction.
    fn own(&self) -> Self::Repos;
}

impl<C: OwnRepos> LeaseRepo for Db<C> {
    fn lock_next_queued_optimisation(&mut self) -> Result<Option<Optimisation>, StoreError> {
        self.0.own().lock_next_queued_optimisation()
    }
    fn lock_expired_optimisations(
        &mut self,
        now: Timestamp,
    ) -> Result<Vec<Optimisation>, StoreError> {
        self.0.own().lock_expired_optimisations(now)
    }
    fn lock_optimisation(&mut self, id: &str) -> Result<Option<Optimisation>, StoreError> {
        self.0.own().lock_optimisation(id)
    }
    fn set_optimisation_holder(
        &mut self,
        id: &str,
        holder: Option<&str>,
    ) -> Result<(), StoreError> {
        self.0.own().set_optimisation_holder(id, holder)
    }
    fn optimisation_holder(&mut self, id: &str) -> Result<Option<String>, StoreError> {
        self.0.own().optimisation_holder(id)
    }
    fn set_optimisation_checkpoint(
        &mut self,
        id: &str,
        checkpoint: Option<&JobCheckpoint>,
    ) -> Result<(), StoreError> {
        self.0.own().set_optimisation_checkpoint(id, checkpoint)
    }
    fn optimisation_checkpoint(&mut self, id: &str) -> Result<Option<JobCheckpoint>, StoreError> {
        self.0.own().optimisation_checkpoint(id)
    }
    fn acquire_lease(
        &mut self,
        name: &str,
        holder: &str,
        now: Timestamp,
        until: Timestamp,
    ) -> Result<Option<Lease>, StoreError> {
        self.0.own().acquire_lease(name, holder, now, until)
    }
    fn renew_lease(
        &mut self,
        name: &str,
        holder: &str,
        until: Timestamp,
    ) -> Result<bool, StoreError> {
        self.0.own().renew_lease(name, holder, until)
    }
    fn release_lease(&mut self, name: &str, holder: &str) -> Result<(), StoreError> {
        self.0.own().release_lease(name, holder)
    }
    fn get_lease(&mut self, name: &str) -> Result<Option<Lease>, StoreError> {
        self.0.own().get_lease(name)
    }
}

impl<C: OwnRepos> NotificationRepo for Db<C> {
    fn insert_notification_task(
        &mut self,
        scope: DepotScope,
        task: &NewTask,
        now: Timestamp,
    ) -> Result<NotificationTask, StoreError> {
        self.0.own().insert_notification_task(scope, task, now)
    }
    fn list_notification_tasks(
        &mut self,
        scope: DepotScope,
        filter: &TaskFilter,
        page: &PageRequest,
    ) -> Result<Page<NotificationTask>, StoreError> {
        self.0.own().list_notification_tasks(scope, filter, page)
    }
    fn cancel_scheduled_tasks(
        &mut self,
        scope: DepotScope,
        order_id: i64,
        template_id: i64,
        reason: &str,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        self.0
            .own()
            .cancel_scheduled_tasks(scope, order_id, template_id, reason, now)
    }
    fn due_notification_tasks(
        &mut self,
        now: Timestamp,
        limit: usize,
    ) -> Result<Vec<DueTask>, StoreError> {
        self.0.own().due_notification_tasks(now, limit)
    }
    fn claim_notification_task(&mut self, id: i64, now: Timestamp) -> Result<bool, StoreError> {
        self.0.own().claim_notification_task(id, now)
    }
    fn finish_notification_task(
        &mut self,
        id: i64,
        status: TaskStatus,
        sender: &str,
        error: Option<&str>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.0
            .own()
            .finish_notification_task(id, status, sender, error, now)
    }
    fn fail_stale_notification_tasks(
        &mut self,
        claimed_before: Timestamp,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        self.0
            .own()
            .fail_stale_notification_tasks(claimed_before, now)
    }
    fn notification_settings(
        &mut self,
        scope: DepotScope,
    ) -> Result<NotificationSettings, StoreError> {
        self.0.own().notification_settings(scope)
    }
    fn set_notification_settings(
        &mut self,
        scope: DepotScope,
        settings: &NotificationSettings,
    ) -> Result<(), StoreError> {
        self.0.own().set_notification_settings(scope, settings)
    }
}
