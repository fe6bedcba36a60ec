//! URLs as they may be shown: in logs, in error messages, in a notification task's `sender`.
//!
//! An operator's URLs can carry credentials (`http://user:password@host/...`) or tokens in the
//! query (`?api_key=...`), and an HTTP client's errors name the URL they failed on. Whatever is
//! logged or sent back names the server and path only, so no password reaches a log line or an
//! API answer.

/// `url` without its user information, query and fragment (`scheme://host[:port]/path`); a
/// string that is not a URL with a host is shown as `(not a URL)`, since it may be all secret
/// (`user:password@host` parses as the scheme `user` and a path).
pub fn url(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.host().is_some() => {
            strip(&mut parsed);
            parsed.to_string()
        }
        _ => "(not a URL)".to_owned(),
    }
}

/// `error` naming its URL as [`url()`] shows it.
pub fn reqwest_error(mut error: reqwest::Error) -> reqwest::Error {
    if let Some(url) = error.url_mut() {
        strip(url);
    }
    error
}

fn strip(url: &mut url::Url) {
    // Both fail only for URLs that cannot have credentials (`data:`, `mailto:`): nothing to
    // take away there.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    url.set_fragment(None);
}

#[cfg(test)]
mod tests {
    #[test]
    fn credentials_query_and_fragment_are_taken_away() {
        assert_eq!(
            super::url("https://sms:pa55@gateway.example:8443/send?api_key=k3y#x"),
            "https://gateway.example:8443/send"
        );
        assert_eq!(
            super::url("http://127.0.0.1:9/hook"),
            "http://127.0.0.1:9/hook"
        );
        assert_eq!(super::url("user:pa55@host"), "(not a URL)");
        assert_eq!(super::url("no url at all"), "(not a URL)");
    }
}
