//! The notification read shapes: scheduled tasks and the task list.

use dispatch_core::model::notification::NotificationTask;
use dispatch_core::service::notifications::Scheduled;
use dispatch_core::time::Timestamp;
use serde::Serialize;
use serde_json::{json, Value};
use utoipa::ToSchema;

use super::shapes::IdRef;
use super::wire::ts_text;

/// One notification scheduled by a call.
#[derive(Serialize, ToSchema)]
pub struct ScheduledNotification {
    #[schema(required = true)]
    order_id: Option<i64>,
    template_id: i64,
    notification_task_id: i64,
}

/// A skipped order and template pair (the spec's error entry shape).
#[derive(Serialize, ToSchema)]
pub struct SkippedEntry {
    /// INVALID_INPUT.
    name: &'static str,
    description: String,
    #[serde(rename = "statusCode")]
    status_code: u16,
    #[serde(rename = "isOperational")]
    is_operational: bool,
    #[serde(rename = "sendAlert")]
    send_alert: bool,
    #[serde(rename = "sourceError")]
    #[schema(value_type = Option<Object>, required = true)]
    source_error: Value,
    /// `order_id`, `id`, `order_number`, `template_id`.
    #[schema(value_type = Object)]
    details: Value,
    timestamp: String,
}

/// `{ notifications, errors }`.
#[derive(Serialize, ToSchema)]
pub struct ScheduleResult {
    notifications: Vec<ScheduledNotification>,
    errors: Vec<SkippedEntry>,
}

/// The order a task is about.
#[derive(Serialize, ToSchema)]
pub struct TaskOrder {
    id: i64,
    order_number: String,
}

/// A notification task: the spec's shape plus `type`, `sender`, `error` and `updated`.
#[derive(Serialize, ToSchema)]
pub struct TaskWire {
    id: i64,
    template: IdRef,
    #[schema(required = true)]
    visit: Option<IdRef>,
    #[schema(required = true)]
    order: Option<TaskOrder>,
    scheduled_date: String,
    #[schema(required = true)]
    sent_date: Option<String>,
    to: String,
    #[schema(required = true)]
    subject: Option<String>,
    message: String,
    /// For example `Scheduled`, `Sent`, `Cancelled`, `Failed`.
    status: &'static str,
    /// `SMS` or `EMAIL`.
    #[serde(rename = "type")]
    channel: &'static str,
    #[schema(required = true)]
    sender: Option<String>,
    #[schema(required = true)]
    error: Option<String>,
    updated: String,
}

/// `{ notification_tasks }`.
#[derive(Serialize, ToSchema)]
pub struct Tasks {
    /// The page.
    pub notification_tasks: Vec<TaskWire>,
}

/// The body of POST /notifications/schedule/orders.
pub fn render_scheduled(out: &Scheduled, now: Timestamp) -> ScheduleResult {
    ScheduleResult {
        notifications: out
            .tasks
            .iter()
            .map(|t| ScheduledNotification {
                order_id: t.order.as_ref().map(|o| o.0),
                template_id: t.template_id,
                notification_task_id: t.id,
            })
            .collect(),
        errors: out
            .skipped
            .iter()
            .map(|s| SkippedEntry {
                name: "INVALID_INPUT",
                description: s.reason.clone(),
                status_code: 400,
                is_operational: true,
                send_alert: false,
                source_error: Value::Null,
                details: json!({"order_id": s.order_id, "id": s.order_id, "order_number": s.order_number, "template_id": s.template_id}),
                timestamp: ts_text(now),
            })
            .collect(),
    }
}

/// One task of the list.
pub fn render_task(t: &NotificationTask) -> TaskWire {
    TaskWire {
        id: t.id,
        template: IdRef { id: t.template_id },
        visit: t.visit_id.map(|id| IdRef { id }),
        order: t.order.as_ref().map(|(id, number)| TaskOrder {
            id: *id,
            order_number: number.clone(),
        }),
        scheduled_date: ts_text(t.scheduled_date),
        sent_date: t.sent_date.map(ts_text),
        to: t.to.clone(),
        subject: t.subject.clone(),
        message: t.message.clone(),
        status: t.status.as_str(),
        channel: t.channel.as_str(),
        sender: t.sender.clone(),
        error: t.error.clone(),
        updated: ts_text(t.updated),
    }
}
