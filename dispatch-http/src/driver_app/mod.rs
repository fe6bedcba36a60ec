//! The driver's app, `GET /driver-app/`: a progressive web app over the driver API
//! (`docs/driver-api.md`, "The driver's app"). Static files embedded in the binary — HTML, CSS,
//! ES modules (no build step), the manifest, the service worker and two icons — served with
//! entity tags so a phone revalidates instead of downloading again. The app itself holds the
//! driver credential (from the link's fragment or typed in) and calls `/driver/...` by
//! relative URLs, so a proxy may mount the service under a path prefix; nothing here needs a
//! credential, and no credential reaches a URL the server sees.
//!
//! The page lives at `/driver-app/` (with the slash: the service worker's scope is the
//! folder, and a page outside its scope would not open offline); `/driver-app` redirects there.

use std::sync::Arc;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use sha2::{Digest, Sha256};
use tower_http::catch_panic::CatchPanicLayer;

pub mod handover;

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const HTML: &str = "text/html; charset=utf-8";
const PNG: &str = "image/png";
const MANIFEST: &str = "application/manifest+json";

/// The service worker, with `{{VERSION}}` and `{{SHELL}}` filled in when the router is built.
const SERVICE_WORKER: &str = include_str!("assets/sw.js");

/// Every file of the app but the worker: name under `/driver-app/` (`""` is the page), content
/// type, bytes. The worker keeps all of them for offline use.
const FILES: &[(&str, &str, &[u8])] = &[
    ("", HTML, include_bytes!("assets/index.html")),
    ("app.css", CSS, include_bytes!("assets/app.css")),
    (
        "manifest.webmanifest",
        MANIFEST,
        include_bytes!("assets/manifest.webmanifest"),
    ),
    ("icon-192.png", PNG, include_bytes!("assets/icon-192.png")),
    ("icon-512.png", PNG, include_bytes!("assets/icon-512.png")),
    ("js/main.js", JS, include_bytes!("assets/js/main.js")),
    ("js/api.js", JS, include_bytes!("assets/js/api.js")),
    ("js/db.js", JS, include_bytes!("assets/js/db.js")),
    ("js/html.js", JS, include_bytes!("assets/js/html.js")),
    ("js/state.js", JS, include_bytes!("assets/js/state.js")),
    ("js/status.js", JS, include_bytes!("assets/js/status.js")),
    ("js/outbox.js", JS, include_bytes!("assets/js/outbox.js")),
    (
        "js/position.js",
        JS,
        include_bytes!("assets/js/position.js"),
    ),
    ("js/forms.js", JS, include_bytes!("assets/js/forms.js")),
    ("js/views.js", JS, include_bytes!("assets/js/views.js")),
    ("js/stop.js", JS, include_bytes!("assets/js/stop.js")),
];

const APP: &str = "/driver-app";
const APP_SLASH: &str = "/driver-app/";
const FILE_ROUTE: &str = "/driver-app/{*path}";

/// The app's page routes (static files; not API operations).
pub fn page_paths() -> [&'static str; 3] {
    [APP, APP_SLASH, FILE_ROUTE]
}

/// The path of the app under the service's public address, for links handed to drivers.
pub const APP_PATH: &str = APP_SLASH;

/// A served file: its bytes, content type and entity tag.
struct File {
    name: String,
    content_type: &'static str,
    bytes: Vec<u8>,
    etag: HeaderValue,
}

/// A strong entity tag: the start of the bytes' SHA-256.
fn etag(bytes: &[u8]) -> HeaderValue {
    let digest = Sha256::digest(bytes);
    HeaderValue::from_str(&format!("\"{}\"", hex::encode(&digest[..12])))
        .expect("hex digits are a valid header value")
}

/// The files as served, the worker last, filled in with the version of all the others.
fn files() -> Vec<File> {
    let mut all: Vec<File> = FILES
        .iter()
        .map(|(name, content_type, bytes)| File {
            name: (*name).to_owned(),
            content_type,
            bytes: bytes.to_vec(),
            etag: etag(bytes),
        })
        .collect();
    let mut version = Sha256::new();
    for f in &all {
        version.update(f.name.as_bytes());
        version.update(&f.bytes);
    }
    let shell: Vec<String> = FILES
        .iter()
        .map(|(name, _, _)| if name.is_empty() { "./" } else { name }.to_owned())
        .collect();
    let worker = SERVICE_WORKER
        .replace("{{VERSION}}", &hex::encode(&version.finalize()[..8]))
        .replace(
            "{{SHELL}}",
            &serde_json::to_string(&shell).expect("names serialise"),
        )
        .into_bytes();
    all.push(File {
        name: "sw.js".into(),
        content_type: JS,
        etag: etag(&worker),
        bytes: worker,
    });
    all
}

