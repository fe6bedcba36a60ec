//! The customer tracking page, `GET /track/{token}`: public (the random token is the
//! credential), outside `/v2`, HTML. It shows the order number, its status in plain words,
//! the ETA window while the visit is ahead and the proof-of-delivery time once delivered —
//! nothing else (no other stops, no driver position, no addresses). Every value is
//! HTML-escaped, and a Content-Security-Policy allows nothing but the page's own style sheet.

use std::sync::OnceLock;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use base64::Engine;
use dispatch_core::service::tracking::{self, EtaWindow, Progress, TrackingPage};
use sha2::{Digest, Sha256};
use tower_http::catch_panic::CatchPanicLayer;
use utoipa_axum::routes;

use crate::auth::LoggedDepot;
use crate::v2::plan_render::clock;
use crate::v2::registry::{ApiRoutes, Parts};
use crate::AppState;

const STYLE: &str =
    "body{font-family:system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}\
main{max-width:28rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:.75rem;\
box-shadow:0 1px 4px rgba(0,0,0,.12)}h1{font-size:1.4rem;margin:0 0 1rem}\
.status{font-size:1.25rem;font-weight:600;margin:.5rem 0;padding:.6rem .8rem;border-radius:.5rem;\
background:#e8eefc;color:#1b3f99}.status-delivered{background:#e3f6e8;color:#17652f}\
.status-not-delivered{background:#fdeaea;color:#8a1c1c}.muted{color:#5b6475;font-size:.9rem}\
.late{background:#fff4d6;color:#6b4a00;padding:.4rem .6rem;border-radius:.4rem}";

/// The page's route, registered through [`ApiRoutes`] like every documented route.
pub fn api() -> Parts {
    ApiRoutes::new().routes(routes!(page)).into_parts()
}

/// The page's route (with its own panic net: it sits outside the API's envelope layers).
pub fn routes(state: AppState) -> Router {
    api().router.layer(CatchPanicLayer::new()).with_state(state)
}

/// `style-src` allows exactly [`STYLE`], by its hash.
fn content_security_policy() -> &'static str {
    static CSP: OnceLock<String> = OnceLock::new();
    CSP.get_or_init(|| {
        let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(STYLE));
        format!(
            "default-src 'none'; style-src 'sha256-{hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        )
    })
}

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn document(title: &str, body: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"robots\" content=\"noindex\"><title>{}</title><style>{STYLE}</style></head>\
         <body><main>{body}</main></body></html>\n",
        escape(title)
    )
}

fn headline(p: Progress) -> (&'static str, &'static str) {
    match p {
        Progress::Received => ("Order received", "status"),
        Progress::Scheduled => ("Scheduled for delivery", "status"),
        Progress::OnItsWay => ("On its way", "status"),
        Progress::Delivered => ("Delivered", "status status-delivered"),
        Progress::NotDelivered => ("Not delivered", "status status-not-delivered"),
    }
}

fn eta_line(w: &EtaWindow) -> String {
    format!(
        "<p class=\"eta\">Expected on <time>{}</time> between <time>{}</time> and <time>{}</time>.</p>",
        escape(&w.date.to_string()),
        clock(w.from_s),
        clock(w.to_s)
    )
}

/// The page of one order.
pub fn render(page: &TrackingPage) -> String {
    let (words, class) = headline(page.progress);
    let mut body = format!(
        "<h1>Your delivery</h1><p>Order <strong id=\"order-number\">{}</strong></p>\
         <p id=\"status\" class=\"{class}\">{words}</p>",
        escape(&page.order_number)
    );
    if let Some(w) = &page.eta {
        if page.running_late {
            body.push_str(
                "<p id=\"late\" class=\"late\" role=\"status\">Running late: the expected time \
                 has moved.</p>",
            );
        }
        body.push_str(&eta_line(w));
    }
    if let Some(at) = page.delivered_at {
        let full = at.to_string();
        body.push_str(&format!(
            "<p class=\"pod\">Delivered on <time datetime=\"{}\">{} at {} UTC</time>.</p>",
            escape(&full),
            escape(full.get(..10).unwrap_or_default()),
            escape(full.get(11..16).unwrap_or_default()),
        ));
    }
    body.push_str(&format!(
        "<p class=\"muted\">Status code: {}</p>",
        escape(&page.status)
    ));
    document(&format!("Delivery {}", page.order_number), &body)
}

