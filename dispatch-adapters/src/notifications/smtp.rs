//! The SMTP e-mail sender (lettre): one message per task, `From` the configured address,
//! subject the task's subject, plain-text body, and a `Message-ID` made of the task's key and
//! the sender's domain: every send of one task (a task whose node died mid-send is sent again
//! by another node) carries the same one, so mail systems that deduplicate drop the copy. TLS follows the URL: `smtp://` plain (with
//! `?tls=required` for STARTTLS), `smtps://` implicit TLS; credentials come from the URL.

use std::time::Duration;

use dispatch_core::ports::notifier::{NotificationSender, OutgoingMessage, SendError};
use lettre::message::{header::ContentType, Mailbox};
use lettre::{Message, SmtpTransport, Transport};

/// Longest one SMTP conversation may take.
const TIMEOUT: Duration = Duration::from_secs(20);

/// Sends e-mail through one SMTP server.
pub struct SmtpSender {
    transport: SmtpTransport,
    from: Mailbox,
    name: String,
}

impl SmtpSender {
    /// A sender for `url` (`smtp://[user:pass@]host[:port][?tls=required]`, `smtps://...`)
    /// sending from `from`.
    pub fn new(url: &str, from: &str) -> Result<SmtpSender, String> {
        let from: Mailbox = from
            .parse()
            .map_err(|e| format!("--smtp-from {from:?} is not an e-mail address: {e}"))?;
        let transport = SmtpTransport::from_url(url)
            .map_err(|e| format!("--smtp-url is not a usable SMTP URL: {e}"))?
            .timeout(Some(TIMEOUT))
            .build();
        let host = url
            .split_once("://")
            .map(|(_, rest)| rest.rsplit('@').next().unwrap_or(rest))
            .unwrap_or(url);
        Ok(SmtpSender {
            transport,
            from,
            name: format!("smtp:{}", host.split(['/', '?']).next().unwrap_or(host)),
        })
    }
}

impl NotificationSender for SmtpSender {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn send(&self, message: &OutgoingMessage) -> Result<(), SendError> {
        let to: Mailbox = message
            .to
            .parse()
            .map_err(|e| SendError(format!("invalid recipient {:?}: {e}", message.to)))?;
        let email = Message::builder()
            .message_id(Some(format!(
                "<{}@{}>",
                message.key,
                self.from.email.domain()
            )))
            .from(self.from.clone())
            .to(to)
            .subject(message.subject.clone().unwrap_or_default())
            .header(ContentType::TEXT_PLAIN)
            .body(message.body.clone())
            .map_err(|e| SendError(format!("cannot build the message: {e}")))?;
        self.transport
            .send(&email)
            .map(|_| ())
            .map_err(|e| SendError(format!("SMTP: {e}")))
    }
}
