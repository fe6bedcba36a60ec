//! In-memory notification tasks and settings.

use super::orders::page_of;
use super::State;
use crate::model::notification::{NotificationSettings, NotificationTask, TaskStatus};
use crate::model::organisation::DepotScope;
use crate::paging::{Page, PageRequest};
use crate::ports::store::{DueTask, NewTask, NotificationRepo, SendLease, StoreError, TaskFilter};
use crate::time::Timestamp;

#[derive(Debug, Clone)]
struct Row {
    scope: DepotScope,
    task: NotificationTask,
    claimed: Option<Timestamp>,
    lease: SendLease,
}

/// Tasks in id order and settings per depot.
#[derive(Debug, Clone, Default)]
pub(super) struct Notifications {
    tasks: Vec<Row>,
    settings: Vec<(i64, NotificationSettings)>,
}

impl Notifications {
    fn open(&mut self, id: i64) -> Option<&mut Row> {
        self.tasks
            .iter_mut()
            .find(|r| r.task.id == id && r.task.status == TaskStatus::Scheduled)
    }
}

impl Notifications {
    /// The Scheduled tasks due at `now` whose send lease is free or ended before `now`,
    /// soonest first (a transaction here runs alone: nothing is ever locked by another).
    pub(super) fn sendable(&self, now: Timestamp, limit: usize) -> Vec<(DueTask, SendLease)> {
        let mut due: Vec<_> = self
            .tasks
            .iter()
            .filter(|r| {
                r.task.status == TaskStatus::Scheduled
                    && r.task.scheduled_date <= now
                    && r.lease.until.is_none_or(|u| u < now)
            })
            .map(|r| {
                let due = DueTask {
                    scope: r.scope,
                    task: r.task.clone(),
                };
                (due, r.lease.clone())
            })
            .collect();
        due.sort_by_key(|(d, _)| (d.task.scheduled_date, d.task.id));
        due.truncate(limit);
        due
    }

    /// A task's status and send lease.
    pub(super) fn lease_of(&self, id: i64) -> Option<(TaskStatus, SendLease)> {
        self.tasks
            .iter()
            .find(|r| r.task.id == id)
            .map(|r| (r.task.status, r.lease.clone()))
    }

    /// Writes a task's send lease; a holder claims it (from its first claim on).
    pub(super) fn set_lease(&mut self, id: i64, lease: &SendLease, now: Timestamp) {
        if let Some(r) = self.tasks.iter_mut().find(|r| r.task.id == id) {
            r.claimed = lease.holder.as_ref().map(|_| r.claimed.unwrap_or(now));
            r.lease = lease.clone();
        }
    }
}

impl NotificationRepo for State {
    fn insert_notification_task(
        &mut self,
        scope: DepotScope,
        new: &NewTask,
        now: Timestamp,
    ) -> Result<NotificationTask, StoreError> {
        let task = NotificationTask {
            id: self.id(),
            template_id: new.template_id,
            channel: new.channel,
            visit_id: None,
            order: new.order.clone(),
            scheduled_date: new.scheduled,
            sent_date: None,
            to: new.to.clone(),
            subject: new.subject.clone(),
            message: new.message.clone(),
            status: TaskStatus::Scheduled,
            sender: None,
            error: None,
            updated: now,
        };
        self.notifications.tasks.push(Row {
            scope,
            task: task.clone(),
            claimed: None,
            lease: SendLease::default(),
        });
        Ok(task)
    }

    fn list_notification_tasks(
        &mut self,
        scope: DepotScope,
        filter: &TaskFilter,
        page: &PageRequest,
    ) -> Result<Page<NotificationTask>, StoreError> {
        let rows = self
            .notifications
            .tasks
            .iter()
            .filter(|r| r.scope == scope)
            .filter(|r| filter.status.is_none_or(|s| r.task.status == s))
            .filter(|r| filter.channel.is_none_or(|c| r.task.channel == c))
            .map(|r| (r.task.updated, r.task.id, r.task.clone()))
            .collect();
        Ok(page_of(rows, page))
    }

    fn cancel_scheduled_tasks(
        &mut self,
        scope: DepotScope,
        order_id: i64,
        template_id: i64,
        reason: &str,
        now: Timestamp,
    ) -> Result<u64, StoreError> {
        let mut n = 0;
        for r in &mut self.notifications.tasks {
            let t = &mut r.task;
            if r.scope == scope
                && r.claimed.is_none()
                && t.status == TaskStatus::Scheduled
                && t.template_id == template_id
                && t.order.as_ref().is_some_and(|(id, _)| *id == order_id)
            {
                t.status = TaskStatus::Cancelled;
                t.error = Some(reason.to_owned());
                t.updated = now;
                n += 1;
            }
        }
        Ok(n)
    }

    fn finish_notification_task(
        &mut self,
        id: i64,
        status: TaskStatus,
        sender: Option<&str>,
        error: Option<&str>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        if let Some(r) = self.notifications.open(id).filter(|r| r.claimed.is_some()) {
            r.task.status = status;
            r.task.sender = sender.map(str::to_owned);
            r.task.error = error.map(str::to_owned);
            r.task.sent_date =
                matches!(status, TaskStatus::Sent | TaskStatus::Recorded).then_some(now);
            r.task.updated = now;
        }
        Ok(())
    }

    fn notification_settings(
        &mut self,
        scope: DepotScope,
    ) -> Result<NotificationSettings, StoreError> {
        Ok(self
            .notifications
            .settings
            .iter()
            .find(|(d, _)| *d == scope.depot_id)
            .map(|(_, s)| *s)
            .unwrap_or_default())
    }

    fn set_notification_settings(
        &mut self,
        scope: DepotScope,
        settings: &NotificationSettings,
    ) -> Result<(), StoreError> {
        self.notifications
            .settings
            .retain(|(d, _)| *d != scope.depot_id);
        self.notifications
            .settings
            .push((scope.depot_id, *settings));
        Ok(())
    }
}
