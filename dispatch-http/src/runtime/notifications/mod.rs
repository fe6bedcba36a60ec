//! The notification worker: every [`POLL`] it sends the tasks that are due
//! (`dispatch_core::service::notifications::send_due`) through the sender of their channel.
//! Without a configured sender a channel uses the embedded default, which delivers nothing and
//! records the task as sent by `recorded-only ...`; the start-up log says so.

mod sms_gateway;
mod smtp;

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::notifier::{NotificationSender, RecordingSender};
use dispatch_core::ports::store::Store;
use dispatch_core::service::notifications::{send_due, Senders};
use tokio::sync::watch;
use tokio::task::JoinHandle;

pub use sms_gateway::SmsGatewaySender;
pub use smtp::SmtpSender;

/// How often due tasks are looked for.
pub const POLL: Duration = Duration::from_millis(500);

/// Tasks sent per round at most.
const BATCH: usize = 200;

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
}

/// The sender of each channel.
#[derive(Clone)]
pub struct ChannelSenders {
    pub sms: Arc<dyn NotificationSender>,
    pub email: Arc<dyn NotificationSender>,
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
}

/// Starts the worker; it stops when `stopping` turns true (a send in progress finishes).
pub fn spawn(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    senders: ChannelSenders,
    mut stopping: watch::Receiver<bool>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let (store, clock, senders) = (store.clone(), clock.clone(), senders.clone());
            let round = tokio::task::spawn_blocking(move || {
                let s = Senders {
                    sms: &*senders.sms,
                    email: &*senders.email,
                };
                send_due(&*store, &*clock, &s, BATCH)
            })
            .await;
            if let Ok(Ok(report)) = &round {
                metrics::counter!("dispatch_notifications_total", "outcome" => "sent")
                    .increment(report.sent as u64);
                metrics::counter!("dispatch_notifications_total", "outcome" => "failed")
                    .increment(report.failed as u64);
            }
            match round {
                Ok(Ok(report)) if report.sent + report.failed > 0 || report.interrupted > 0 => {
                    tracing::info!(
                        sent = report.sent,
                        failed = report.failed,
                        interrupted = report.interrupted,
                        "notification tasks handled"
                    );
                }
                Ok(Ok(_)) => {}
                Ok(Err(e)) => {
                    tracing::error!(error = %e, "notification worker: store failed; retrying")
                }
                Err(e) => tracing::error!(error = %e, "notification worker round failed"),
            }
            tokio::select! {
                () = tokio::time::sleep(POLL) => {}
                _ = stopping.wait_for(|s| *s) => return,
            }
        }
    })
}
