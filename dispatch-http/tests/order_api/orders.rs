use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

use super::{delivery, Api};

#[tokio::test]
async fn orders_post_answers_200_listing_every_order_with_string_ids() {
    let api = Api::start();
    let r = api
        .post("/v2/orders", json!([delivery("A"), delivery("B")]))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert!(r.body["orders"][0]["id"].is_string());
    assert_eq!(r.body["orders"][1]["order_number"], "B");
    assert_eq!(r.body["errors"], json!([]));
    let id = r.body["orders"][0]["id"].as_str().unwrap();
    let o = api.get(&format!("/v2/orders/{id}")).await;
    assert_eq!(o.body["order"]["status"], "OPEN");
    assert_eq!(o.body["order"]["delivery_lat"], 51.5);
}

#[tokio::test]
async fn orders_post_rejects_the_whole_batch_for_a_repeated_order_number() {
    let api = Api::start();
    let r = api
        .post("/v2/orders", json!([delivery("A"), delivery("A")]))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["1.order_number"]);
    assert_eq!(api.get("/v2/orders").await.body["orders"], json!([]));
}

#[tokio::test]
async fn orders_post_rejects_a_shipment_without_pickup_and_delivery_data() {
    let api = Api::start();
    let shipment =
        json!({"order_number": "S", "type": "shipment", "delivery_address": "1 High St"});
    let r = api
        .post("/v2/orders", json!([delivery("A"), shipment]))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["1.pickup_address"]);
    let pickup = json!({"order_number": "P", "type": "pickup", "delivery_address": "1 High St"});
    assert_eq!(
        api.post("/v2/orders", json!([pickup])).await.paths(),
        ["0.pickup_address"]
    );
}

#[tokio::test]
async fn orders_post_rejects_an_exchange_reference_not_shared_by_exactly_two_orders() {
    let api = Api::start();
    let ex = |n: &str| {
        let mut o = delivery(n);
        o["order_exchange"] = json!({"reference": "X1"});
        o
    };
    let r = api.post("/v2/orders", json!([ex("A")])).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["0.order_exchange.reference"]);
    assert_eq!(
        api.post("/v2/orders", json!([ex("A"), ex("B"), ex("C")]))
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
    let ids = api.post_orders(json!([ex("A"), ex("B")])).await;
    let o = api.get(&format!("/v2/orders/{}", ids[0])).await;
    assert_eq!(
        o.body["order"]["order_exchange"],
        json!({"reference": "X1"})
    );
}

#[tokio::test]
async fn orders_post_checks_field_rules_with_paths() {
    let api = Api::start();
    let bad = json!({"order_number": "A", "type": "parcel", "priority": "P9", "delivery_address": "x",
        "delivery_date": "22/11/2026", "line_items": [{"product_code": "X"}], "colour": 1});
    let r = api.post("/v2/orders", json!([bad])).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["0.colour"]);
    let mut bad = bad;
    bad.as_object_mut().unwrap().remove("colour");
    let r = api.post("/v2/orders", json!([bad])).await;
    assert_eq!(r.paths(), ["0.type", "0.priority", "0.delivery_date"]);
}

#[tokio::test]
async fn orders_post_with_an_existing_number_updates_and_keeps_the_status() {
    let api = Api::start();
    let ids = api
        .post_orders(
            json!([{"order_number": "A", "type": "delivery", "delivery_address": "1 High St",
        "line_items": [{"product_code": "P", "product_name": "Thing", "product_quantity": 1}]}]),
        )
        .await;
    api.put(
        &format!("/v2/orders/{}", ids[0]),
        json!({"line_items": [{"product_code": "P", "status": "DELIVERED"}]}),
    )
    .await;
    let again = api
        .post_orders(
            json!([{"order_number": "A", "type": "delivery", "delivery_address": "2 Low St",
        "line_items": [{"product_code": "P", "product_name": "Thing", "product_quantity": 1}]}]),
        )
        .await;
    assert_eq!(again, ids);
    let o = api.get(&format!("/v2/orders/{}", ids[0])).await.body["order"].clone();
    assert_eq!(o["status"], "DELIVERED");
    assert_eq!(o["delivery_address"], "2 Low St");
}

