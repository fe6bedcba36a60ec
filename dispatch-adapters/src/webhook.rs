//! Webhook delivery over HTTP: the client the delivery worker holds, and one attempt of one
//! delivery: `POST` of `{type, data}` as JSON with Basic credentials, bounded by the attempt
//! timeout from connect to the end of the answer.

use std::time::Duration;

use dispatch_core::events::DomainEvent;
use dispatch_core::model::organisation::Webhook;
use dispatch_core::webhook::AttemptResult;
use serde_json::{json, Value};

/// Answers longer than this are not read further (only the status matters); reading a short
/// answer to its end lets the connection be reused.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// The request body: `{ "type": <event name>, "data": <payload object> }`.
pub fn body(event: &DomainEvent) -> Value {
    json!({ "type": event.name(), "data": event.payload() })
}

/// The HTTP client of webhook deliveries: pooled keep-alive connections, no redirects.
#[derive(Debug, Clone)]
pub struct WebhookClient {
    client: reqwest::Client,
}

impl WebhookClient {
    /// A client keeping up to `idle_per_host` idle connections per receiver, waiting at most
    /// `connect_timeout` for a connection.
    pub fn new(idle_per_host: usize, connect_timeout: Duration) -> Result<WebhookClient, String> {
        let client = reqwest::Client::builder()
            .user_agent(concat!("dispatch-webhooks/", env!("CARGO_PKG_VERSION")))
            // A 3xx is a failed attempt: followed, a 302 or 303 would arrive as a GET without
            // the event (and a delivery marked DELIVERED), and the credentials would go where
            // the receiver points rather than where the depot's settings say.
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(idle_per_host)
            .connect_timeout(connect_timeout)
            .build()
            .map_err(|e| format!("cannot build the webhook HTTP client: {e}"))?;
        Ok(WebhookClient { client })
    }

    /// Makes one attempt. `delivery_id` goes out as `x-dispatch-delivery` so receivers can
    /// drop the duplicates that at-least-once delivery allows.
    pub async fn attempt(
        &self,
        receiver: &Webhook,
        delivery_id: i64,
        body: &[u8],
        timeout: Duration,
    ) -> AttemptResult {
        attempt(&self.client, receiver, delivery_id, body, timeout).await
    }
}

/// Makes one attempt. `delivery_id` goes out as `x-dispatch-delivery` so receivers can drop
/// the duplicates that at-least-once delivery allows.
async fn attempt(
    client: &reqwest::Client,
    receiver: &Webhook,
    delivery_id: i64,
    body: &[u8],
    timeout: Duration,
) -> AttemptResult {
    let request = client
        .post(without_credentials(&receiver.url))
        .basic_auth(&receiver.username, Some(&receiver.password))
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header("x-dispatch-delivery", delivery_id)
        .body(body.to_vec());
    let exchange = async {
        let mut response = request.send().await?;
        let status = response.status().as_u16();
        let mut read = 0usize;
        while let Some(chunk) = response.chunk().await? {
            read += chunk.len();
            if read > MAX_ANSWER_BYTES {
                break;
            }
        }
        Ok::<u16, reqwest::Error>(status)
    };
    match tokio::time::timeout(timeout, exchange).await {
        Err(_) => AttemptResult::TimedOut,
        Ok(Ok(status)) => AttemptResult::Answered(status),
        Ok(Err(e)) if e.is_timeout() => AttemptResult::TimedOut,
        Ok(Err(e)) => {
            AttemptResult::ConnectionFailed(error_chain(&crate::redact::reqwest_error(e)))
        }
    }
}

/// `url` without a `user:password@` part: the client would authenticate with those instead of
/// the configured username and password (spec: Authentication 4). A URL that does not parse
/// is left as it is, for the request to fail with its reason.
fn without_credentials(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            // Both only fail for URLs that cannot have credentials, which these have.
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.into()
        }
        _ => url.to_owned(),
    }
}

/// The error with its causes ("error sending request: connection refused").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
