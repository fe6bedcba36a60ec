//! The notification senders' flags of `serve` and `worker`, and the senders they make.

use std::sync::Arc;
use std::time::Duration;

use dispatch_adapters::notifications::{SmsGatewaySender, SmtpSender};
use dispatch_core::ports::notifier::{NotificationSender, RecordingSender};

use super::positive_seconds;
use crate::runtime::notifications::{ChannelSenders, SendConfig};

/// Notification senders of `dispatch serve` (flags, or `DISPATCH_*` variables).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct NotifierArgs {
    /// SMTP server for e-mail notifications: `smtp://[USER:PASS@]HOST[:PORT][?tls=required]`
    /// or `smtps://...`. Without it e-mail tasks are only recorded, never delivered.
    #[arg(long, env = "DISPATCH_SMTP_URL")]
    pub smtp_url: Option<String>,
    /// Sender address of notification e-mails (with --smtp-url).
    #[arg(long, env = "DISPATCH_SMTP_FROM", default_value = "dispatch@localhost")]
    pub smtp_from: String,
    /// HTTP SMS gateway: each SMS is a POST of {"to", "message"} as JSON. Without it SMS tasks
    /// are only recorded, never delivered.
    #[arg(long, env = "DISPATCH_SMS_GATEWAY_URL")]
    pub sms_gateway_url: Option<String>,
    /// `Authorization` header value sent to the SMS gateway (e.g. `Bearer TOKEN`).
    #[arg(long, env = "DISPATCH_SMS_GATEWAY_AUTH")]
    pub sms_gateway_auth: Option<String>,
    /// Seconds a process's claim on a notification task lasts without renewal: a task whose
    /// process died mid-send is sent again (by any process on the database) this long after
    /// the last renewal.
    #[arg(long, env = "DISPATCH_NOTIFICATION_LEASE", default_value_t = 10.0, value_parser = positive_seconds)]
    pub notification_lease: f64,
}

impl NotifierArgs {
    /// Builds the senders, refusing unusable settings, and logs loudly which channels are only
    /// recorded.
    pub fn senders(&self) -> Result<ChannelSenders, String> {
        let email: Arc<dyn NotificationSender> = match &self.smtp_url {
            Some(url) => Arc::new(SmtpSender::new(url, &self.smtp_from)?),
            None => {
                tracing::warn!("notifications: no SMTP server configured (--smtp-url): e-mail tasks are RECORDED in the database as sent by the embedded default sender and NOT DELIVERED");
                Arc::new(RecordingSender)
            }
        };
        let sms: Arc<dyn NotificationSender> = match &self.sms_gateway_url {
            Some(url) => Arc::new(SmsGatewaySender::new(
                url,
                self.sms_gateway_auth.clone(),
                tokio::runtime::Handle::current(),
            )?),
            None => {
                tracing::warn!("notifications: no SMS gateway configured (--sms-gateway-url): SMS tasks are RECORDED in the database as sent by the embedded default sender and NOT DELIVERED");
                Arc::new(RecordingSender)
            }
        };
        tracing::info!(sms = %sms.name(), email = %email.name(), "notification senders");
        Ok(ChannelSenders { sms, email })
    }

    /// The worker's configuration on node `node`, with [`NotifierArgs::senders`].
    pub fn config(&self, node: &str) -> Result<SendConfig, String> {
        Ok(SendConfig {
            senders: self.senders()?,
            node: node.to_owned(),
            lease: Duration::from_secs_f64(self.notification_lease),
        })
    }
}