#[tokio::test]
async fn orders_post_restores_a_deleted_order_under_its_original_id() {
    let api = Api::start();
    let ids = api.post_orders(json!([delivery("A")])).await;
    api.delete("/v2/orders/order-number/A").await;
    assert_eq!(
        api.get(&format!("/v2/orders/{}", ids[0])).await.status,
        StatusCode::NOT_FOUND
    );
    let again = api.post_orders(json!([delivery("A")])).await;
    assert_eq!(again, ids);
    assert_eq!(
        api.get(&format!("/v2/orders/{}", ids[0])).await.status,
        StatusCode::OK
    );
}

#[tokio::test]
async fn orders_post_is_idempotent_by_content() {
    let api = Api::start();
    let body = json!([{"order_number": "A", "type": "delivery", "delivery_address": "1 High St", "tags": ["Fragile"],
        "line_items": [{"product_code": "P", "product_name": "Thing", "product_quantity": 2, "product_unit_price": 1.5}]}]);
    let ids = api.post_orders(body.clone()).await;
    let first = api.get(&format!("/v2/orders/{}", ids[0])).await.body["order"].clone();
    api.post_orders(body).await;
    let mut second = api.get(&format!("/v2/orders/{}", ids[0])).await.body["order"].clone();
    assert_ne!(first["updated"], second["updated"]);
    second["updated"] = first["updated"].clone();
    assert_eq!(first, second);
}

#[tokio::test]
async fn an_order_without_customer_is_403_permission_where_the_depot_requires_one() {
    let api = Api::start();
    let key = api.strict_key.clone();
    let r = api
        .call_as(
            &key,
            Method::POST,
            "/v2/orders",
            Some(json!([delivery("A")])),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.name(), "PERMISSION");
    let mut with = delivery("A");
    with["customer"] = json!({"account": "C1"});
    let r = api
        .call_as(&key, Method::POST, "/v2/orders", Some(json!([with])))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
}

#[tokio::test]
async fn order_customers_resolve_by_id_or_account_and_a_differing_account_is_written() {
    let api = Api::start();
    let cid = api
        .post(
            "/v2/customers",
            json!([{"account": "C1", "address": "1 High St"}]),
        )
        .await
        .body["customers"][0]["id"]
        .as_i64()
        .unwrap();
    let mut by_account = delivery("A");
    by_account["customer"] = json!({"account": "C1"});
    let mut by_id = delivery("B");
    by_id["customer"] = json!({"id": cid, "account": "C1-renamed"});
    let ids = api.post_orders(json!([by_account, by_id])).await;
    for id in &ids {
        assert_eq!(
            api.get(&format!("/v2/orders/{id}")).await.body["order"]["customer_id"],
            cid
        );
    }
    assert_eq!(
        api.get(&format!("/v2/customers/{cid}")).await.body["customer"]["account"],
        "C1-renamed"
    );
    let mut unknown = delivery("C");
    unknown["customer"] = json!({"id": 99999});
    assert_eq!(
        api.post("/v2/orders", json!([unknown])).await.paths(),
        ["0.customer.id"]
    );
    let mut neither = delivery("C");
    neither["customer"] = json!({"name": "x"});
    assert_eq!(
        api.post("/v2/orders", json!([neither])).await.paths(),
        ["0.customer"]
    );
}

#[tokio::test]
async fn unknown_custom_fields_capacities_and_tags_are_skipped() {
    let api = Api::start();
    let mut o = delivery("A");
    o["tags"] = json!(["fragile", "Unknown"]);
    o["capacities"] = json!([{"type": "weight", "capacity": 3}, {"id": 999, "capacity": 1}]);
    o["custom_fields"] =
        json!([{"name": "Gate code", "value": "42"}, {"name": "Nope", "value": "x"}]);
    let ids = api.post_orders(json!([o])).await;
    let o = api.get(&format!("/v2/orders/{}", ids[0])).await.body["order"].clone();
    assert_eq!(o["tags"], json!(["Fragile"]));
    assert_eq!(
        o["capacities"],
        json!([{"id": 1, "type": "Weight", "capacity": 3}])
    );
    assert_eq!(
        o["custom_fields"],
        json!([{"id": 1, "name": "Gate code", "value": "42"}])
    );
}