/// Scripts, styles, the manifest and the worker from the service itself; images also as
/// `blob:`/`data:` (the signature pad's and the camera's, shown before upload); calls only to
/// the service. Never framed.
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' blob: data:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; \
     base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The app's routes (with their own panic net: they sit outside the API's envelope layers).
pub fn routes() -> Router {
    let files = Arc::new(files());
    Router::new()
        .route(APP, get(|| async { to_folder() }))
        .route(
            APP_SLASH,
            get({
                let files = files.clone();
                move |headers: HeaderMap| async move { serve(&files, "", &headers) }
            }),
        )
        .route(
            FILE_ROUTE,
            get(
                move |Path(path): Path<String>, headers: HeaderMap| async move {
                    serve(&files, &path, &headers)
                },
            ),
        )
        .layer(CatchPanicLayer::new())
}

/// `/driver-app` would resolve the page's relative URLs one level too high.
fn to_folder() -> Response {
    (
        StatusCode::PERMANENT_REDIRECT,
        [(header::LOCATION, "driver-app/")],
    )
        .into_response()
}

fn with_headers(mut response: Response, content_type: &'static str) -> Response {
    let h = response.headers_mut();
    let fixed: [(HeaderName, &'static str); 6] = [
        (header::CONTENT_TYPE, content_type),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        // The files change with the binary: the browser (and the worker's install) revalidates
        // by entity tag before each use.
        (header::CACHE_CONTROL, "no-cache"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (header::CONTENT_SECURITY_POLICY, CONTENT_SECURITY_POLICY),
    ];
    for (name, value) in fixed {
        h.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// A file, or 304 when the browser's copy (`If-None-Match`) is current.
fn serve(files: &[File], path: &str, request: &HeaderMap) -> Response {
    let Some(file) = files.iter().find(|f| f.name == path) else {
        // The same 404 envelope as every other unknown path of the service.
        return with_headers(
            crate::rejection::unknown_path_error(&Method::GET, &format!("{APP_SLASH}{path}"))
                .into_response(),
            "application/json",
        );
    };
    let current = request
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == "*" || t.trim().as_bytes() == file.etag.as_bytes());
    let mut response = if current {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        file.bytes.clone().into_response()
    };
    response
        .headers_mut()
        .insert(header::ETAG, file.etag.clone());
    with_headers(response, file.content_type)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_worker_keeps_every_file_of_the_app_and_names_its_version() {
        let all = files();
        let worker = String::from_utf8(all.last().unwrap().bytes.clone()).unwrap();
        assert!(!worker.contains("{{"), "{worker}");
        for (name, _, _) in FILES {
            let shown = if name.is_empty() { "./" } else { name };
            assert!(worker.contains(&format!("\"{shown}\"")), "{shown} not kept");
        }
    }

    #[test]
    fn every_module_the_app_imports_is_served() {
        for (name, content_type, bytes) in FILES {
            if *content_type != JS {
                continue;
            }
            let text = std::str::from_utf8(bytes).unwrap();
            for line in text.lines().filter(|l| l.starts_with("import ")) {
                let from = line.rsplit(['"', '\'']).nth(1).unwrap_or_default();
                let target = format!("js/{}", from.trim_start_matches("./"));
                assert!(
                    from.starts_with("./") && FILES.iter().any(|(n, _, _)| *n == target),
                    "{name} imports {from}, which is not served"
                );
            }
        }
    }

    #[test]
    fn the_page_and_the_manifest_need_nothing_from_elsewhere() {
        for (name, _, bytes) in FILES {
            if let Ok(text) = std::str::from_utf8(bytes) {
                // Links the driver may follow (directions) are not loads; nothing else names
                // another host.
                for (i, _) in text.match_indices("https://") {
                    let rest = &text[i..];
                    // The scheme named in words ("an https:// link") is not an address.
                    if !rest[8..].starts_with(|c: char| c.is_ascii_alphanumeric()) {
                        continue;
                    }
                    assert!(
                        rest.starts_with("https://www.openstreetmap.org/directions"),
                        "{name} refers to {}",
                        &rest[..rest.len().min(60)]
                    );
                }
                assert!(!text.contains("http://"), "{name}");
            }
        }
    }
}
