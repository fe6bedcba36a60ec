//! A NUL character (U+0000) in any text is refused the same way on every store: 400
//! INVALID_INPUT at the field (or path parameter) that holds it, and nothing is written.
//! PostgreSQL cannot store one at all; this suite runs on both stores (`DISPATCH_TEST_DB`).

use axum::http::Method;
use serde_json::json;

use crate::common::{post_orders, van, TestApp};

fn order(number: &str) -> serde_json::Value {
    json!({"order_number": number, "type": "delivery", "delivery_address": "1 High St",
           "delivery_lat": 51.5, "delivery_lng": -0.12, "delivery_date": "2026-11-23"})
}

#[tokio::test]
async fn a_nul_in_a_field_is_refused_at_that_field_and_nothing_is_written() {
    let app = TestApp::new();
    let mut body = van("Van\u{0}1");
    let r = app.post("/v2/vehicles", &app.north(), body.clone()).await;
    assert_eq!(r.invalid_paths(), ["name"]);
    assert_eq!(
        r.body["details"]["validationErrors"][0]["code"],
        "invalid_string"
    );
    body["name"] = json!("Van 1");
    let id = app.post("/v2/vehicles", &app.north(), body).await.ok()["vehicle"]["id"]
        .as_i64()
        .unwrap();
    let path = format!("/v2/vehicles/{id}");
    let r = app
        .put(&path, &app.north(), json!({"name": "Van\u{0}"}))
        .await;
    assert_eq!(r.invalid_paths(), ["name"]);
    let listed = app.get("/v2/vehicles", &app.north()).await;
    let names: Vec<_> = listed.ok()["vehicles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["name"].clone())
        .collect();
    assert_eq!(names, [json!("Van 1")]);
}

#[tokio::test]
async fn a_nul_in_one_item_of_a_batch_refuses_the_batch_at_that_item() {
    let app = TestApp::new();
    let mut second = order("B");
    second["delivery_notes"] = json!("ring\u{0}twice");
    let r = app
        .post("/v2/orders", &app.north(), json!([order("A"), second]))
        .await;
    assert_eq!(r.invalid_paths(), ["1.delivery_notes"]);
    let listed = app.get("/v2/orders", &app.north()).await;
    assert_eq!(listed.ok()["orders"], json!([]));
    // Deeper values and object keys count too.
    let mut nested = order("C");
    nested["custom_fields"] = json!([{"name": "Gate code", "value": "12\u{0}34"}]);
    let r = app.post("/v2/orders", &app.north(), json!([nested])).await;
    assert_eq!(r.invalid_paths(), ["0.custom_fields.0.value"]);
    let r = app
        .post(
            "/v2/orders",
            &app.north(),
            json!([{"order_\u{0}number": "D"}]),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["0.order_\u{0}number"]);
    assert_eq!(post_orders(&app, vec![order("E")]).await.len(), 1);
}

#[tokio::test]
async fn a_nul_in_a_path_parameter_is_refused_at_its_name() {
    let app = TestApp::new();
    post_orders(&app, vec![order("A")]).await;
    for (path, param) in [
        ("/v2/orders/order-number/A%00", "order_number"),
        ("/v2/order-statuses/RETURNED%00", "status"),
        ("/v2/orders/1%00", "id"),
    ] {
        let method = if path.starts_with("/v2/orders/1") {
            Method::GET
        } else {
            Method::DELETE
        };
        let r = app.call(method, path, Some(&app.north()), None).await;
        assert_eq!(r.invalid_paths(), [param], "{path}");
    }
    // Nothing was deleted; without the NUL, the same lookup finds what it names.
    let listed = app.get("/v2/orders", &app.north()).await;
    assert_eq!(listed.ok()["orders"].as_array().unwrap().len(), 1);
    app.delete("/v2/orders/order-number/A", &app.north())
        .await
        .ok();
}

/// A list filter reaches the store as text: one holding NUL (name or value) is refused at the
/// name it was sent under, on every store, and so is one carried inside a `page_info`.
#[tokio::test]
async fn a_nul_in_a_list_filter_is_refused_at_its_name() {
    use base64::Engine;
    let app = TestApp::new();
    post_orders(&app, vec![order("A")]).await;
    let crafted = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(br#"{"v":1,"u":0,"i":0,"f":[["order_number","A\u0000"]]}"#);
    for (path, param) in [
        (
            "/v2/orders?order_number=%BC%96%34%74%88%00%E5",
            "order_number",
        ),
        ("/v2/orders?order_number=A%00", "order_number"),
        ("/v2/orders?status=%00", "status"),
        ("/v2/orders?x%00=1", "x\u{0}"),
        ("/v2/customers?name=%00", "name"),
    ] {
        let r = app.get(path, &app.north()).await;
        assert_eq!(r.invalid_paths(), [param], "{path}");
    }
    let r = app
        .get(&format!("/v2/orders?page_info={crafted}"), &app.north())
        .await;
    assert_eq!(r.invalid_paths(), ["order_number"]);
    let listed = app.get("/v2/orders?order_number=A", &app.north()).await;
    assert_eq!(listed.ok()["orders"].as_array().unwrap().len(), 1);
}

/// Other query values are parsed into typed values (times, numbers, cursors, UUIDs) before any
/// store call: a NUL is refused or names nothing, alike on both stores.
#[tokio::test]
async fn a_nul_in_a_query_value_is_answered_alike_on_every_store() {
    let app = TestApp::new();
    for path in [
        "/v2/orders?updated_at_min=%00",
        "/v2/orders?limit=%00",
        "/v2/vehicles?cursor=%00",
        "/v2/plans/optimise/%00",
        "/v2/customers?updated_at_min=2026-01-01%00",
    ] {
        let r = app.get(path, &app.north()).await;
        match r.status.as_u16() {
            200 => assert!(r.body.is_object(), "{path}: {:#}", r.body),
            400 => assert_eq!(r.body["name"], "INVALID_INPUT", "{path}"),
            404 => assert_eq!(r.body["name"], "RESOURCE_NOT_FOUND", "{path}"),
            _ => panic!("{path}: {} {:#}", r.status, r.body),
        }
    }
}
