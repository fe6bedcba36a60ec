//! The generic HTTP SMS gateway sender: one `POST` per message to the configured URL with the
//! JSON body `{"to": "+44...", "message": "..."}`, `Content-Type: application/json` and, when
//! configured, the `Authorization` header value as given (`Bearer TOKEN`, `Basic ...`). Each
//! request carries `Idempotency-Key: notification-task-ID`, the same for every send of one task
//! (a task whose node died mid-send is sent again by another node), so a gateway that
//! deduplicates drops the second copy. Any 2xx answer is a sent message; anything else, or no
//! answer within 10 s, fails the task.

use std::time::Duration;

use dispatch_core::ports::notifier::{NotificationSender, OutgoingMessage, SendError};
use serde_json::json;
use tokio::runtime::Handle;

/// Longest one gateway request may take.
const TIMEOUT: Duration = Duration::from_secs(10);

/// Sends SMS through an HTTP gateway.
pub struct SmsGatewaySender {
    client: reqwest::Client,
    url: String,
    authorization: Option<String>,
    runtime: Handle,
}

impl SmsGatewaySender {
    /// A sender posting to `url`; `runtime` runs the requests (the sender is called from
    /// blocking threads).
    pub fn new(
        url: &str,
        authorization: Option<String>,
        runtime: Handle,
    ) -> Result<SmsGatewaySender, String> {
        let parsed =
            reqwest::Url::parse(url).map_err(|e| format!("--sms-gateway-url is not a URL: {e}"))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(format!(
                "--sms-gateway-url must be http or https, not {}",
                parsed.scheme()
            ));
        }
        let client = reqwest::Client::builder()
            .timeout(TIMEOUT)
            // A 3xx is a refusal like any other non-2xx answer: followed, a 302 would turn the
            // POST into a GET without the message and the task would count as Sent.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| format!("cannot build the SMS gateway client: {e}"))?;
        Ok(SmsGatewaySender {
            client,
            url: url.to_owned(),
            authorization,
            runtime,
        })
    }
}

impl NotificationSender for SmsGatewaySender {
    fn name(&self) -> String {
        format!("sms-gateway:{}", crate::redact::url(&self.url))
    }

    fn send(&self, message: &OutgoingMessage) -> Result<(), SendError> {
        let mut request = self
            .client
            .post(&self.url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header("idempotency-key", &message.key)
            .body(json!({ "to": message.to, "message": message.body }).to_string());
        if let Some(auth) = &self.authorization {
            request = request.header(reqwest::header::AUTHORIZATION, auth);
        }
        let status = self
            .runtime
            .block_on(async { request.send().await.map(|r| r.status()) })
            .map_err(|e| {
                let e = crate::redact::reqwest_error(e);
                SendError(format!("SMS gateway unreachable: {e}"))
            })?;
        if status.is_success() {
            Ok(())
        } else {
            Err(SendError(format!(
                "SMS gateway answered HTTP {}",
                status.as_u16()
            )))
        }
    }
}
