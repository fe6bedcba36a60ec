//! A [`Geocoder`] over the Nominatim search API (`GET /search?q=...&format=jsonv2&limit=1`), as
//! served by nominatim.openstreetmap.org, self-hosted Nominatim and the geocoders that copy its
//! interface.
//!
//! Requests are paced to at most `per_second` (Nominatim's usage policy allows one a second on
//! its public servers) across every thread of the process, and carry a User-Agent naming
//! dispatch, as the policy asks. A 429 pushes the next request back by its `Retry-After` (at
//! most a minute). Every request is counted in `dispatch_geocoder_requests_total` by outcome;
//! every failure to get an answer is logged with the server and the error.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use dispatch_core::model::location::Coordinates;
use dispatch_core::ports::geocoder::{GeocodeError, GeocodeQuery, Geocoder};
use serde_json::Value;

/// The longest `Retry-After` obeyed: a server asking for more is asked again after this.
const MAX_HOLD_OFF: Duration = Duration::from_secs(60);

/// Answers longer than this are refused (one result is a few kilobytes).
const MAX_ANSWER_BYTES: u64 = 1 << 20;

/// What one request came to, the `outcome` label of `dispatch_geocoder_requests_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    /// A position.
    Found,
    /// An empty result list.
    NotFound,
    /// No answer within the timeout.
    Timeout,
    /// 429 Too Many Requests.
    RateLimited,
    /// A 5xx answer.
    ServerError,
    /// Anything else: unreachable server, another status, an unreadable answer.
    Failed,
}

impl Outcome {
    /// The label value.
    fn as_str(self) -> &'static str {
        match self {
            Outcome::Found => "found",
            Outcome::NotFound => "not_found",
            Outcome::Timeout => "timeout",
            Outcome::RateLimited => "rate_limited",
            Outcome::ServerError => "server_error",
            Outcome::Failed => "failed",
        }
    }
}

/// The Nominatim client.
pub struct Nominatim {
    search_url: String,
    pace: Pace,
    client: crate::http::LazyClient,
}

impl Nominatim {
    /// A client of the geocoder at `base_url` (`https://nominatim.openstreetmap.org`, or the
    /// full `.../search` URL), waiting at most `timeout` for an answer and sending at most
    /// `per_second` requests a second.
    pub fn new(base_url: &str, timeout: Duration, per_second: f64) -> Result<Nominatim, String> {
        let base = base_url.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(format!(
                "geocoder URL `{}` must start with http:// or https://",
                crate::redact::url(base_url)
            ));
        }
        if !(per_second.is_finite() && per_second > 0.0) {
            return Err(format!(
                "the geocoder's request rate must be a positive number, got {per_second}"
            ));
        }
        let search_url = if base.ends_with("/search") {
            base.to_owned()
        } else {
            format!("{base}/search")
        };
        Ok(Nominatim {
            search_url,
            pace: Pace::new(Duration::from_secs_f64(1.0 / per_second)),
            client: crate::http::LazyClient::new(timeout),
        })
    }

    /// One request: the position, `None` for an empty result, or why there is no answer.
    fn ask(&self, query: &GeocodeQuery<'_>) -> Result<Option<Coordinates>, (Outcome, String)> {
        let client = self.client.get().map_err(|e| (Outcome::Failed, e))?;
        let text = [query.address, query.postcode]
            .into_iter()
            .flatten()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(", ");
        let mut params = vec![
            ("q", text),
            ("format", "jsonv2".into()),
            ("limit", "1".into()),
        ];
        if let Some(country) = query.country.map(str::trim).filter(|c| !c.is_empty()) {
            params.push(("countrycodes", country.to_lowercase()));
        }
        self.pace.wait();
        let sent = client.get(&self.search_url).query(&params).send();
        let response = sent.map_err(|e| {
            let outcome = if e.is_timeout() {
                Outcome::Timeout
            } else {
                Outcome::Failed
            };
            // reqwest names the URL, with the address asked and any credentials in it.
            (outcome, e.without_url().to_string())
        })?;
        let status = response.status();
        if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
            let hold_off = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok()?.trim().parse::<u64>().ok())
                .map_or(self.pace.interval, Duration::from_secs)
                .min(MAX_HOLD_OFF);
            self.pace.hold_off(hold_off);
            return Err((Outcome::RateLimited, format!("HTTP {status}")));
        }
        if status.is_server_error() {
            return Err((Outcome::ServerError, format!("HTTP {status}")));
        }
        if !status.is_success() {
            return Err((Outcome::Failed, format!("HTTP {status}")));
        }
        if response
            .content_length()
            .is_some_and(|n| n > MAX_ANSWER_BYTES)
        {
            return Err((Outcome::Failed, "the answer is too long".into()));
        }
        let body = response.bytes().map_err(|e| {
            let outcome = if e.is_timeout() {
                Outcome::Timeout
            } else {
                Outcome::Failed
            };
            (outcome, format!("unreadable answer: {}", e.without_url()))
        })?;
        let hits: Vec<Value> = serde_json::from_slice(&body)
            .map_err(|e| (Outcome::Failed, format!("not a result list: {e}")))?;
        let Some(first) = hits.first() else {
            return Ok(None);
        };
        position(first).map(Some).ok_or_else(|| {
            (
                Outcome::Failed,
                "a result without a valid lat and lon".into(),
            )
        })
    }
}