#[tokio::test]
async fn a_failed_geocode_is_a_per_item_error_and_the_order_is_saved() {
    let api = Api::start();
    let mut lost = delivery("B");
    lost["delivery_address"] = json!("Nowhere");
    let r = api.post("/v2/orders", json!([delivery("A"), lost])).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["orders"].as_array().unwrap().len(), 2);
    assert_eq!(r.body["errors"][0]["name"], "GEOCODING_FAILED");
    assert_eq!(r.body["errors"][0]["details"]["order_number"], "B");
    assert_eq!(r.body["errors"][0]["details"]["is_created"], true);
}

#[tokio::test]
async fn depot_orders_post_accepts_only_its_property_list_and_only_the_callers_depot() {
    let api = Api::start();
    let depot = api.north.depot_id;
    let r = api
        .post(
            &format!("/v2/depots/{depot}/orders"),
            json!([delivery("A")]),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    let mut with_priority = delivery("B");
    with_priority["priority"] = json!("P1");
    let r = api
        .post(
            &format!("/v2/depots/{depot}/orders"),
            json!([with_priority]),
        )
        .await;
    assert_eq!(r.paths(), ["0.priority"]);
    let other = api
        .post(
            &format!("/v2/depots/{}/orders", depot + 1),
            json!([delivery("C")]),
        )
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn order_values_derive_from_line_items_unless_given() {
    let api = Api::start();
    let o = json!({"order_number": "A", "type": "delivery", "delivery_address": "1 High St", "line_items": [
        {"product_code": "P1", "product_name": "a", "product_quantity": 3, "product_unit_price": 2.5},
        {"product_code": "P2", "product_name": "b", "product_quantity": 1, "product_value": 1.25},
        {"product_code": "P3", "product_name": "c", "product_quantity": 2, "product_unit_price": 3}]});
    let ids = api.post_orders(json!([o])).await;
    let o = api.get(&format!("/v2/orders/{}", ids[0])).await.body["order"].clone();
    assert_eq!(o["line_items"][0]["product_value"], 7.5);
    assert_eq!(o["line_items"][0]["product_value_source"], "DERIVED");
    assert_eq!(o["line_items"][1]["product_value_source"], "MANUAL");
    assert_eq!(
        o["line_items"][2]["product_value"],
        json!(6),
        "whole amounts render without a fraction"
    );
    assert_eq!(o["order_value"], 14.75);
    assert_eq!(o["value_source"], "DERIVED");
    assert!(o["currency"].is_string());
}

#[tokio::test]
async fn order_value_has_two_decimals_at_most_10000000_and_only_without_valued_line_items() {
    let api = Api::start();
    let with = |v: Value| {
        let mut o = delivery("A");
        o["order_value"] = v;
        json!([o])
    };
    assert_eq!(
        api.post("/v2/orders", with(json!(12.345))).await.paths(),
        ["0.order_value"]
    );
    assert_eq!(
        api.post("/v2/orders", with(json!(10000000.01)))
            .await
            .paths(),
        ["0.order_value"]
    );
    let ids = api.post_orders(with(json!(99.5))).await;
    let o = api.get(&format!("/v2/orders/{}", ids[0])).await.body["order"].clone();
    assert_eq!(
        (o["order_value"].as_f64(), o["value_source"].as_str()),
        (Some(99.5), Some("MANUAL"))
    );
    let mut valued = delivery("B");
    valued["order_value"] = json!(5);
    valued["line_items"] = json!([{"product_code": "P", "product_name": "a", "product_quantity": 1, "product_unit_price": 1}]);
    assert_eq!(
        api.post("/v2/orders", json!([valued])).await.paths(),
        ["0.order_value"]
    );
}

#[tokio::test]
async fn order_list_filters_combine_and_travel_in_the_next_link() {
    let api = Api::start();
    let dated = |n: &str, date: &str| {
        let mut o = delivery(n);
        o["delivery_date"] = json!(date);
        o
    };
    let orders: Vec<Value> = (0..5)
        .map(|i| dated(&format!("D{i}"), "2026-11-23"))
        .collect();
    api.post_orders(Value::Array(orders)).await;
    api.post_orders(json!([dated("X", "2026-11-24")])).await;
    let first = api
        .get("/v2/orders?status=open&date=2026-11-23&limit=2")
        .await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.body);
    let mut numbers: Vec<String> = Vec::new();
    let mut page = first;
    loop {
        numbers.extend(
            page.body["orders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["order_number"].as_str().unwrap().to_owned()),
        );
        let Some(next) = page.next_link() else { break };
        page = api.get(&next).await;
    }
    assert_eq!(numbers, ["D4", "D3", "D2", "D1", "D0"]);
    let one = api.get("/v2/orders?order_number=X").await;
    assert_eq!(one.body["orders"][0]["order_number"], "X");
    let summary = one.body["orders"][0].as_object().unwrap();
    let mut keys: Vec<&str> = summary.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "created",
            "customer",
            "id",
            "line_items",
            "order_number",
            "status",
            "stops",
            "type",
            "updated"
        ]
    );
}

