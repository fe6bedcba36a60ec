//! The document's paths against the router: every route served is documented and nothing else
//! is (from the registrations the router is built of, and from the source: no route joins the
//! router any other way), each at the server it is served under.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use axum::body::Body;
use axum::http::{Method, Request};
use serde_json::Value;

use crate::common::TestApp;
use crate::contract;

use super::openapi::served_document;

/// Every path the router serves through the documented groups (`/v2`, the driver API, the
/// tracking page, `/healthz` and `/metrics`, the console's depot read), in full: the
/// registrations it is built from (`openapi::groups()`; a route can join them only through
/// `ApiRoutes`, which takes handlers with their `#[utoipa::path]`), not a hand-written list.
fn served_paths() -> BTreeSet<String> {
    dispatch_http::openapi::served_paths().into_iter().collect()
}

/// The document's paths in full: each under its server (`/v2`, or `/` for the driver and
/// tracking paths), as "Try it out" and client generators call them.
fn documented_paths(doc: &Value) -> BTreeSet<String> {
    doc["paths"]
        .as_object()
        .unwrap()
        .keys()
        .map(|key| format!("{}{key}", contract::server_base(doc, key)))
        .collect()
}

#[tokio::test]
async fn every_route_the_router_serves_is_documented_and_nothing_else() {
    let app = TestApp::new();
    let doc = served_document(&app).await;
    let documented = documented_paths(&doc);
    let served = served_paths();
    assert!(served.len() > 60, "{served:?}");
    for expected in [
        "/driver/me",
        "/track/{token}",
        "/healthz",
        "/metrics",
        "/console/depot",
    ] {
        assert!(served.contains(expected), "{expected}");
    }
    assert_eq!(served, documented, "paths served vs documented");
    // The rest of the router is pages (`/docs`, `/console` and their embedded files): none is
    // an API path, and each serves a page or a file, not JSON.
    let pages = dispatch_http::openapi::pages();
    assert!(pages.len() >= 7, "{pages:?}");
    for page in &pages {
        assert!(
            !documented.contains(page),
            "{page} is a page and documented"
        );
        let file = if page.starts_with("/driver-app") {
            "app.css"
        } else {
            "console.css"
        };
        let uri = page.replace("{*path}", file);
        let request = Request::builder()
            .uri(uri.as_str())
            .body(Body::empty())
            .unwrap();
        let response = tower::ServiceExt::oneshot(app.router.clone(), request)
            .await
            .unwrap();
        let status = response.status().as_u16();
        assert!(status == 200 || status == 308, "{page}: {status}");
        if status == 200 {
            let kind = response.headers()["content-type"].to_str().unwrap();
            assert!(!kind.starts_with("application/json"), "{page}: {kind}");
        }
    }
    // Methods: a documented one reaches the route (401 without a key or credential, 200 for
    // the document, the tracking page's 404 for an unknown token), an undocumented one gets
    // the router's 405.
    for key in doc["paths"].as_object().unwrap().keys() {
        let path = format!("{}{key}", contract::server_base(&doc, key));
        let concrete = path
            .replace("{status}", "RETURNED")
            .replace("{order_number}", "A-1");
        let concrete = concrete
            .split('/')
            .map(|s| if s.starts_with('{') { "1" } else { s })
            .collect::<Vec<_>>()
            .join("/");
        for method in ["get", "put", "post", "delete", "patch"] {
            let mut request = Request::builder()
                .method(method.to_uppercase().as_str())
                .uri(concrete.as_str());
            // The console's reads check the key before the method: with the key (and the
            // date its day reads require) they answer 200, and 405 for the other methods; the
            // roads and breaks of a plan that does not exist, 404.
            let keyed = path.starts_with("/console/");
            if keyed {
                request = request.header("x-access-key", app.north());
                if path == "/console/roads" || path == "/console/breaks" {
                    request = request.uri(format!("{concrete}?plan=999999"));
                } else if path != "/console/depot" {
                    request = request.uri(format!("{concrete}?date=2026-11-24"));
                }
            }
            let request = request.body(Body::empty()).unwrap();
            // Not through `app.send`: the tracking page answers HTML.
            let status = tower::ServiceExt::oneshot(app.router.clone(), request)
                .await
                .unwrap()
                .status()
                .as_u16();
            let documented = doc["paths"][key].get(method).is_some();
            if documented {
                let public = ((keyed
                    || ["/v2/openapi.json", "/healthz", "/metrics"].contains(&path.as_str()))
                    && status == 200)
                    || ((path == "/track/{token}"
                        || path == "/console/roads"
                        || path == "/console/breaks")
                        && status == 404);
                assert!(
                    status == 401 || (public && method == "get"),
                    "{method} {path}: {status}"
                );
            } else {
                assert_eq!(status, 405, "{method} {path} is served but not documented");
            }
        }
    }
}

