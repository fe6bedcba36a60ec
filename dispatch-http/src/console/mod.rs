//! The web console, `GET /console`: the dispatcher's board for one day — the plans of a date,
//! each route on a map and on a timeline, the unassigned orders, live progress from the
//! drivers, and the dispatcher's actions (optimise, move orders by drag and drop or "Move
//! to…", dispatch, reverse, lock). See docs/console.md.
//!
//! The page is a plain client of the v2 API: the user types an access key into the page, which
//! keeps it in `sessionStorage` and sends it as `x-access-key` (never in a URL), so the console
//! itself needs no credential and serves static files — and, behind the same key, where the
//! depot is ([`depot`]: the v2 depot has no position), and what the v2 reads lack for a board
//! ([`day`]: the day's orders with their windows and demand, the vans' last positions; [`roads`]:
//! each route's line along the roads; [`breaks`]: where each route's driver takes the break).
//! Everything is embedded in the binary (`include_str!`/`include_bytes!`): HTML, CSS, ES
//! modules (no build step) and Leaflet, vendored from the npm registry (`assets/vendor/leaflet/README.md`). The page works offline:
//! without `--tile-url` the map has no base layer and the routes draw on a grid with a scale.
//!
//! Files are served at `/console/assets/...` and the page refers to them, and to the API,
//! by relative URLs, so a proxy may mount the service under a path prefix.

use std::sync::Arc;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use sha2::{Digest, Sha256};
use tower_http::catch_panic::CatchPanicLayer;

pub mod breaks;
mod config;
pub mod day;
pub mod depot;
mod query;
pub mod roads;

pub use config::{ConsoleConfig, TileUrl};

use crate::tracking::escape;
use crate::AppState;

/// The page, with `{{TILE_URL}}` and `{{TILE_ATTRIBUTION}}` filled in per configuration.
const INDEX: &str = include_str!("assets/index.html");

/// Every file under `/console/assets/`: name, content type, bytes.
const ASSETS: &[(&str, &str, &[u8])] = &[
    ("console.css", CSS, include_bytes!("assets/console.css")),
    ("js/main.js", JS, include_bytes!("assets/js/main.js")),
    ("js/api.js", JS, include_bytes!("assets/js/api.js")),
    ("js/day.js", JS, include_bytes!("assets/js/day.js")),
    ("js/map.js", JS, include_bytes!("assets/js/map.js")),
    ("js/panel.js", JS, include_bytes!("assets/js/panel.js")),
    ("js/format.js", JS, include_bytes!("assets/js/format.js")),
    ("js/model.js", JS, include_bytes!("assets/js/model.js")),
    ("js/rules.js", JS, include_bytes!("assets/js/rules.js")),
    (
        "js/timeline.js",
        JS,
        include_bytes!("assets/js/timeline.js"),
    ),
    (
        "js/unassigned.js",
        JS,
        include_bytes!("assets/js/unassigned.js"),
    ),
    ("js/details.js", JS, include_bytes!("assets/js/details.js")),
    ("js/moves.js", JS, include_bytes!("assets/js/moves.js")),
    ("js/actions.js", JS, include_bytes!("assets/js/actions.js")),
    (
        "js/optimise.js",
        JS,
        include_bytes!("assets/js/optimise.js"),
    ),
    (
        "vendor/leaflet/leaflet-src.esm.js",
        JS,
        include_bytes!("assets/vendor/leaflet/leaflet-src.esm.js"),
    ),
    (
        "vendor/leaflet/leaflet.css",
        CSS,
        include_bytes!("assets/vendor/leaflet/leaflet.css"),
    ),
];

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// What the handlers share: the page and its policy, fixed when the router is built.
struct Page {
    html: String,
    csp: HeaderValue,
    /// The entity tag of each of [`ASSETS`], in order.
    etags: Vec<HeaderValue>,
}

/// A strong entity tag: the start of the file's SHA-256.
fn etag(bytes: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(bytes);
    HeaderValue::from_str(&format!("\"{}\"", hex::encode(&digest[..12])))
        .expect("hex digits are a valid header value")
}

/// The console's page routes (its depot read, [`depot`], is documented with the API).
pub fn page_paths() -> [&'static str; 3] {
    [CONSOLE, CONSOLE_SLASH, ASSET_ROUTE]
}

const CONSOLE: &str = "/console";
const CONSOLE_SLASH: &str = "/console/";
const ASSET_ROUTE: &str = "/console/assets/{*path}";

/// The console's routes (with their own panic net: they sit outside the API's envelope layers).
pub fn routes(config: &ConsoleConfig, state: AppState) -> Router {
    let page = Arc::new(Page {
        html: render_index(config),
        csp: HeaderValue::from_str(&content_security_policy(config))
            .expect("the policy is built from validated parts"),
        etags: ASSETS.iter().map(|(_, _, bytes)| etag(bytes)).collect(),
    });
    let (index_page, asset_page) = (page.clone(), page);
    Router::new()
        .route(CONSOLE, get(move || async move { index(&index_page) }))
        .route(CONSOLE_SLASH, get(|| async { to_console() }))
        .route(
            ASSET_ROUTE,
            get(
                move |Path(path): Path<String>, headers: HeaderMap| async move {
                    asset(&asset_page, &path, &headers)
                },
            ),
        )
        .merge(depot::routes(state))
        .layer(CatchPanicLayer::new())
}

