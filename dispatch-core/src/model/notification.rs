//! Customer notifications: templates (SMS or e-mail) and the tasks scheduled from them.

use crate::time::Timestamp;

/// How a notification reaches the customer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    /// Text message.
    Sms,
    /// E-mail.
    Email,
}

impl Channel {
    /// Wire spelling (`SMS`, `EMAIL`).
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Sms => "SMS",
            Channel::Email => "EMAIL",
        }
    }

    /// Parses the wire spelling, ignoring case.
    pub fn parse(s: &str) -> Option<Channel> {
        if s.eq_ignore_ascii_case("SMS") {
            Some(Channel::Sms)
        } else if s.eq_ignore_ascii_case("EMAIL") {
            Some(Channel::Email)
        } else {
            None
        }
    }
}

/// A message template of a depot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotificationTemplate {
    /// Identifier.
    pub id: i64,
    /// SMS or e-mail.
    pub channel: Channel,
    /// Name, unique within the depot.
    pub name: String,
    /// Message text with `{placeholders}`.
    pub body: String,
}

/// Lifecycle of a notification task: Scheduled, then exactly one of Sent, Failed or Cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    /// Waiting for its send time.
    Scheduled,
    /// Handed to a sender that delivers it (SMTP, the SMS gateway), named on the task.
    Sent,
    /// Handled by the embedded default sender, which delivers nothing: the message is only
    /// recorded on the task (configure a sender to deliver).
    Recorded,
    /// The sender refused it, or the process stopped while sending (never sent twice).
    Failed,
    /// Superseded or withdrawn before it was sent.
    Cancelled,
}

impl TaskStatus {
    /// Wire spelling (`Scheduled`, `Sent`, `Recorded`, `Failed`, `Cancelled`).
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Scheduled => "Scheduled",
            TaskStatus::Sent => "Sent",
            TaskStatus::Recorded => "Recorded",
            TaskStatus::Failed => "Failed",
            TaskStatus::Cancelled => "Cancelled",
        }
    }

    /// Parses the wire spelling exactly.
    pub fn parse(s: &str) -> Option<TaskStatus> {
        [
            TaskStatus::Scheduled,
            TaskStatus::Sent,
            TaskStatus::Recorded,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ]
        .into_iter()
        .find(|t| t.as_str() == s)
    }
}

/// One message to one recipient about one order or visit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotificationTask {
    /// Identifier.
    pub id: i64,
    /// The template it was made from.
    pub template_id: i64,
    /// SMS or e-mail (the template's channel).
    pub channel: Channel,
    /// The visit (stop) it is about, when not about an order.
    pub visit_id: Option<i64>,
    /// The order it is about: id and order number.
    pub order: Option<(i64, String)>,
    /// When it is due.
    pub scheduled_date: Timestamp,
    /// When it was sent.
    pub sent_date: Option<Timestamp>,
    /// Recipient (phone number or e-mail address).
    pub to: String,
    /// Subject (e-mail only).
    pub subject: Option<String>,
    /// Rendered message.
    pub message: String,
    /// Lifecycle state.
    pub status: TaskStatus,
    /// Which sender handled it (`recorded-only (embedded default; nothing was delivered)`,
    /// `smtp:HOST`, `sms-gateway:URL`).
    pub sender: Option<String>,
    /// Why it failed or was cancelled.
    pub error: Option<String>,
    /// Last change (list order and `updated_at_min`).
    pub updated: Timestamp,
}

/// A depot's automatic notifications: which templates go out on dispatch (planned start) and
/// when a stop is near (on delivery), and how near "near" is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NotificationSettings {
    /// Template sent to each order's customer when its route is dispatched.
    pub planned_start_template: Option<i64>,
    /// Template sent when a stop enters its on-delivery window.
    pub on_delivery_template: Option<i64>,
    /// Minutes before the ETA at which the on-delivery window opens.
    pub on_delivery_window_minutes: Option<u32>,
}
