//! `/docs` in a real browser: headless Chromium (Debian's package) loads the page from the real
//! router on a loopback port with every other address behind a recording proxy that must see no
//! request, and Swagger UI must
//! render the document's operations and its Authorize button under the page's
//! Content-Security-Policy: assets from anywhere else would leave the page empty.

use std::path::Path;

use axum::response::Html;
use axum::routing::get;
use serde_json::{json, Value};

use crate::browser::{chromium_for, run_chromium, OutsideWorld};
use crate::common::{post_vehicle, TestApp};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docs_page_renders_the_document_in_headless_chromium() {
    let Some(browser) = chromium_for("the_docs_page_renders_the_document_in_headless_chromium")
    else {
        return;
    };
    let app = TestApp::new();
    let dom = dump_dom(&browser, app.router.clone(), "/docs", 15_000).await;
    for expected in [
        "dispatch v2",
        "/vehicles/{id}",
        "/plans/optimise/orders",
        "/driver/routes/{id}/positions",
        "/track/{token}",
        "Authorize",
    ] {
        assert!(dom.contains(expected), "{expected:?} not rendered:\n{dom}");
    }
}

const HARNESS: &str = include_str!("docs_harness.html");

/// "A newcomer can open /docs and try a call": a same-origin harness page drives Swagger UI
/// inside /docs as a person would — Authorize with a real access key, expand `GET /vehicles`,
/// Try it out, Execute — and the real 200 answer of the real router must be rendered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_newcomer_authorises_in_docs_and_tries_a_real_call() {
    let Some(browser) = chromium_for("a_newcomer_authorises_in_docs_and_tries_a_real_call") else {
        return;
    };
    let app = TestApp::new();
    post_vehicle(&app, "Tried from docs").await;
    let report = try_in_docs(&browser, &app, "/vehicles", "accessKey", &app.north()).await;
    let body: Value = serde_json::from_str(report["body"].as_str().expect("a rendered body"))
        .unwrap_or_else(|e| panic!("{e}: {report:#}"));
    let names: Vec<&str> = body["vehicles"]
        .as_array()
        .unwrap_or_else(|| panic!("{body:#}"))
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert!(names.contains(&"Tried from docs"), "{body:#}");
    let curl = report["curl"].as_str().unwrap_or_default();
    assert!(
        curl.contains("x-access-key") && curl.contains(&app.north()),
        "the call carried the key: {curl}"
    );
}

/// The driver API is tried from the same page: its paths carry their own server, so "Try it
/// out" calls `/driver/me` (not `/v2/driver/me`) with the driver credential given to the
/// `driverCredential` scheme, and the real answer is rendered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_driver_credential_tries_the_driver_api_in_docs() {
    let Some(browser) = chromium_for("a_driver_credential_tries_the_driver_api_in_docs") else {
        return;
    };
    let app = TestApp::new();
    let id = post_vehicle(&app, "Driven from docs").await;
    let created = app
        .post(
            &format!("/v2/vehicles/{id}/driver-credentials"),
            &app.north(),
            json!({}),
        )
        .await;
    let credential = created.body["driver_credential"]["credential"]
        .as_str()
        .unwrap_or_else(|| panic!("{:#}", created.body))
        .to_owned();
    let report = try_in_docs(
        &browser,
        &app,
        "/driver/me",
        "driverCredential",
        &credential,
    )
    .await;
    let body: Value = serde_json::from_str(report["body"].as_str().expect("a rendered body"))
        .unwrap_or_else(|e| panic!("{e}: {report:#}"));
    assert_eq!(
        body["driver"]["vehicle"]["name"], "Driven from docs",
        "{body:#}"
    );
    let curl = report["curl"].as_str().unwrap_or_default();
    assert!(
        curl.contains("/driver/me") && !curl.contains("/v2/driver"),
        "called where it is served: {curl}"
    );
    assert!(
        curl.contains(&credential),
        "the call carried the credential: {curl}"
    );
}

/// Drives `/docs` through the harness page: Authorize `key` with the form of `scheme`, try
/// `GET path`; the report, after checking the call answered 200.
async fn try_in_docs(browser: &Path, app: &TestApp, path: &str, scheme: &str, key: &str) -> Value {
    // Swagger UI's element id of an operation: `operations-{tag}-{operationId}`.
    let read = &dispatch_http::openapi::document()["paths"][path]["get"];
    let operation = format!(
        "operations-{}-{}",
        read["tags"][0].as_str().unwrap(),
        read["operationId"].as_str().unwrap()
    );
    let page = HARNESS
        .replace("__KEY__", key)
        .replace("__OPERATION__", &operation)
        .replace("__SCHEME__", scheme);
    let router = axum::Router::new()
        .route("/harness", get(move || async move { Html(page) }))
        .merge(app.router.clone());
    let dom = dump_dom(browser, router, "/harness", 60_000).await;
    let report = harness_report(&dom);
    assert!(
        report.get("error").is_none(),
        "the harness failed: {report:#}"
    );
    assert_eq!(report["authorized"], true, "{report:#}");
    assert_eq!(report["status"], "200", "{report:#}");
    report
}

/// Serves `router` on a loopback port and returns the DOM headless Chromium ends with on
/// `path` after `budget_ms` of virtual time, every address but this server behind an
/// [`OutsideWorld`]; fails when the page tried to reach anything there.
async fn dump_dom(browser: &Path, router: axum::Router, path: &str, budget_ms: u32) -> String {
    let (dom, outside) = dump_dom_and_outside(browser, router, path, budget_ms).await;
    assert_eq!(
        outside,
        Vec::<String>::new(),
        "/docs reached beyond this server"
    );
    dom
}

/// [`dump_dom`], also returning what reached the [`OutsideWorld`].
async fn dump_dom_and_outside(
    browser: &Path,
    router: axum::Router,
    path: &str,
    budget_ms: u32,
) -> (String, Vec<String>) {
    let outside = OutsideWorld::start();
    let proxy = outside.proxy_flag();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}{path}", listener.local_addr().unwrap());
    let server = tokio::spawn(async move { axum::serve(listener, router).await });
    let browser = browser.to_owned();
    let dom = tokio::task::spawn_blocking(move || {
        let profile = tempfile::tempdir().unwrap();
        run_chromium(
            &browser,
            profile.path(),
            (1280, 1024),
            &url,
            &[
                &proxy,
                &format!("--virtual-time-budget={budget_ms}"),
                "--dump-dom",
            ],
        )
    })
    .await
    .unwrap();
    server.abort();
    (dom, outside.requests())
}

/// The check above can fail: a page of this server loading a style sheet from elsewhere is
/// seen (and the browser's own calls are not what it sees).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_loading_from_elsewhere_is_caught() {
    let Some(browser) = chromium_for("a_page_loading_from_elsewhere_is_caught") else {
        return;
    };
    let page = r#"<html><head><link rel="stylesheet" href="http://fonts.googleapis.com/css?family=Inter"></head><body>x</body></html>"#;
    let router = axum::Router::new().route("/outside", get(move || async move { Html(page) }));
    let (_, outside) = dump_dom_and_outside(&browser, router, "/outside", 3_000).await;
    assert!(
        !outside.is_empty()
            && outside
                .iter()
                .all(|l| l.starts_with("GET http://fonts.googleapis.com/css?family=Inter ")),
        "{outside:?}"
    );
}

/// What the harness wrote into `<pre id="report">`, as JSON.
fn harness_report(dom: &str) -> Value {
    let start = dom.find("<pre id=\"report\">").expect("the report element") + 17;
    let end = start + dom[start..].find("</pre>").unwrap();
    let text = dom[start..end]
        .replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}