impl std::fmt::Debug for Nominatim {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Nominatim")
            .field("search_url", &crate::redact::url(&self.search_url))
            .finish_non_exhaustive()
    }
}

/// A result's `lat` and `lon`: strings in Nominatim's answers, numbers in some look-alikes.
fn position(hit: &Value) -> Option<Coordinates> {
    let number = |v: &Value| match v {
        Value::String(s) => s.trim().parse::<f64>().ok(),
        other => other.as_f64(),
    };
    let (lat, lng) = (number(hit.get("lat")?)?, number(hit.get("lon")?)?);
    ((-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lng))
        .then_some(Coordinates { lat, lng })
}

impl Geocoder for Nominatim {
    fn geocode(&self, query: &GeocodeQuery<'_>) -> Result<Coordinates, GeocodeError> {
        let answer = self.ask(query);
        let outcome = match &answer {
            Ok(Some(_)) => Outcome::Found,
            Ok(None) => Outcome::NotFound,
            Err((outcome, _)) => *outcome,
        };
        metrics::counter!("dispatch_geocoder_requests_total", "outcome" => outcome.as_str())
            .increment(1);
        match answer {
            Ok(Some(found)) => Ok(found),
            Ok(None) => Err(GeocodeError::NoMatch),
            Err((outcome, why)) => {
                let geocoder = crate::redact::url(&self.search_url);
                tracing::warn!(
                    %geocoder,
                    outcome = outcome.as_str(),
                    error = %why,
                    "geocoder gave no answer; the address is saved without coordinates"
                );
                Err(GeocodeError::Unavailable(format!(
                    "geocoder at {geocoder}: {why}"
                )))
            }
        }
    }
}

/// At most one request per `interval`, in the order they asked, across threads.
#[derive(Debug)]
struct Pace {
    interval: Duration,
    next: Mutex<Instant>,
}

impl Pace {
    fn new(interval: Duration) -> Pace {
        Pace {
            interval,
            next: Mutex::new(Instant::now()),
        }
    }

    /// Takes the next free slot and sleeps until it.
    fn wait(&self) {
        let slot = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let slot = (*next).max(Instant::now());
            *next = slot + self.interval;
            slot
        };
        std::thread::sleep(slot.saturating_duration_since(Instant::now()));
    }

    /// No request before `pause` from now.
    fn hold_off(&self, pause: Duration) {
        let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
        *next = (*next).max(Instant::now() + pause);
    }
}
