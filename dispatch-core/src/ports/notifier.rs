//! The notification sender port: hands one rendered message to a provider (SMTP server, SMS
//! gateway ...). Adapters live outside the core; [`RecordingSender`] is the embedded default
//! that delivers nothing and lets the task record stand as the only trace.

use crate::model::notification::Channel;

/// One message to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingMessage {
    /// SMS or e-mail.
    pub channel: Channel,
    /// The same for every send of one task (`notification-task-ID`): a task whose node died
    /// mid-send is sent again by another node, and providers that deduplicate (an SMS
    /// gateway's `Idempotency-Key`, the e-mail `Message-ID`) can drop the second copy.
    pub key: String,
    /// Phone number or e-mail address.
    pub to: String,
    /// Subject (e-mail).
    pub subject: Option<String>,
    /// Text.
    pub body: String,
}

/// Why a message was not sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SendError(pub String);

/// A provider of one channel.
pub trait NotificationSender: Send + Sync {
    /// The name recorded on every task this sender handles (`smtp:mail.example.com:587`).
    fn name(&self) -> String;
    /// Sends one message; blocking, bounded by the adapter's own timeouts.
    fn send(&self, message: &OutgoingMessage) -> Result<(), SendError>;
    /// Whether an accepted message left the machine: tasks it handles become Sent, else
    /// Recorded.
    fn delivers(&self) -> bool {
        true
    }
}

/// The embedded default: sends nothing. Tasks it handles become Recorded (not Sent) with this
/// sender's name, which says so, so nobody takes a recorded message for a delivered one.
#[derive(Debug, Clone, Copy, Default)]
pub struct RecordingSender;

/// The name [`RecordingSender`] records on tasks.
pub const RECORDING_SENDER: &str = "recorded-only (embedded default sender: nothing was delivered)";

impl NotificationSender for RecordingSender {
    fn name(&self) -> String {
        RECORDING_SENDER.to_owned()
    }

    fn send(&self, _message: &OutgoingMessage) -> Result<(), SendError> {
        Ok(())
    }

    fn delivers(&self) -> bool {
        false
    }
}
