//! Notification tasks and a depot's notification settings. Which node sends a task is a lease
//! ([`LeaseRepo`](super::LeaseRepo)); [`NotificationRepo::finish_notification_task`] looks
//! across depots, like the outbox's methods.

use super::StoreError;
use crate::model::notification::{Channel, NotificationSettings, NotificationTask, TaskStatus};
use crate::model::organisation::DepotScope;
use crate::paging::{Page, PageRequest};
use crate::time::Timestamp;

/// A task to store (status Scheduled).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTask {
    /// The template it is made from.
    pub template_id: i64,
    /// The template's channel.
    pub channel: Channel,
    /// The order it is about (id, number).
    pub order: Option<(i64, String)>,
    /// When it is due.
    pub scheduled: Timestamp,
    /// Recipient.
    pub to: String,
    /// Subject (e-mail).
    pub subject: Option<String>,
    /// Rendered text.
    pub message: String,
}

/// Filters of the task list; they combine.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskFilter {
    /// Exactly this status.
    pub status: Option<TaskStatus>,
    /// Only this channel.
    pub channel: Option<Channel>,
}

/// A task that is due, with its depot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueTask {
    /// Its depot.
    pub scope: DepotScope,
    /// The task.
    pub task: NotificationTask,
}

/// Notification tasks of a depot and the worker's bookkeeping.
pub trait NotificationRepo {
    /// Stores a Scheduled task.
    fn insert_notification_task(
        &mut self,
        scope: DepotScope,
        task: &NewTask,
        now: Timestamp,
    ) -> Result<NotificationTask, StoreError>;
    /// One page of the depot's tasks, most recently updated first.
    fn list_notification_tasks(
        &mut self,
        scope: DepotScope,
        filter: &TaskFilter,
        page: &PageRequest,
    ) -> Result<Page<NotificationTask>, StoreError>;
    /// Cancels the Scheduled tasks of `order_id` made from `template_id` that no worker has
    /// started sending; how many.
    fn cancel_scheduled_tasks(
        &mut self,
        scope: DepotScope,
        order_id: i64,
        template_id: i64,
        reason: &str,
        now: Timestamp,
    ) -> Result<u64, StoreError>;
    /// Records the end of a claimed task (Sent or Failed) with the sender that handled it
    /// (`None`: not known, e.g. every node sending it stopped).
    fn finish_notification_task(
        &mut self,
        id: i64,
        status: TaskStatus,
        sender: Option<&str>,
        error: Option<&str>,
        now: Timestamp,
    ) -> Result<(), StoreError>;
    /// The depot's automatic-notification settings (all unset by default).
    fn notification_settings(
        &mut self,
        scope: DepotScope,
    ) -> Result<NotificationSettings, StoreError>;
    /// Replaces the depot's automatic-notification settings.
    fn set_notification_settings(
        &mut self,
        scope: DepotScope,
        settings: &NotificationSettings,
    ) -> Result<(), StoreError>;
}
