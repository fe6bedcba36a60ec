use axum::http::StatusCode;
use dispatch_core::events::DomainEvent;
use serde_json::json;

use super::{delivery, Api};

async fn one(api: &Api, order: serde_json::Value) -> i64 {
    api.post_orders(json!([order])).await[0]
}

#[tokio::test]
async fn order_put_changes_only_sent_fields_and_answers_order_and_errors() {
    let api = Api::start();
    let mut o = delivery("A");
    o["priority"] = json!("P1");
    let id = one(&api, o).await;
    let r = api
        .put(&format!("/v2/orders/{id}"), json!({"parts": 3}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["order"]["parts"], 3);
    assert_eq!(r.body["order"]["priority"], "P1");
    assert_eq!(r.body["errors"], json!([]));
    assert_eq!(
        api.put("/v2/orders/99999", json!({"parts": 1}))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn order_put_refuses_an_order_number_of_another_order() {
    let api = Api::start();
    let ids = api.post_orders(json!([delivery("A"), delivery("B")])).await;
    let r = api
        .put(
            &format!("/v2/orders/{}", ids[0]),
            json!({"order_number": "B"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["order_number"]);
    let r = api
        .put(
            &format!("/v2/orders/{}", ids[0]),
            json!({"order_number": "A2"}),
        )
        .await;
    assert_eq!(r.body["order"]["order_number"], "A2");
}

#[tokio::test]
async fn order_put_refuses_a_type_change_that_leaves_a_required_address_missing() {
    let api = Api::start();
    let id = one(&api, delivery("A")).await;
    let r = api
        .put(&format!("/v2/orders/{id}"), json!({"type": "shipment"}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["type"]);
    let r = api
        .put(
            &format!("/v2/orders/{id}"),
            json!({"type": "shipment", "pickup_address": "2 Low St"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["order"]["pickup_lat"], 52.5);
}

#[tokio::test]
async fn order_put_cannot_change_the_customer() {
    let api = Api::start();
    let mut o = delivery("A");
    o["customer"] = json!({"account": "C1"});
    let id = one(&api, o).await;
    let cid = api.get(&format!("/v2/orders/{id}")).await.body["order"]["customer_id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        api.put(&format!("/v2/orders/{id}"), json!({"customer_id": cid}))
            .await
            .status,
        StatusCode::OK
    );
    let r = api
        .put(&format!("/v2/orders/{id}"), json!({"customer_id": cid + 1}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["customer_id"]);
}

#[tokio::test]
async fn order_put_exchange_only_renames_an_existing_pair() {
    let api = Api::start();
    let ex = |n: &str| {
        let mut o = delivery(n);
        o["order_exchange"] = json!({"reference": "X"});
        o
    };
    let ids = api
        .post_orders(json!([ex("A"), ex("B"), delivery("C")]))
        .await;
    let r = api
        .put(
            &format!("/v2/orders/{}", ids[0]),
            json!({"order_exchange": {"reference": "Y"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let partner = api.get(&format!("/v2/orders/{}", ids[1])).await;
    assert_eq!(
        partner.body["order"]["order_exchange"],
        json!({"reference": "Y"})
    );
    let r = api
        .put(
            &format!("/v2/orders/{}", ids[2]),
            json!({"order_exchange": {"reference": "Z"}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["order_exchange"]);
}

#[tokio::test]
async fn order_put_replaces_lists_and_matches_line_items_by_product_code() {
    let api = Api::start();
    let o = json!({"order_number": "A", "type": "delivery", "delivery_address": "1 High St", "tags": ["Fragile"],
        "emails": [{"email": "a@example.com"}],
        "line_items": [{"product_code": "P1", "product_name": "a", "product_quantity": 1},
                       {"product_code": "P2", "product_name": "b", "product_quantity": 2}]});
    let id = one(&api, o).await;
    let before = api.get(&format!("/v2/orders/{id}")).await.body["order"].clone();
    let p2 = before["line_items"][1]["id"].clone();
    let r = api
        .put(
            &format!("/v2/orders/{id}"),
            json!({"tags": [], "line_items": [{"product_code": "P2", "product_quantity": 5},
                {"product_code": "P3", "product_name": "c", "product_quantity": 1}]}),
        )
        .await;
    let after = &r.body["order"];
    assert_eq!(after["tags"], json!([]));
    assert_eq!(after["emails"], json!([{"email": "a@example.com"}]));
    assert_eq!(after["line_items"][0]["id"], p2);
    assert_eq!(after["line_items"][0]["product_quantity"], 5);
    assert_eq!(after["line_items"][0]["product_name"], "b");
    assert_eq!(after["line_items"][1]["product_code"], "P3");
    assert_eq!(after["line_items"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn order_put_time_windows_replace_every_window_of_the_order() {
    let api = Api::start();
    let mut o = delivery("A");
    o["delivery_time_windows"] = json!([{"from": "08:00", "to": "09:00"}]);
    o["pickup_time_windows"] = json!([{"from": "06:00", "to": "07:00"}]);
    let id = one(&api, o).await;
    let r = api
        .put(
            &format!("/v2/orders/{id}"),
            json!({"time_windows": [{"from": "10:00", "to": "11:00", "type": "delivery"}]}),
        )
        .await;
    let o = &r.body["order"];
    assert_eq!(
        o["time_windows"],
        json!([{"from": "10:00", "to": "11:00", "type": "delivery"}])
    );
    assert_eq!(
        o["delivery_time_windows"],
        json!([{"from": "10:00", "to": "11:00"}])
    );
    assert_eq!(o["pickup_time_windows"], json!([]));
}

#[tokio::test]
async fn order_put_geocodes_a_changed_address_and_reports_failure_in_errors() {
    let api = Api::start();
    let id = one(&api, delivery("A")).await;
    let r = api
        .put(
            &format!("/v2/orders/{id}"),
            json!({"delivery_address": "Nowhere"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["order"]["delivery_lat"], serde_json::Value::Null);
    assert_eq!(r.body["errors"][0]["name"], "GEOCODING_FAILED");
}

#[tokio::test]
async fn line_item_statuses_derive_partially_statuses_and_write_orders_status_events() {
    let api = Api::start();
    let o = json!({"order_number": "A", "type": "delivery", "delivery_address": "1 High St",
        "line_items": [{"product_code": "P1", "product_name": "a", "product_quantity": 1},
                       {"product_code": "P2", "product_name": "b", "product_quantity": 1}]});
    let id = one(&api, o).await;
    let r = api
        .put(&format!("/v2/orders/{id}"), json!({"line_items": [{"product_code": "P1", "status": "DELIVERED"}, {"product_code": "P2"}]}))
        .await;
    assert_eq!(r.body["order"]["status"], "PARTIALLY_DELIVERED");
    assert_eq!(
        api.events(),
        vec![DomainEvent::OrderStatus {
            order_id: id,
            order_number: "A".into(),
            status: "PARTIALLY_DELIVERED".into()
        }]
    );
    let listed = api.get("/v2/orders?status=partially_delivered").await;
    assert_eq!(listed.body["orders"][0]["id"], id);
    let r = api
        .put(
            &format!("/v2/orders/{id}"),
            json!({"line_items": [{"product_code": "P1", "status": "PARTIALLY_DELIVERED"}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["line_items.0.status"]);
}
