//! Feature tokens (spec, Versioning): opt-in changes that are not wire-compatible.
//!
//! - `x-svc-api-features` is a comma-separated list; tokens are trimmed and case-insensitive,
//!   unknown ones are ignored. The applied set goes into the request extensions as [`Features`].
//! - Every response lists the applied tokens in `x-svc-api-features-applied` (absent when none).
//! - While a token is in its notice period, responses to callers *not* sending it carry `Sunset`,
//!   `Deprecation` and a `Link: <docs>; rel="deprecation"`, the token's page under the
//!   documentation URL the operator sets (`serve --docs-url`, by default the pages this service
//!   serves under `/docs/features/`). An existing `Link` (a paging
//!   `rel="next"`) is kept first and the deprecation link is joined to it with a comma in one
//!   header value, so clients reading only one `Link` value still find `rel="next"` first.
//! - After the notice period the token is still accepted, still echoed as applied (the caller
//!   gets the behaviour it asked for, which is now everyone's), and has no further effect.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::header::{HeaderName, LINK};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use dispatch_core::ports::clock::Clock;
use dispatch_core::time::Timestamp;

use crate::public_url::PublicUrl;

/// Request header carrying the caller's tokens.
pub const FEATURES_HEADER: HeaderName = HeaderName::from_static("x-svc-api-features");
/// Response header echoing the applied tokens.
pub const FEATURES_APPLIED_HEADER: HeaderName =
    HeaderName::from_static("x-svc-api-features-applied");
const SUNSET: HeaderName = HeaderName::from_static("sunset");
const DEPRECATION: HeaderName = HeaderName::from_static("deprecation");

/// A feature token this service knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Feature {
    /// `rate-limit-429`: rate-limit exhaustion answers 429 RATE_LIMIT_EXCEEDED instead of 403
    /// FORBIDDEN.
    RateLimit429,
}

/// The notice period of a token: until `sunset`, non-users are warned.
struct Notice {
    sunset: Timestamp,
    sunset_header: &'static str,
    deprecation_header: &'static str,
}

impl Feature {
    /// Every known token.
    pub const ALL: [Feature; 1] = [Feature::RateLimit429];

    /// The token as written on the wire (lower case).
    pub fn token(self) -> &'static str {
        match self {
            Feature::RateLimit429 => "rate-limit-429",
        }
    }

    fn parse(token: &str) -> Option<Feature> {
        Feature::ALL
            .into_iter()
            .find(|f| f.token().eq_ignore_ascii_case(token))
    }

    fn notice(self) -> Notice {
        match self {
            Feature::RateLimit429 => Notice {
                sunset: RATE_LIMIT_429_FOR_EVERYONE_FROM,
                sunset_header: "Wed, 01 Mar 2028 00:00:00 GMT",
                deprecation_header: "@1818720000",
            },
        }
    }

    /// True while the token is in its notice period at `now`.
    pub fn in_notice_period(self, now: Timestamp) -> bool {
        now < self.notice().sunset
    }

    /// The documentation URL of the token.
    pub fn docs_url(self, docs: &PublicUrl) -> String {
        docs.absolute_url(&self.docs_path())
    }

    /// The token's page under the documentation URL: `/features/{token}`.
    pub fn docs_path(self) -> String {
        format!("/features/{}", self.token())
    }

    /// The token's page as this service serves it (`docs/features/{token}.md` of the
    /// repository, embedded in the binary).
    pub fn documentation(self) -> &'static str {
        match self {
            Feature::RateLimit429 => include_str!("../../../docs/features/rate-limit-429.md"),
        }
    }
}

/// 2028-03-01T00:00:00Z: from then on every caller gets 429 for rate-limit exhaustion.
pub const RATE_LIMIT_429_FOR_EVERYONE_FROM: Timestamp = Timestamp::from_millis(1_835_481_600_000);

/// The tokens applied to one request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Features(Vec<Feature>);

impl Features {
    /// Parses every `x-svc-api-features` value of `headers` (repeated headers are one list).
    pub fn from_headers(headers: &HeaderMap) -> Features {
        let mut applied = Vec::new();
        for value in headers.get_all(FEATURES_HEADER) {
            let Ok(value) = value.to_str() else { continue };
            for feature in value.split(',').filter_map(|t| Feature::parse(t.trim())) {
                if !applied.contains(&feature) {
                    applied.push(feature);
                }
            }
        }
        Features(applied)
    }

    /// True when the caller opted in to `feature`.
    pub fn contains(&self, feature: Feature) -> bool {
        self.0.contains(&feature)
    }

