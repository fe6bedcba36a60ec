//! The notification worker: every [`POLL`] of the clock's time it claims the tasks that are due for this node
//! under leases (`dispatch_core::service::notifications::sending`) and sends them through the
//! sender of their channel (round.rs). Without a configured sender a channel uses the embedded
//! default, which delivers nothing and records the task as sent by `recorded-only ...`; the
//! start-up log says so.

mod round;

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::ports::clock::Clock;
use dispatch_core::ports::notifier::{NotificationSender, RecordingSender};
use dispatch_core::ports::store::Store;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use dispatch_adapters::notifications::{SmsGatewaySender, SmtpSender};

/// How often due tasks are looked for, in the clock's time (a simulated clock running fast
/// looks as often in its own time, within `runtime::clock_wait`'s bound).
pub const POLL: Duration = Duration::from_millis(500);

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
    #[arg(long, env = "DISPATCH_NOTIFICATION_LEASE", default_value_t = 10.0, value_parser = crate::cli::background::positive_seconds)]
    pub notification_lease: f64,
}

/// The sender of each channel.
#[derive(Clone)]
pub struct ChannelSenders {
    /// Sends the tasks of the `sms` channel.
    pub sms: Arc<dyn NotificationSender>,
    /// Sends the tasks of the `email` channel.
    pub email: Arc<dyn NotificationSender>,
}

/// What the worker of one process sends with.
#[derive(Clone)]
pub struct SendConfig {
    /// The sender of each channel.
    pub senders: ChannelSenders,
    /// This process's node name (the holder of its claims).
    pub node: String,
    /// How long a claim on a task lasts without renewal.
    pub lease: Duration,
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

/// Starts the worker; it stops when `stopping` turns true (a send in progress finishes; the
/// tasks of its batch not sent yet are handed back).
pub fn spawn(
    store: Arc<dyn Store>,
    clock: Arc<dyn Clock>,
    config: SendConfig,
    mut stopping: watch::Receiver<bool>,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let (store, round_clock, config) = (store.clone(), clock.clone(), config.clone());
            let stop = stopping.clone();
            let round = tokio::task::spawn_blocking(move || {
                round::send_round(&*store, &*round_clock, &config, &stop)
            })
            .await;
            if let Ok(Ok(report)) = &round {
                metrics::counter!("dispatch_notifications_total", "outcome" => "sent")
                    .increment(report.sent as u64);
                metrics::counter!("dispatch_notifications_total", "outcome" => "recorded")
                    .increment(report.recorded as u64);
                metrics::counter!("dispatch_notifications_total", "outcome" => "failed")
                    .increment(report.failed as u64);
                metrics::counter!("dispatch_notifications_total", "outcome" => "interrupted")
                    .increment(report.interrupted);
            }
            match round {
                Ok(Ok(report))
                    if report.sent + report.recorded + report.failed + report.not_finished > 0
                        || report.interrupted > 0 =>
                {
                    tracing::info!(
                        sent = report.sent,
                        recorded = report.recorded,
                        failed = report.failed,
                        interrupted = report.interrupted,
                        not_finished = report.not_finished,
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
                () = tokio::time::sleep(crate::runtime::clock_wait(&*clock, POLL)) => {}
                _ = stopping.wait_for(|s| *s) => return,
            }
        }
    })
}