#[tokio::test]
async fn order_list_refuses_an_unknown_status_a_bad_date_and_a_non_integer_customer() {
    let api = Api::start();
    assert_eq!(
        api.get("/v2/orders?status=SHIPPED").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        api.get("/v2/orders?status=returned").await.status,
        StatusCode::OK
    );
    assert_eq!(
        api.get("/v2/orders?date=23-11-2026").await.status,
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        api.get("/v2/orders?customer_id=abc").await.status,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn order_list_filters_by_customer() {
    let api = Api::start();
    let mut mine = delivery("A");
    mine["customer"] = json!({"account": "C1"});
    api.post_orders(json!([mine, delivery("B")])).await;
    let all = api.get("/v2/orders").await;
    let cid = all.body["orders"][1]["customer"]["id"].as_i64().unwrap();
    assert_eq!(all.body["orders"][1]["customer"]["account"], "C1");
    let r = api.get(&format!("/v2/orders?customer_id={cid}")).await;
    assert_eq!(r.body["orders"].as_array().unwrap().len(), 1);
}

#[tokio::test]
async fn an_order_read_is_404_when_unknown_deleted_or_in_another_depot() {
    let api = Api::start();
    let ids = api.post_orders(json!([delivery("A")])).await;
    assert_eq!(
        api.get("/v2/orders/99999").await.status,
        StatusCode::NOT_FOUND
    );
    assert_eq!(
        api.get("/v2/orders/abc").await.status,
        StatusCode::NOT_FOUND
    );
    let other = api
        .call_as(
            &api.other_key.clone(),
            Method::GET,
            &format!("/v2/orders/{}", ids[0]),
            None,
        )
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn delete_by_order_number_counts_and_takes_the_exchange_partner() {
    let api = Api::start();
    let ex = |n: &str| {
        json!({"order_number": n, "type": "delivery", "delivery_address": "1 High St",
        "order_exchange": {"reference": "X"},
        "line_items": [{"product_code": "P", "product_name": "a", "product_quantity": 1}]})
    };
    api.post_orders(json!([ex("A/1"), ex("B")])).await;
    let r = api.delete("/v2/orders/order-number/A%2F1").await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(
        r.body,
        json!({"deleted": {"orders_count": 2, "line_items_count": 2}})
    );
    assert_eq!(api.get("/v2/orders").await.body["orders"], json!([]));
    let unknown = api.delete("/v2/orders/order-number/nope").await;
    assert_eq!(unknown.status, StatusCode::OK);
    assert_eq!(unknown.body["deleted"]["orders_count"], 0);
}

#[tokio::test]
async fn paging_orders_is_stable_while_orders_are_written_between_pages() {
    let api = Api::start();
    let first: Vec<Value> = (0..25).map(|i| delivery(&format!("O{i:02}"))).collect();
    api.post_orders(Value::Array(first)).await;
    let mut seen: Vec<String> = Vec::new();
    let mut page = api.get("/v2/orders?limit=10").await;
    let mut round = 0;
    loop {
        seen.extend(
            page.body["orders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|o| o["order_number"].as_str().unwrap().to_owned()),
        );
        // New orders and an update land at the top of the list; the cursor walks on below.
        api.post_orders(json!([delivery(&format!("NEW{round}"))]))
            .await;
        round += 1;
        let Some(next) = page.next_link() else { break };
        page = api.get(&next).await;
    }
    let mut expected: Vec<String> = (0..25).map(|i| format!("O{i:02}")).collect();
    expected.reverse();
    assert_eq!(
        seen, expected,
        "every original order exactly once, in list order"
    );
}

#[tokio::test]
async fn order_list_takes_updated_at_min_in_both_forms() {
    let api = Api::start();
    api.post_orders(json!([delivery("OLD")])).await;
    // The test clock moves one second after every call: OLD is written at T0, NEW at T0 + 1 s.
    let since_ms = super::T0 + 1_000;
    let since = dispatch_core::time::Timestamp::from_millis(since_ms).to_string();
    api.post_orders(json!([delivery("NEW")])).await;
    let numbers = |r: &super::Reply| -> Vec<String> {
        r.body["orders"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["order_number"].as_str().unwrap().to_owned())
            .collect()
    };
    let iso = api.get(&format!("/v2/orders?updated_at_min={since}")).await;
    assert_eq!(numbers(&iso), ["NEW"]);
    let spaced = since[..19].replace('T', "%20");
    let plain = api
        .get(&format!("/v2/orders?updated_at_min={spaced}"))
        .await;
    assert_eq!(numbers(&plain), ["NEW"]);
    let ignored = api.get("/v2/orders?updated_at_min=yesterday").await;
    assert_eq!(numbers(&ignored), ["NEW", "OLD"]);
}

#[tokio::test]
async fn concurrent_batches_of_the_same_new_numbers_store_each_number_once() {
    let api = Api::start();
    let batch = |from: usize| {
        json!((from..from + 20)
            .map(|n| delivery(&format!("C{n:03}")))
            .collect::<Vec<_>>())
    };
    // Four writers at once, each pair sharing half its numbers with the next.
    let (a, b, c, d) = tokio::join!(
        api.post("/v2/orders", batch(0)),
        api.post("/v2/orders", batch(10)),
        api.post("/v2/orders", batch(20)),
        api.post("/v2/orders", batch(0)),
    );
    let mut ids = std::collections::HashMap::new();
    for r in [a, b, c, d] {
        assert_eq!(r.status, StatusCode::OK, "{}", r.body);
        for o in r.body["orders"].as_array().unwrap() {
            let number = o["order_number"].as_str().unwrap().to_owned();
            let id = o["id"].as_str().unwrap().to_owned();
            assert_eq!(
                ids.entry(number.clone()).or_insert_with(|| id.clone()),
                &id,
                "{number} answered under one id"
            );
        }
    }
    assert_eq!(ids.len(), 40);
    let listed = api.get("/v2/orders?limit=100").await;
    assert_eq!(
        listed.body["orders"].as_array().unwrap().len(),
        40,
        "each number stored once"
    );
}

#[tokio::test]
async fn a_batch_of_new_orders_naming_an_unknown_vehicle_is_refused_at_that_order_and_writes_nothing(
) {
    let api = Api::start();
    let mut assigned = delivery("V");
    assigned["vehicle_assignment"] = json!({"vehicle_id": 999_999});
    let r = api
        .post("/v2/orders", json!([delivery("A"), assigned]))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert_eq!(r.paths(), ["1.vehicle_assignment.vehicle_id"]);
    assert_eq!(api.get("/v2/orders").await.body["orders"], json!([]));
}
