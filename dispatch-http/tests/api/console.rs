//! `/console` as served: the page and every file it loads, their headers (the policy that
//! keeps scripts, styles and data on this origin, images also from the tile host), the tile
//! settings handed to the page, and `/metrics` moved off the API's listener.

use axum::body::Body;
use axum::http::{header, Request, StatusCode};
use axum::Router;
use dispatch_http::console::{ConsoleConfig, TileUrl};
use dispatch_http::{app_with, AppOptions};
use http_body_util::BodyExt;
use tower::ServiceExt;

use crate::common::TestApp;

struct Page {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    text: String,
}

async fn fetch(router: &Router, path: &str) -> Page {
    fetch_with(router, Request::get(path).body(Body::empty()).unwrap()).await
}

async fn fetch_with(router: &Router, request: Request<Body>) -> Page {
    let response = router.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = response.into_body().collect().await.unwrap().to_bytes();
    Page {
        status,
        headers,
        text: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

fn header(page: &Page, name: header::HeaderName) -> &str {
    page.headers
        .get(name)
        .map(|v| v.to_str().unwrap())
        .unwrap_or_default()
}

/// The `href`/`src` attribute values of the page.
fn references(html: &str) -> Vec<String> {
    html.split(['"'])
        .collect::<Vec<_>>()
        .windows(2)
        .filter(|w| w[0].ends_with("href=") || w[0].ends_with("src="))
        .map(|w| w[1].to_owned())
        .collect()
}

#[tokio::test]
async fn the_console_page_and_every_file_it_loads_are_served_from_this_origin() {
    let app = TestApp::new();
    let page = fetch(&app.router, "/console").await;
    assert_eq!(page.status, StatusCode::OK);
    assert_eq!(
        header(&page, header::CONTENT_TYPE),
        "text/html; charset=utf-8"
    );
    let csp = header(&page, header::CONTENT_SECURITY_POLICY);
    for part in [
        "default-src 'none'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self';",
        "connect-src 'self'",
        "frame-ancestors 'self'",
    ] {
        assert!(csp.contains(part), "{part} in {csp}");
    }
    assert_eq!(header(&page, header::X_FRAME_OPTIONS), "SAMEORIGIN");
    assert_eq!(header(&page, header::REFERRER_POLICY), "no-referrer");
    assert!(page.text.contains("data-tile-url=\"\""), "{}", page.text);
    let refs = references(&page.text);
    assert_eq!(refs.len(), 3, "{refs:?}");
    for reference in refs {
        assert!(
            reference.starts_with("console/assets/"),
            "relative: {reference}"
        );
        let file = fetch(&app.router, &format!("/{reference}")).await;
        assert_eq!(file.status, StatusCode::OK, "{reference}");
        let kind = header(&file, header::CONTENT_TYPE);
        assert!(
            kind.starts_with("text/css") || kind.starts_with("text/javascript"),
            "{reference}: {kind}"
        );
        assert_eq!(header(&file, header::X_CONTENT_TYPE_OPTIONS), "nosniff");
    }
    let leaflet = fetch(
        &app.router,
        "/console/assets/vendor/leaflet/leaflet-src.esm.js",
    )
    .await;
    assert!(leaflet.text.contains("Leaflet 1.9.4"));
}

#[tokio::test]
async fn unknown_console_and_docs_files_are_the_404_envelope_and_a_trailing_slash_goes_back_to_the_page(
) {
    let app = TestApp::new();
    for path in [
        "/console/assets/nothing.js",
        "/console/assets/../../v2/depots",
        "/console/assets/js/",
        "/console/assets/vendor/leaflet/leaflet.js",
        "/console/nothing",
        "/docs/nothing.js",
        "/docs/swagger-ui-bundle.js/x",
        "/docs//init.js",
    ] {
        let page = fetch(&app.router, path).await;
        assert_eq!(page.status, StatusCode::NOT_FOUND, "{path}");
        assert_eq!(
            header(&page, header::CONTENT_TYPE),
            "application/json",
            "{path}"
        );
        let envelope: serde_json::Value = serde_json::from_str(&page.text).unwrap();
        assert_eq!(envelope["name"], "RESOURCE_NOT_FOUND", "{path}: {envelope}");
        assert_eq!(envelope["statusCode"], 404, "{path}");
        assert!(envelope["description"].is_string(), "{path}");
        assert!(envelope["details"].is_object(), "{path}: {envelope}");
    }
    let slash = fetch(&app.router, "/console/").await;
    assert_eq!(slash.status, StatusCode::PERMANENT_REDIRECT);
    assert_eq!(header(&slash, header::LOCATION), "../console");
}

#[tokio::test]
async fn a_tile_url_reaches_the_page_and_its_host_alone_is_allowed_for_images() {
    let app = TestApp::new();
    let options = AppOptions {
        console: ConsoleConfig {
            tile_url: Some(
                TileUrl::parse("https://{s}.tiles.example.org/{z}/{x}/{y}.png").unwrap(),
            ),
            tile_attribution: Some("© Example & co".into()),
        },
        ..AppOptions::default()
    };
    let router = app_with(app.state.clone(), &options);
    let page = fetch(&router, "/console").await;
    assert!(page
        .text
        .contains("data-tile-url=\"https://{s}.tiles.example.org/{z}/{x}/{y}.png\""));
    assert!(page
        .text
        .contains("data-tile-attribution=\"© Example &amp; co\""));
    let csp = header(&page, header::CONTENT_SECURITY_POLICY);
    assert!(
        csp.contains("img-src 'self' https://*.tiles.example.org;"),
        "{csp}"
    );
    assert!(csp.contains("connect-src 'self';"), "{csp}");
}

#[tokio::test]
async fn with_metrics_on_their_own_bind_the_api_router_does_not_serve_them() {
    let app = TestApp::new();
    assert_eq!(fetch(&app.router, "/metrics").await.status, StatusCode::OK);
    let options = AppOptions {
        metrics_elsewhere: true,
        ..AppOptions::default()
    };
    let api = app_with(app.state.clone(), &options);
    let moved = fetch(&api, "/metrics").await;
    assert_eq!(moved.status, StatusCode::NOT_FOUND);
    assert!(moved.text.contains("RESOURCE_NOT_FOUND"), "{}", moved.text);
    let metrics = dispatch_http::metrics_app(app.state.clone());
    assert_eq!(fetch(&metrics, "/metrics").await.status, StatusCode::OK);
    assert_eq!(
        fetch(&metrics, "/v2/depots").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        fetch(&metrics, "/console").await.status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn the_console_reads_where_the_callers_depot_is_with_the_access_key() {
    let app = TestApp::new();
    let north = app.get("/console/depot", &app.north()).await;
    assert_eq!(
        north.ok()["depot"],
        serde_json::json!({"id": app.depot(0, 0)["id"], "name": "North",
                           "address": "1 Depot Way", "lat": 51.5, "lng": -0.12})
    );
    let south = app.get("/console/depot", &app.south()).await;
    let south = &south.ok()["depot"];
    assert_eq!(south["name"], "South");
    assert!(south["address"].is_null() && south["lat"].is_null() && south["lng"].is_null());
    app.get("/console/depot", "not-a-key")
        .await
        .envelope(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn a_browser_with_a_current_copy_of_a_file_gets_304() {
    let app = TestApp::new();
    let path = "/console/assets/vendor/leaflet/leaflet-src.esm.js";
    let first = fetch(&app.router, path).await;
    let tag = header(&first, header::ETAG).to_owned();
    assert!(tag.starts_with('"') && tag.len() > 20, "{tag}");
    let again = |tag: &str| {
        Request::get(path)
            .header(header::IF_NONE_MATCH, tag)
            .body(Body::empty())
            .unwrap()
    };
    let cached = fetch_with(&app.router, again(&tag)).await;
    assert_eq!(cached.status, StatusCode::NOT_MODIFIED);
    assert!(cached.text.is_empty());
    assert_eq!(header(&cached, header::ETAG), tag);
    let changed = fetch_with(&app.router, again("\"0123\"")).await;
    assert_eq!(changed.status, StatusCode::OK);
    assert_eq!(changed.text, first.text);
    let other = fetch(&app.router, "/console/assets/js/main.js").await;
    assert_ne!(header(&other, header::ETAG), tag);
}
