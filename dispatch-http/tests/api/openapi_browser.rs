//! `/docs` in a real browser: headless Chromium (Debian's package) loads the page from the real
//! router on a loopback port with every other address behind a dead proxy, and Swagger UI must
//! render the document's operations and its Authorize button under the page's
//! Content-Security-Policy: assets from anywhere else would leave the page empty.

use crate::browser::{chromium_for, run_chromium};
use crate::common::TestApp;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_docs_page_renders_the_document_in_headless_chromium() {
    let Some(browser) = chromium_for("the_docs_page_renders_the_document_in_headless_chromium")
    else {
        return;
    };
    let app = TestApp::new();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = app.router.clone();
    let server = tokio::spawn(async move { axum::serve(listener, router).await });
    let profile = tempfile::tempdir().unwrap();
    let url = format!("http://{addr}/docs");
    let dom = tokio::task::spawn_blocking(move || {
        run_chromium(
            &browser,
            profile.path(),
            (1280, 1024),
            &url,
            &[
                "--proxy-server=http://127.0.0.1:9",
                "--virtual-time-budget=15000",
                "--dump-dom",
            ],
        )
    })
    .await
    .unwrap();
    server.abort();
    for expected in [
        "dispatch v2",
        "/vehicles/{id}",
        "/plans/optimise/orders",
        "Authorize",
    ] {
        assert!(dom.contains(expected), "{expected:?} not rendered:\n{dom}");
    }
}
