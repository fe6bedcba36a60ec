use axum::body::{to_bytes, Body};
use axum::extract::Request;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use tower::ServiceExt;

use super::*;

fn params(query: &str) -> Result<PageParams, ApiError> {
    PageParams::parse(
        query,
        LinkBase {
            public_url: PublicUrl::parse("http://api.test").unwrap(),
            path: "/v2/orders".into(),
        },
    )
}

fn cursor(ms: i64, id: i64) -> Cursor {
    Cursor {
        updated: Timestamp::from_millis(ms),
        id,
    }
}

#[test]
fn limit_outside_1_to_100_or_unparsable_falls_back_to_100() {
    for q in [
        "",
        "limit=0",
        "limit=101",
        "limit=-1",
        "limit=abc",
        "limit=",
        "limit=2.5",
    ] {
        assert_eq!(params(q).unwrap().request.limit, 100, "{q}");
    }
    for (q, l) in [("limit=1", 1), ("limit=100", 100), ("limit=37", 37)] {
        assert_eq!(params(q).unwrap().request.limit, l, "{q}");
    }
}

#[test]
fn page_info_round_trips_a_cursor_and_filters_in_url_safe_characters() {
    let filters = vec![
        ("status".to_owned(), "OPEN".to_owned()),
        ("order_number".to_owned(), "A/1 & b?=ü".to_owned()),
    ];
    let value = encode_page_info(cursor(1_763_000_000_123, 42), &filters);
    assert!(value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
    assert_eq!(
        decode_page_info(&value),
        Some((cursor(1_763_000_000_123, 42), filters))
    );
}

#[test]
fn a_malformed_page_info_is_400_invalid_input_with_a_validation_error() {
    let not_json = URL_SAFE_NO_PAD.encode("hello");
    let other_version = URL_SAFE_NO_PAD.encode(r#"{"v":9,"u":1,"i":1,"f":[]}"#);
    for bad in ["!!!", "abc", not_json.as_str(), other_version.as_str()] {
        let err = params(&format!("page_info={bad}")).unwrap_err();
        assert_eq!(err.status, StatusCode::BAD_REQUEST, "{bad}");
        let body = err.body();
        assert_eq!(body["name"], "INVALID_INPUT");
        let issue = &body["details"]["validationErrors"][0];
        assert_eq!(issue["path"], json!(["page_info"]));
        for field in ["code", "expected", "received", "message"] {
            assert!(issue[field].is_string(), "{field}");
        }
    }
    assert_eq!(params("page_info=").unwrap().request.after, None);
}

#[test]
fn updated_at_min_takes_both_formats_and_ignores_others() {
    let expected = Timestamp::parse("2026-11-22T07:41:10.000Z");
    for q in [
        "updated_at_min=2026-11-22%2007:41:10",
        "updated_at_min=2026-11-22+07:41:10",
        "updated_at_min=2026-11-22T07:41:10.000Z",
    ] {
        assert_eq!(params(q).unwrap().request.updated_at_min, expected, "{q}");
    }
    let ignored = params("updated_at_min=yesterday").unwrap();
    assert_eq!(ignored.request.updated_at_min, None);
    assert_eq!(ignored.filter("updated_at_min"), Some("yesterday"));
}

#[test]
fn the_next_link_carries_page_info_limit_and_the_original_filters() {
    let first =
        params("status=OPEN&limit=2&customer_id=3&updated_at_min=2026-11-22%2007:41:10").unwrap();
    assert_eq!(first.filter("status"), Some("OPEN"));
    assert_eq!(first.next_link(None), None, "no link on the last page");
    let url = first.next_url(cursor(1000, 7));
    let (origin_path, query) = url.split_once('?').unwrap();
    assert_eq!(origin_path, "http://api.test/v2/orders");
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(pairs[0].0, "page_info");
    assert_eq!(pairs[1], ("limit".into(), "2".into()));
    assert_eq!(pairs[2], ("status".into(), "OPEN".into()));
    assert_eq!(pairs[3], ("customer_id".into(), "3".into()));
    assert_eq!(
        pairs[4],
        ("updated_at_min".into(), "2026-11-22 07:41:10".into())
    );

    let second = params(query).unwrap();
    assert_eq!(second.request.after, Some(cursor(1000, 7)));
    assert_eq!(second.request.limit, 2);
    assert_eq!(second.request.updated_at_min, first.request.updated_at_min);
    assert_eq!(second.filters(), first.filters());
    assert_eq!(
        first.next_link(Some(cursor(1000, 7))).unwrap(),
        format!("<{url}>; rel=\"next\"").as_str()
    );
}

#[test]
fn with_page_info_the_cursors_filters_win_over_filters_sent_beside_it() {
    let first = params("status=OPEN").unwrap();
    let value = encode_page_info(cursor(5, 5), first.filters());
    let tampered = params(&format!(
        "page_info={value}&status=DELIVERED&date=2026-01-01"
    ))
    .unwrap();
    assert_eq!(tampered.filter("status"), Some("OPEN"));
    assert_eq!(tampered.filter("date"), None);
}

async fn link_of(public_url: &str, headers: &[(&str, &str)], uri: &str) -> Option<String> {
    let list = Router::new().route(
        "/orders",
        get(|page: PageParams| async move {
            let next = Some(cursor(1, 1));
            page.respond(next, Json(json!({ "orders": [] })))
        }),
    );
    let app = Router::new()
        .nest("/v2", list)
        .with_state(PublicUrl::parse(public_url).unwrap());
    let mut req = Request::builder().uri(uri);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let response = app.oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
    let link = response
        .headers()
        .get(LINK)
        .map(|v| v.to_str().unwrap().to_owned());
    let body: Value =
        serde_json::from_slice(&to_bytes(response.into_body(), usize::MAX).await.unwrap()).unwrap();
    assert_eq!(body, json!({ "orders": [] }));
    link
}

#[tokio::test]
async fn the_next_url_is_absolute_on_the_public_url_and_keeps_the_v2_path() {
    let link = link_of("http://127.0.0.1:8080", &[], "/v2/orders?status=OPEN")
        .await
        .unwrap();
    assert!(
        link.starts_with("<http://127.0.0.1:8080/v2/orders?page_info="),
        "{link}"
    );
    assert!(
        link.ends_with("&limit=100&status=OPEN>; rel=\"next\""),
        "{link}"
    );
    let prefixed = link_of("https://example.com/dispatch/", &[], "/v2/orders")
        .await
        .unwrap();
    assert!(
        prefixed.starts_with("<https://example.com/dispatch/v2/orders?page_info="),
        "{prefixed}"
    );
}

#[tokio::test]
async fn host_and_forwarded_headers_never_reach_the_next_url() {
    let link = link_of(
        "https://api.example.com",
        &[
            ("host", "attacker.example"),
            ("x-forwarded-host", "forwarded.example"),
            ("x-forwarded-proto", "http"),
            ("x-forwarded-port", "4444"),
            ("forwarded", "host=rfc7239.example;proto=http"),
        ],
        "http://absolute-form.example/v2/orders",
    )
    .await
    .unwrap();
    assert!(
        link.starts_with("<https://api.example.com/v2/orders?page_info="),
        "{link}"
    );
    for planted in ["attacker", "forwarded", "4444", "rfc7239", "absolute-form"] {
        assert!(!link.contains(planted), "{planted} in {link}");
    }
}

#[tokio::test]
async fn a_path_with_link_breaking_bytes_is_percent_encoded_in_the_next_url() {
    let list = Router::new().route(
        "/{any}",
        get(|page: PageParams| async move { page.respond(Some(cursor(1, 1)), Json(json!({}))) }),
    );
    let app = list.with_state(PublicUrl::default());
    let response = app
        .oneshot(
            Request::builder()
                .uri("/a\"b{c}|d^e")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let link = response.headers()[LINK].to_str().unwrap();
    assert!(
        link.starts_with("<http://127.0.0.1:8080/a%22b%7Bc%7D%7Cd%5Ee?"),
        "{link}"
    );
}

#[tokio::test]
async fn the_extractor_rejects_a_malformed_page_info_in_the_envelope() {
    let list = Router::new()
        .route(
            "/orders",
            get(|page: PageParams| async move { page.respond(None, Json(json!({}))) }),
        )
        .with_state(PublicUrl::default());
    let response = list
        .oneshot(
            Request::builder()
                .uri("/orders?page_info=%25%25")
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
    let body: Value =
        serde_json::from_slice(&to_bytes(response.into_body(), usize::MAX).await.unwrap()).unwrap();
    assert_eq!(body["name"], "INVALID_INPUT");
    assert_eq!(
        body["details"]["validationErrors"][0]["path"],
        json!(["page_info"])
    );
}