fn html(status: StatusCode, text: String) -> Response {
    let mut r = (status, text).into_response();
    let h = r.headers_mut();
    let fixed: [(HeaderName, &'static str); 6] = [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::CACHE_CONTROL, "no-store"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (HeaderName::from_static("x-robots-tag"), "noindex"),
    ];
    for (name, value) in fixed {
        h.insert(name, HeaderValue::from_static(value));
    }
    if let Ok(csp) = HeaderValue::from_str(content_security_policy()) {
        h.insert(header::CONTENT_SECURITY_POLICY, csp);
    }
    r
}

#[utoipa::path(get, path = "/track/{token}", tag = "tracking", summary = "The customer's tracking page of one order (HTML).", description = "Public: the random token of the order's tracking link is the credential. Shows the order number, its status in plain words, the ETA window while the visit is ahead and the proof-of-delivery time once delivered; nothing else. Every answer is an HTML page (errors too), with a Content-Security-Policy, `no-store` and `noindex`.", params(("token" = String, Path, description = "The tracking token (32 hex digits) from the order's `tracking_url`.")), responses((status = 200, description = "The tracking page.", content_type = "text/html", body = String), (status = 404, description = "An unknown token: a short page saying the link is not valid.", content_type = "text/html", body = String), (status = 503, description = "The store is unavailable: a page asking to try again shortly.", content_type = "text/html", body = String)))]
async fn page(
    State(state): State<AppState>,
    token: Result<Path<String>, PathRejection>,
) -> Response {
    // A segment that does not decode to text (`%FF`) is no token either: the same page.
    let token = token.map_or_else(|_| String::new(), |Path(t)| t);
    let found = state
        .blocking(move |s| Ok(tracking::page(&*s.store, &token)?))
        .await;
    match found {
        Ok(Some(page)) => {
            let mut response = html(StatusCode::OK, render(&page));
            response
                .extensions_mut()
                .insert(LoggedDepot(page.depot_id));
            response
        }
        Ok(None) => html(
            StatusCode::NOT_FOUND,
            document(
                "Tracking link not found",
                "<h1>Tracking link not found</h1><p>This tracking link is not valid. Please check the link in your message.</p>",
            ),
        ),
        Err(e) => {
            tracing::error!(error = ?e, "tracking page failed");
            html(
                StatusCode::SERVICE_UNAVAILABLE,
                document(
                    "Try again shortly",
                    "<h1>Try again shortly</h1><p>Tracking is unavailable right now.</p>",
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dispatch_core::time::{Date, Timestamp};

    #[test]
    fn every_value_is_escaped() {
        let page = TrackingPage {
            order_number: "<script>alert('x')</script>&\"".into(),
            status: "<b>".into(),
            progress: Progress::Scheduled,
            eta: Some(EtaWindow::around(
                Date::parse("2026-11-24").unwrap(),
                36_000,
            )),
            running_late: true,
            delivered_at: Some(Timestamp::from_millis(0)),
            depot_id: 1,
        };
        let html = render(&page);
        assert!(!html.contains("<script>"));
        assert!(!html.contains("<b>"));
        assert!(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;&quot;"));
        assert!(html.contains("between <time>09:30</time> and <time>10:30</time>"));
        assert!(html.contains("Running late"));
    }

    #[test]
    fn the_policy_allows_only_the_pages_own_style() {
        let csp = content_security_policy();
        assert!(csp.starts_with("default-src 'none'; style-src 'sha256-"));
        assert!(!csp.contains("unsafe"));
    }
}