    /// `x-svc-api-features-applied`, or `None` when nothing applied.
    fn applied_header(&self) -> Option<HeaderValue> {
        if self.0.is_empty() {
            return None;
        }
        let tokens: Vec<&str> = self.0.iter().map(|f| f.token()).collect();
        HeaderValue::from_str(&tokens.join(",")).ok()
    }
}

/// True when rate-limit exhaustion answers 429: the caller opted in, or the date has come.
pub fn rate_limit_429_applies(features: Option<&Features>, now: Timestamp) -> bool {
    features.is_some_and(|f| f.contains(Feature::RateLimit429))
        || !Feature::RateLimit429.in_notice_period(now)
}

/// What [`negotiate`] needs: the time (notice periods end) and where the tokens' pages are.
#[derive(Clone)]
pub struct Notices {
    /// The clock the notice periods are judged by.
    pub clock: Arc<dyn Clock>,
    /// The documentation URL the deprecation links point under.
    pub docs_url: PublicUrl,
}

/// The layer: parses the tokens into the request and decorates the response.
pub async fn negotiate(
    State(Notices { clock, docs_url }): State<Notices>,
    mut req: Request,
    next: Next,
) -> Response {
    let features = Features::from_headers(req.headers());
    req.extensions_mut().insert(features.clone());
    let mut response = next.run(req).await;
    let now = clock.now();
    let headers = response.headers_mut();
    if let Some(applied) = features.applied_header() {
        headers.insert(FEATURES_APPLIED_HEADER, applied);
    }
    for feature in Feature::ALL {
        if features.contains(feature) || !feature.in_notice_period(now) {
            continue;
        }
        let notice = feature.notice();
        headers.insert(SUNSET, HeaderValue::from_static(notice.sunset_header));
        headers.insert(
            DEPRECATION,
            HeaderValue::from_static(notice.deprecation_header),
        );
        add_link(
            headers,
            &format!("<{}>; rel=\"deprecation\"", feature.docs_url(&docs_url)),
        );
    }
    response
}

/// Adds one link-value to the response's `Link`, keeping existing values first, as one header.
fn add_link(headers: &mut HeaderMap, link_value: &str) {
    let mut values: Vec<String> = headers
        .get_all(LINK)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .map(str::to_owned)
        .collect();
    values.push(link_value.to_owned());
    if let Ok(joined) = HeaderValue::from_str(&values.join(", ")) {
        headers.insert(LINK, joined);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(FEATURES_HEADER, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn tokens_are_trimmed_case_insensitive_deduplicated_and_unknown_ones_ignored() {
        let f = Features::from_headers(&headers(&[
            " Rate-Limit-429 , something-else,RATE-LIMIT-429",
        ]));
        assert_eq!(f, Features(vec![Feature::RateLimit429]));
        assert_eq!(f.applied_header().unwrap(), "rate-limit-429");
        let none = Features::from_headers(&headers(&["nope, ,"]));
        assert_eq!(none.applied_header(), None);
        let repeated = Features::from_headers(&headers(&["x", "rate-limit-429"]));
        assert!(repeated.contains(Feature::RateLimit429));
    }

    #[test]
    fn the_429_default_starts_on_2028_03_01_utc() {
        let eve = Timestamp::parse("2028-02-29T23:59:59.999Z").unwrap();
        let day = Timestamp::parse("2028-03-01T00:00:00.000Z").unwrap();
        assert_eq!(day, RATE_LIMIT_429_FOR_EVERYONE_FROM);
        let opted_in = Features(vec![Feature::RateLimit429]);
        assert!(!rate_limit_429_applies(None, eve));
        assert!(rate_limit_429_applies(Some(&opted_in), eve));
        assert!(rate_limit_429_applies(None, day));
        assert!(rate_limit_429_applies(Some(&Features::default()), day));
    }

    #[test]
    fn a_deprecation_link_is_joined_after_an_existing_paging_link() {
        let mut h = HeaderMap::new();
        h.insert(
            LINK,
            HeaderValue::from_static("<http://h/v2/customers?page_info=a>; rel=\"next\""),
        );
        add_link(&mut h, "<https://docs/x>; rel=\"deprecation\"");
        assert_eq!(h.get_all(LINK).iter().count(), 1);
        assert_eq!(
            h.get(LINK).unwrap(),
            "<http://h/v2/customers?page_info=a>; rel=\"next\", <https://docs/x>; rel=\"deprecation\""
        );
    }
}
