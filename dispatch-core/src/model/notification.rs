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

/// Lifecycle of a notification task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    /// Waiting for its send time.
    Scheduled,
    /// Sent to the provider.
    Sent,
    /// Superseded or withdrawn (SMS credit refunded).
    Cancelled,
    /// Failed permanently.
    Error,
}

/// One message to one recipient about one order or visit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotificationTask {
    /// Identifier.
    pub id: i64,
    /// The template it was made from.
    pub template_id: i64,
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
    /// Last change (list order and `updated_at_min`).
    pub updated: Timestamp,
}
