//! The service's public base URL (`serve --public-url`): the one source of every absolute URL
//! the service emits — paging `Link` next URLs, image URLs, tracking links.
//!
//! Never a request header: `Host` and `X-Forwarded-Host`/`-Proto` are whatever the client
//! sends, so building a URL from them lets anyone make the service hand out links to a host of
//! their choosing (and, once links go into e-mails and SMS, send customers there). Call
//! [`PublicUrl::absolute_url`] (reachable as `state.public_url`) for any URL that leaves the
//! service.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::extract::FromRef;

use crate::AppState;

/// A validated base URL: `http` or `https`, a host, an optional path prefix (a service mounted
/// under a path behind a proxy), no credentials, query or fragment; kept without a trailing
/// slash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicUrl(Arc<str>);

impl PublicUrl {
    /// Reads and validates `--public-url`; the error says what is wrong, for the operator.
    pub fn parse(text: &str) -> Result<PublicUrl, String> {
        let url = url::Url::parse(text.trim())
            .map_err(|e| format!("`{text}` is not an absolute URL ({e})"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("`{text}` must start with http:// or https://"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(format!("`{text}` has no host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err(format!("`{text}` must not carry a user name or password"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!("`{text}` must not have a query or fragment"));
        }
        Ok(PublicUrl(url.as_str().trim_end_matches('/').into()))
    }

    /// The default: `http://` and the address the listener is bound to (with the real port
    /// when `--listen` asked for port 0).
    pub fn for_listen_addr(addr: SocketAddr) -> PublicUrl {
        PublicUrl(format!("http://{addr}").into())
    }

    /// The base itself, e.g. `https://dispatch.example.com` or `https://example.com/dispatch`.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The base with `path` (already percent-encoded) appended: a base for URLs under it.
    pub fn join(&self, path: &str) -> PublicUrl {
        PublicUrl(self.absolute_url(path).trim_end_matches('/').into())
    }

    /// The absolute URL of `path_and_query` (e.g. `/v2/orders?page_info=...`), which must be
    /// percent-encoded already: the base, then the path (a `/` is put in front when missing).
    /// The result is ASCII when the argument is, so it fits a header value.
    pub fn absolute_url(&self, path_and_query: &str) -> String {
        let slash = if path_and_query.starts_with('/') {
            ""
        } else {
            "/"
        };
        format!("{}{slash}{path_and_query}", self.0)
    }
}

/// `http://127.0.0.1:8080`, the base for the default `--listen` address (in-process tests and
/// benchmarks that never listen).
impl Default for PublicUrl {
    fn default() -> PublicUrl {
        PublicUrl::for_listen_addr(SocketAddr::from(([127, 0, 0, 1], 8080)))
    }
}

impl FromRef<AppState> for PublicUrl {
    fn from_ref(state: &AppState) -> PublicUrl {
        state.public_url.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_public_url_is_http_or_https_with_a_host_and_nothing_after_its_path() {
        for good in [
            "http://127.0.0.1:8080",
            "https://dispatch.example.com/",
            "https://example.com/dispatch/",
            "http://[::1]:9000",
        ] {
            let url = PublicUrl::parse(good).unwrap();
            assert!(!url.as_str().ends_with('/'), "{good}");
        }
        assert_eq!(
            PublicUrl::parse("https://Example.COM/base/")
                .unwrap()
                .absolute_url("/v2/orders?a=1"),
            "https://example.com/base/v2/orders?a=1"
        );
        for bad in [
            "",
            "example.com",
            "/v2",
            "ftp://example.com",
            "javascript:alert(1)",
            "https://user:pw@example.com",
            "https://example.com/?x=1",
            "https://example.com/#top",
            "http://",
        ] {
            let err = PublicUrl::parse(bad).unwrap_err();
            assert!(err.contains(&format!("`{bad}`")), "{bad}: {err}");
        }
    }

    #[test]
    fn the_default_is_http_on_the_bound_address() {
        let url = PublicUrl::for_listen_addr("[::1]:4321".parse().unwrap());
        assert_eq!(url.absolute_url("v2/x"), "http://[::1]:4321/v2/x");
        assert_eq!(PublicUrl::default().as_str(), "http://127.0.0.1:8080");
    }
}
