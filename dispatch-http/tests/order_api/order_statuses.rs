use axum::http::StatusCode;
use serde_json::json;

use super::{delivery, Api};

#[tokio::test]
async fn order_statuses_list_defaults_and_custom_without_partial_aggregates() {
    let api = Api::start();
    let r = api.get("/v2/order-statuses").await;
    assert_eq!(r.status, StatusCode::OK);
    let list = r.body["order_statuses"].as_array().unwrap();
    assert!(list.contains(&json!({"status": "OPEN", "is_custom": false})));
    assert!(list.contains(&json!({"status": "DELIVERED", "is_custom": false})));
    assert!(list.contains(&json!({"status": "RETURNED", "is_custom": true})));
    assert!(!list
        .iter()
        .any(|s| s["status"].as_str().unwrap().starts_with("PARTIALLY_")));
}

#[tokio::test]
async fn a_custom_status_is_stored_exactly_as_sent() {
    let api = Api::start();
    let r = api
        .post("/v2/order-statuses", json!({"status": " Left at door "}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    assert_eq!(
        r.body,
        json!({"order_status": {"status": " Left at door ", "is_custom": true}})
    );
    let list = api.get("/v2/order-statuses").await.body["order_statuses"].clone();
    assert!(list
        .as_array()
        .unwrap()
        .contains(&json!({"status": " Left at door ", "is_custom": true})));
}

#[tokio::test]
async fn adding_a_duplicate_a_default_or_a_badly_sized_status_is_400() {
    let api = Api::start();
    for body in [
        json!({"status": "RETURNED"}),
        json!({"status": "DELIVERED"}),
        json!({"status": ""}),
        json!({"status": "x".repeat(256)}),
        json!({"status": 5}),
        json!({}),
    ] {
        let r = api.post("/v2/order-statuses", body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(r.name(), "INVALID_INPUT");
    }
}

#[tokio::test]
async fn a_refused_status_is_the_issue_received() {
    let api = Api::start();
    for status in ["RETURNED", "DELIVERED", "PARTIALLY_DELIVERED"] {
        let r = api
            .post("/v2/order-statuses", json!({"status": status}))
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{status}");
        assert_eq!(
            r.body["details"]["validationErrors"][0]["received"], status,
            "{}",
            r.body
        );
    }
    let r = api.delete("/v2/order-statuses/OPEN").await;
    assert_eq!(r.body["details"]["validationErrors"][0]["received"], "OPEN");
}

#[tokio::test]
async fn removing_a_default_is_400_and_an_unknown_404() {
    let api = Api::start();
    assert_eq!(
        api.delete("/v2/order-statuses/OPEN").await.status,
        StatusCode::BAD_REQUEST
    );
    let r = api.delete("/v2/order-statuses/NEVER").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.name(), "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn a_removed_status_stays_on_the_orders_carrying_it() {
    let api = Api::start();
    api.post("/v2/order-statuses", json!({"status": "Left at door"}))
        .await;
    let mut o = delivery("A");
    o["line_items"] = json!([{"product_code": "P", "product_name": "a", "product_quantity": 1, "status": "Left at door"}]);
    let id = api.post_orders(json!([o])).await[0];
    let r = api.delete("/v2/order-statuses/Left%20at%20door").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body, json!({"deleted": {"status": "Left at door"}}));
    assert_eq!(
        api.get(&format!("/v2/orders/{id}")).await.body["order"]["status"],
        "Left at door"
    );
}

#[tokio::test]
async fn order_statuses_are_organisation_wide() {
    let api = Api::start();
    api.post("/v2/order-statuses", json!({"status": "Damaged"}))
        .await;
    let other = api
        .call_as(
            &api.other_key.clone(),
            axum::http::Method::GET,
            "/v2/order-statuses",
            None,
        )
        .await;
    assert!(other.body["order_statuses"]
        .as_array()
        .unwrap()
        .contains(&json!({"status": "Damaged", "is_custom": true})));
}