/// "Try it out" and generated clients call a path at its server: the paths outside `/v2`
/// (driver API, tracking page, `/healthz`, `/metrics`, `/console/depot`) carry their own
/// (`/`), so they are not sent under `/v2`; the `/v2` ones use the document's.
#[tokio::test]
async fn paths_outside_v2_carry_the_server_they_are_served_at() {
    let app = TestApp::new();
    let doc = served_document(&app).await;
    assert_eq!(doc["servers"][0]["url"], "/v2");
    let mut under_v2 = dispatch_http::v2::api().served_paths();
    under_v2.push(dispatch_http::openapi::DOCUMENT_PATH.to_owned());
    for (key, item) in doc["paths"].as_object().unwrap() {
        let own = item["servers"][0]["url"].as_str();
        if under_v2.contains(key) {
            assert_eq!(own, None, "{key}");
        } else {
            assert_eq!(own, Some("/"), "{key}");
        }
    }
    // Served where documented: the driver API answers its own 401 at /driver/me, and nothing
    // is served at /v2/driver/me.
    let r = app.call(Method::GET, "/driver/me", None, None).await;
    assert_eq!(r.status, 401, "{:#}", r.body);
    let r = app.call(Method::GET, "/v2/driver/me", None, None).await;
    assert_eq!(r.status, 404, "{:#}", r.body);
}

/// Where the source adds a route to a router other than through `ApiRoutes` (which documents
/// what it registers), and how often: the document route, the pages of `/docs`, the console and
/// the driver's app
/// (each built from the list [`dispatch_http::openapi::pages`] gives), the `/v2` nest, the
/// aliases `ApiRoutes` registers beside their documented path, and `POST /vroom` (VROOM's
/// interface, not the v2 API's: off by default, documented in docs/vroom.md). Anything else would be served
/// without being in the document, so this list must change with it, on purpose.
const RAW_ROUTES: &[(&str, usize)] = &[
    ("console/mod.rs", 3),
    ("driver_app/mod.rs", 3),
    ("lib.rs", 1),
    ("openapi/docs.rs", 4),
    ("openapi/mod.rs", 1),
    ("v2/registry.rs", 1),
    ("vroom_api.rs", 1),
];

/// `(file, count)` of the raw route registrations under `dir` (test code aside).
fn raw_routes(root: &Path, dir: &Path, found: &mut Vec<(String, usize)>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            raw_routes(root, &path, found);
            continue;
        }
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("tests.rs") {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap();
        let count = [".route(", ".route_service(", ".nest(", ".nest_service("]
            .iter()
            .map(|call| code.matches(call).count())
            .sum::<usize>();
        if count > 0 {
            let name = path.strip_prefix(root).unwrap().to_string_lossy();
            found.push((name.replace('\\', "/"), count));
        }
    }
}

#[test]
fn no_route_joins_the_router_except_through_the_documented_registrations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    raw_routes(&root, &root, &mut found);
    found.sort();
    let expected: Vec<(String, usize)> = RAW_ROUTES
        .iter()
        .map(|(file, n)| ((*file).to_owned(), *n))
        .collect();
    assert_eq!(
        found, expected,
        "a route added outside ApiRoutes is served but not documented: register it with \
         ApiRoutes (or, for a page, through openapi::pages) and update RAW_ROUTES"
    );
}
