//! `/docs`, the browsable reference, without a browser: the page and every asset it names come
//! from this server (nothing from elsewhere, so it works offline), under a same-origin policy.

use axum::body::Body;
use axum::http::Request;

use crate::common::TestApp;

#[tokio::test]
async fn the_docs_page_loads_only_same_origin_assets_and_each_is_served() {
    let app = TestApp::new();
    let request = Request::builder().uri("/docs").body(Body::empty()).unwrap();
    let response = tower::ServiceExt::oneshot(app.router.clone(), request)
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let policy = response.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        policy.contains("default-src 'none'") && policy.contains("script-src 'self'"),
        "{policy}"
    );
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    let html = String::from_utf8(bytes.to_vec()).unwrap();
    let mut assets = Vec::new();
    for attribute in ["src=\"", "href=\""] {
        for (at, _) in html.match_indices(attribute) {
            let url = &html[at + attribute.len()..];
            assets.push(url[..url.find('"').unwrap()].to_owned());
        }
    }
    assert!(assets.len() >= 3, "{assets:?}");
    assert!(
        !html.contains("//"),
        "no scheme-relative or absolute URL in the page"
    );
    for url in &assets {
        assert!(
            url.starts_with("/docs/"),
            "{url} is not same-origin under /docs"
        );
        let request = Request::builder()
            .uri(url.as_str())
            .body(Body::empty())
            .unwrap();
        let response = tower::ServiceExt::oneshot(app.router.clone(), request)
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{url}");
        let bytes = http_body_util::BodyExt::collect(response.into_body())
            .await
            .unwrap()
            .to_bytes();
        assert!(bytes.len() > 100, "{url}");
    }
    let init = assets
        .iter()
        .find(|a| a.ends_with("init.js"))
        .expect("the init script");
    let request = Request::builder()
        .uri(init.as_str())
        .body(Body::empty())
        .unwrap();
    let response = tower::ServiceExt::oneshot(app.router.clone(), request)
        .await
        .unwrap();
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    let init = String::from_utf8(bytes.to_vec()).unwrap();
    assert!(init.contains("url: \"/v2/openapi.json\"") && init.contains("validatorUrl: null"));
}
