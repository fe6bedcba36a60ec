use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request};
use axum::routing::get;
use axum::Router;
use dispatch_adapters::images::Codec;
use dispatch_core::ports::clock::ManualClock;
use dispatch_core::ports::geocoder::InMemoryGazetteer;
use dispatch_core::ports::store::InMemoryStore;
use dispatch_core::time::Timestamp;
use dispatch_http::{with_error_handling, AppState};
use serde_json::json;
use tower::ServiceExt;

use crate::common::{van, TestApp};

#[tokio::test]
async fn unknown_paths_are_404_in_the_envelope() {
    let app = TestApp::new();
    for path in [
        "/v2/nothing-here",
        "/v3/vehicles",
        "/",
        "/v2/vehicles/1/extra",
    ] {
        let r = app.call(Method::GET, path, Some(&app.north()), None).await;
        r.envelope(404, "RESOURCE_NOT_FOUND");
    }
    // Also without a key: the path does not exist either way.
    app.call(Method::GET, "/v2/nothing-here", None, None)
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn wrong_method_is_405_in_the_envelope_with_allow() {
    let app = TestApp::new();
    let r = app
        .call(Method::DELETE, "/v2/depots", Some(&app.north()), None)
        .await;
    r.envelope(405, "INVALID_INPUT");
    let allow = r
        .headers
        .get("allow")
        .expect("allow header")
        .to_str()
        .unwrap();
    assert!(allow.contains("GET"), "{allow}");
    app.call(
        Method::POST,
        "/v2/vehicles/1",
        Some(&app.north()),
        Some(json!({})),
    )
    .await
    .envelope(405, "INVALID_INPUT");
}

#[tokio::test]
async fn malformed_json_is_400_invalid_input() {
    let app = TestApp::new();
    let request = Request::post("/v2/vehicles")
        .header("x-access-key", app.north())
        .header("content-type", "application/json")
        .body(Body::from("{\"name\": \"Van\","))
        .unwrap();
    let r = app.send(request).await;
    assert_eq!(r.invalid_paths(), [""]);
}

#[tokio::test]
async fn wrong_content_type_is_400_invalid_input() {
    let app = TestApp::new();
    let request = Request::post("/v2/vehicles")
        .header("x-access-key", app.north())
        .header("content-type", "text/plain")
        .body(Body::from(van("Van").to_string()))
        .unwrap();
    app.send(request).await.envelope(400, "INVALID_INPUT");
    // Nothing was created.
    let list = app.get("/v2/vehicles", &app.north()).await;
    assert!(list.ok()["vehicles"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn empty_body_and_non_object_body_are_400() {
    let app = TestApp::new();
    let request = Request::post("/v2/vehicles")
        .header("x-access-key", app.north())
        .header("content-type", "application/json")
        .body(Body::empty())
        .unwrap();
    app.send(request).await.envelope(400, "INVALID_INPUT");
    let r = app.post("/v2/vehicles", &app.north(), json!([1, 2])).await;
    assert_eq!(r.invalid_paths(), [""]);
}

#[tokio::test]
async fn a_json_body_without_content_type_is_accepted() {
    let app = TestApp::new();
    let request = Request::post("/v2/vehicles")
        .header("x-access-key", app.north())
        .body(Body::from(van("Van").to_string()))
        .unwrap();
    app.send(request).await.ok();
}

#[tokio::test]
async fn body_too_large_is_400_invalid_input_in_the_envelope() {
    let app = TestApp::new();
    let huge = format!(
        "{{\"name\": \"{}\"}}",
        "x".repeat(dispatch_http::MAX_BODY_BYTES + 10)
    );
    let request = Request::post("/v2/vehicles")
        .header("x-access-key", app.north())
        .header("content-type", "application/json")
        .body(Body::from(huge))
        .unwrap();
    app.send(request).await.envelope(400, "INVALID_INPUT");
}

#[tokio::test]
async fn a_non_numeric_id_is_400_invalid_input_at_id() {
    let app = TestApp::new();
    let r = app.get("/v2/vehicles/abc", &app.north()).await;
    assert_eq!(r.invalid_paths(), ["id"]);
    let r = app
        .post(
            "/v2/zone-groups/x/bounds/contains",
            &app.north(),
            json!({"location": {"lat": 1, "lng": 1}}),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["id"]);
}

#[tokio::test]
async fn a_panicking_handler_is_a_500_envelope_without_internals() {
    let state = AppState::new(
        Arc::new(InMemoryStore::new()),
        Arc::new(ManualClock::new(Timestamp::from_millis(0))),
        Arc::new(InMemoryGazetteer::new()),
        Arc::new(InMemoryStore::new()),
        Arc::new(Codec),
    );
    let routes: Router<AppState> = Router::new().route(
        "/boom",
        get(|| async {
            if true {
                panic!("secret internal detail");
            }
            "unreachable"
        }),
    );
    let router = with_error_handling(routes, state);
    let response = router
        .oneshot(Request::get("/boom").body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status().as_u16(), 500);
    let bytes = http_body_util::BodyExt::collect(response.into_body())
        .await
        .unwrap()
        .to_bytes();
    let text = String::from_utf8_lossy(&bytes);
    assert!(!text.contains("secret"), "{text}");
    let body: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(body["name"], "INTERNAL_SERVER_ERROR");
    assert_eq!(body["statusCode"], 500);
    assert_eq!(body["details"], json!({}));
}

#[tokio::test]
async fn validation_errors_carry_code_expected_received_path_and_message() {
    let app = TestApp::new();
    let r = app.post("/v2/vehicles", &app.north(), json!({"name": 5, "availability": "full_day", "start_location": "depot", "end_location": "depot"})).await;
    assert_eq!(r.invalid_paths(), ["name"]);
    let e = &r.body["details"]["validationErrors"][0];
    assert_eq!(e["code"], "invalid_type");
    assert_eq!(e["received"], "number");
    assert_eq!(e["path"], json!(["name"]));
}

#[tokio::test]
async fn no_combination_of_path_method_and_body_gives_bare_text_or_a_500() {
    let app = TestApp::new();
    let paths = [
        "/v2/depots",
        "/v2/capacities",
        "/v2/custom-fields",
        "/v2/zone-groups",
        "/v2/zone-groups/1/bounds/contains",
        "/v2/zone-groups/abc/bounds/contains",
        "/v2/third-parties",
        "/v2/notifications/templates",
        "/v2/vehicles",
        "/v2/vehicles/",
        "/v2/vehicles/1",
        "/v2/vehicles/-1",
        "/v2/vehicles/99999999999999999999",
        "/v2/vehicles/%00",
        "/v2",
        "/v2/",
        "/healthz",
        "/nope",
    ];
    let methods = [
        Method::GET,
        Method::POST,
        Method::PUT,
        Method::PATCH,
        Method::DELETE,
        Method::OPTIONS,
    ];
    let bodies: [Option<&str>; 6] = [
        None,
        Some(""),
        Some("null"),
        Some("[]"),
        Some("{\"name\": [1, {\"a\": null}]}"),
        Some("\u{1F600}{"),
    ];
    let keys = [Some(app.north()), Some(app.north_read()), None];
    for path in paths {
        for method in &methods {
            for body in bodies {
                for key in &keys {
                    let mut b = Request::builder().method(method.clone()).uri(path);
                    if let Some(key) = key {
                        b = b.header("x-access-key", key);
                    }
                    let request = match body {
                        Some(text) => b
                            .header("content-type", "application/json")
                            .body(Body::from(text.to_owned())),
                        None => b.body(Body::empty()),
                    }
                    .unwrap();
                    // `send` panics on a non-JSON body.
                    let r = app.send(request).await;
                    assert_ne!(
                        r.status.as_u16(),
                        500,
                        "{method} {path} {body:?}: {}",
                        r.body
                    );
                    if !r.status.is_success() {
                        assert_eq!(
                            r.body["statusCode"],
                            r.status.as_u16(),
                            "{method} {path} {body:?}"
                        );
                        assert!(r.body["name"].is_string() && r.body["details"].is_object());
                    }
                }
            }
        }
    }
}

#[tokio::test]
async fn a_long_refused_value_comes_back_shortened_with_its_length() {
    let app = TestApp::new();
    let long = "x".repeat(50_000);
    let r = app
        .post(
            "/v2/customers",
            &app.north(),
            json!([{"account": "L", "lat": 1.0, "lng": 2.0, "email": long}]),
        )
        .await;
    let body = r.envelope(400, "INVALID_INPUT");
    let received = body["details"]["validationErrors"][0]["received"]
        .as_str()
        .unwrap();
    assert_eq!(
        received,
        format!("{}... (50000 characters)", &long[..200]),
        "{body:#}"
    );
    assert!(body.to_string().len() < 2_000, "{}", body.to_string().len());
    // Values within the bound come back as sent.
    let r = app
        .post(
            "/v2/customers",
            &app.north(),
            json!([{"account": "L", "lat": 1.0, "lng": 2.0, "email": "not-an-address"}]),
        )
        .await;
    let body = r.envelope(400, "INVALID_INPUT");
    assert_eq!(
        body["details"]["validationErrors"][0]["received"],
        "not-an-address"
    );
}
