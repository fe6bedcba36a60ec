//! The customer tracking page in a real browser: headless Chromium (Debian's package) loads it
//! from the real router on a loopback port, its DOM text is checked and its screenshot must
//! exist and show the page's own styling (which only applies if the Content-Security-Policy
//! hash matches the style sheet); the page loads nothing from beyond this server. In CI (`CI` set) a missing Chromium fails the test (see
//! `tests/browser`); elsewhere the test says loudly that it did not run.

use crate::browser::{chromium_for, run_chromium, OutsideWorld};

use super::pod::{dispatched_day, route_stops};
use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_tracking_page_renders_in_headless_chromium() {
    let Some(browser) = chromium_for("the_tracking_page_renders_in_headless_chromium") else {
        return;
    };
    let app = TestApp::new();
    let (_, _, laid) = dispatched_day(&app, 2).await;
    let link = route_stops(&app, laid.routes[0]).await[0]["tracking_link"]
        .as_str()
        .unwrap()
        .to_owned();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = app.router.clone();
    let server = tokio::spawn(async move { axum::serve(listener, router).await });
    let url = link.replace("http://127.0.0.1:8080", &format!("http://{addr}"));

    let dir = tempfile::tempdir().unwrap();
    let shot = dir.path().join("tracking.png");
    let (b, d, u, s) = (
        browser.clone(),
        dir.path().to_owned(),
        url.clone(),
        shot.clone(),
    );
    let outside = OutsideWorld::start();
    let proxy = outside.proxy_flag();
    let dom = tokio::task::spawn_blocking(move || {
        let dom = run_chromium(&b, &d.join("dom"), (480, 640), &u, &["--dump-dom", &proxy]);
        run_chromium(
            &b,
            &d.join("shot"),
            (480, 640),
            &u,
            &[&format!("--screenshot={}", s.display())],
        );
        dom
    })
    .await
    .unwrap();
    server.abort();
    assert_eq!(
        outside.requests(),
        Vec::<String>::new(),
        "the page loaded from elsewhere"
    );

    assert!(dom.contains("Your delivery"), "{dom}");
    assert!(
        dom.contains("<strong id=\"order-number\">P-0</strong>"),
        "{dom}"
    );
    assert!(dom.contains("Scheduled for delivery"), "{dom}");
    assert!(
        dom.contains("between <time>08:30</time> and <time>09:30</time>"),
        "{dom}"
    );
    assert!(!dom.contains("P-1"), "another stop's order leaked: {dom}");

    let png = image::open(&shot).expect("a screenshot file").to_rgb8();
    assert_eq!((png.width(), png.height()), (480, 640));
    let first = *png.get_pixel(0, 0);
    let varied = png.pixels().filter(|p| **p != first).count();
    assert!(
        varied > 2_000,
        "the screenshot is blank ({varied} pixels differ)"
    );
    // The status banner's background (#e8eefc) only appears when the style sheet applied.
    let banner = png.pixels().filter(|p| p.0 == [0xe8, 0xee, 0xfc]).count();
    assert!(
        banner > 1_000,
        "the page's style did not apply ({banner} banner pixels)"
    );
}