fn render_index(config: &ConsoleConfig) -> String {
    INDEX
        .replace(
            "{{TILE_URL}}",
            &escape(config.tile_url.as_ref().map_or("", TileUrl::template)),
        )
        .replace(
            "{{TILE_ATTRIBUTION}}",
            &escape(config.tile_attribution.as_deref().unwrap_or("")),
        )
}

/// Scripts, styles and data only from the service itself; images also from the tile server.
/// The page may be framed only by pages of the same origin.
fn content_security_policy(config: &ConsoleConfig) -> String {
    let tiles = config
        .tile_url
        .as_ref()
        .map_or(String::new(), |t| format!(" {}", t.csp_source()));
    format!(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'{tiles}; \
         connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
    )
}

fn with_headers(mut response: Response, page: &Page, content_type: &'static str) -> Response {
    let h = response.headers_mut();
    let fixed: [(HeaderName, &'static str); 5] = [
        (header::CONTENT_TYPE, content_type),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        // The files change with the binary: a browser revalidates (by ETag) before each use.
        (header::CACHE_CONTROL, "no-cache"),
        (header::X_FRAME_OPTIONS, "SAMEORIGIN"),
    ];
    for (name, value) in fixed {
        h.insert(name, HeaderValue::from_static(value));
    }
    h.insert(header::CONTENT_SECURITY_POLICY, page.csp.clone());
    response
}

fn index(page: &Page) -> Response {
    with_headers(
        page.html.clone().into_response(),
        page,
        "text/html; charset=utf-8",
    )
}

/// `/console/` would resolve the page's relative URLs one level too deep.
fn to_console() -> Response {
    (
        StatusCode::PERMANENT_REDIRECT,
        [(header::LOCATION, "../console")],
    )
        .into_response()
}

/// A file, or 304 when the browser's copy (`If-None-Match`) is current.
fn asset(page: &Page, path: &str, request: &HeaderMap) -> Response {
    match ASSETS.iter().position(|(name, _, _)| *name == path) {
        Some(i) => {
            let (_, content_type, bytes) = ASSETS[i];
            let tag = &page.etags[i];
            let current = request
                .get_all(header::IF_NONE_MATCH)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .any(|t| t.trim() == "*" || t.trim().as_bytes() == tag.as_bytes());
            let mut response = if current {
                StatusCode::NOT_MODIFIED.into_response()
            } else {
                bytes.into_response()
            };
            response.headers_mut().insert(header::ETAG, tag.clone());
            with_headers(response, page, content_type)
        }
        // The same 404 envelope as every other unknown path of the service.
        None => with_headers(
            crate::rejection::unknown_path_error(&Method::GET, &format!("/console/assets/{path}"))
                .into_response(),
            page,
            "application/json",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_gets_the_tile_settings_escaped_and_the_policy_allows_their_host() {
        let config = ConsoleConfig {
            tile_url: Some(
                TileUrl::parse("https://{s}.tiles.example.org/{z}/{x}/{y}.png").unwrap(),
            ),
            tile_attribution: Some("© <Example> & co".into()),
        };
        let html = render_index(&config);
        assert!(html.contains("https://{s}.tiles.example.org/{z}/{x}/{y}.png"));
        assert!(html.contains("© &lt;Example&gt; &amp; co"));
        assert!(!html.contains("{{"));
        let csp = content_security_policy(&config);
        assert!(
            csp.contains("img-src 'self' https://*.tiles.example.org;"),
            "{csp}"
        );
    }

    #[test]
    fn without_tiles_the_page_needs_nothing_from_elsewhere() {
        let config = ConsoleConfig::default();
        let html = render_index(&config);
        assert!(!html.contains("{{"));
        assert!(
            !html.contains("http://") && !html.contains("https://"),
            "{html}"
        );
        let csp = content_security_policy(&config);
        assert!(csp.contains("img-src 'self';"), "{csp}");
        assert!(!csp.contains("http"), "{csp}");
    }

    #[test]
    fn every_embedded_script_is_served_and_imports_only_relative_modules() {
        for (name, content_type, bytes) in ASSETS {
            assert!(!bytes.is_empty(), "{name}");
            if *content_type == JS && name.starts_with("js/") {
                let text = std::str::from_utf8(bytes).unwrap();
                for line in text.lines().filter(|l| l.starts_with("import ")) {
                    let from = line.rsplit(['"', '\'']).nth(1).unwrap_or_default();
                    assert!(
                        from.starts_with("./") || from.starts_with("../"),
                        "{name}: {line}"
                    );
                    let target = if let Some(rest) = from.strip_prefix("../") {
                        rest.to_owned()
                    } else {
                        format!("js/{}", from.trim_start_matches("./"))
                    };
                    assert!(
                        ASSETS.iter().any(|(n, _, _)| *n == target),
                        "{name} imports {from}, which is not served"
                    );
                }
            }
        }
    }
}
