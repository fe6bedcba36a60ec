//! Defects found from outside: undecodable path segments, non-UTF-8 idempotency keys.

use axum::body::Body;
use axum::http::{HeaderValue, Method, Request};
use serde_json::json;

use crate::common::{van, TestApp};

#[tokio::test]
async fn a_path_id_that_is_not_utf8_answers_like_any_other_non_numeric_id() {
    let app = TestApp::new();
    let key = app.north();
    let cases = [
        (Method::GET, "/v2/customers/{}", None),
        (Method::PUT, "/v2/customers/{}", Some(json!({"name": "x"}))),
        (Method::GET, "/v2/vehicles/{}", None),
        (Method::PUT, "/v2/vehicles/{}", Some(van("x"))),
        (Method::DELETE, "/v2/vehicles/{}", None),
        (Method::POST, "/v2/depots/{}/orders", Some(json!([]))),
        (
            Method::POST,
            "/v2/zone-groups/{}/bounds/contains",
            Some(json!({"lat": 1, "lng": 1})),
        ),
        (Method::GET, "/v2/orders/{}", None),
        (Method::PUT, "/v2/orders/{}", Some(json!({}))),
        (Method::DELETE, "/v2/orders/order-number/{}", None),
    ];
    for (method, template, body) in cases {
        let (bad_path, other_path) = (
            template.replace("{}", "%FF%FE"),
            template.replace("{}", "abc"),
        );
        let bad = app
            .call(method.clone(), &bad_path, Some(&key), body.clone())
            .await;
        let other = app
            .call(method.clone(), &other_path, Some(&key), body.clone())
            .await;
        assert_eq!(
            bad.status, other.status,
            "{method} {template}: {:#}",
            bad.body
        );
        assert_eq!(bad.body["name"], other.body["name"], "{method} {template}");
        assert!(!bad.status.is_server_error(), "{method} {template}");
    }
}

#[tokio::test]
async fn an_idempotency_key_that_is_not_utf8_is_400_and_nothing_executes() {
    let app = TestApp::new();
    let key = app.north();
    for raw in [&b"k\xff"[..], b"k\xfe", b"\xc3\x28"] {
        let request = Request::builder()
            .method(Method::POST)
            .uri("/v2/vehicles")
            .header("x-access-key", &key)
            .header("content-type", "application/json")
            .header("idempotency-key", HeaderValue::from_bytes(raw).unwrap())
            .body(Body::from(van("Van").to_string()))
            .unwrap();
        app.send(request)
            .await
            .envelope(400, "IDEMPOTENCY_INVALID_KEY");
    }
    let listed = app.get("/v2/vehicles", &key).await;
    assert_eq!(listed.ok()["vehicles"], json!([]));
    let utf8 = Request::builder()
        .method(Method::POST)
        .uri("/v2/vehicles")
        .header("x-access-key", &key)
        .header("content-type", "application/json")
        .header(
            "idempotency-key",
            HeaderValue::from_bytes("clé".as_bytes()).unwrap(),
        )
        .body(Body::from(van("Van").to_string()))
        .unwrap();
    assert!(app.send(utf8).await.status.is_success());
}
