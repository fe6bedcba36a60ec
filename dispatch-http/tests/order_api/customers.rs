use axum::http::{Method, StatusCode};
use serde_json::{json, Value};

use super::Api;

fn customer(account: &str) -> Value {
    json!({"account": account, "address": "1 High St"})
}

#[tokio::test]
async fn customers_post_creates_or_updates_by_account_and_answers_201_in_request_order() {
    let api = Api::start();
    let r = api
        .post("/v2/customers", json!([customer("A"), customer("B")]))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.body);
    let ids: Vec<i64> = r.body["customers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_i64().unwrap())
        .collect();
    assert_eq!(r.body["customers"][1]["account"], "B");
    assert_eq!(r.body["errors"], json!([]));
    let again = api.post("/v2/customers/", json!([customer("B")])).await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_eq!(again.body["customers"][0]["id"].as_i64().unwrap(), ids[1]);
}

#[tokio::test]
async fn customers_post_refuses_unknown_properties() {
    let api = Api::start();
    let r = api
        .post(
            "/v2/customers",
            json!([{"account": "A", "address": "x", "colour": "red"}]),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.name(), "INVALID_INPUT");
    assert_eq!(r.paths(), ["0.colour"]);
}

#[tokio::test]
async fn customers_post_carries_at_most_100_customers() {
    let api = Api::start();
    let many: Vec<Value> = (0..101).map(|i| customer(&format!("C{i}"))).collect();
    let r = api.post("/v2/customers", Value::Array(many)).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn customers_post_any_invalid_customer_rejects_the_whole_batch() {
    let api = Api::start();
    let bad = json!({"account": "B", "address": "x", "duration": 0, "email": "nope"});
    let r = api.post("/v2/customers", json!([customer("A"), bad])).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["1.email", "1.duration"]);
    let list = api.get("/v2/customers").await;
    assert_eq!(list.body["customers"], json!([]));
}

#[tokio::test]
async fn customers_need_an_address_or_both_coordinates() {
    let api = Api::start();
    let r = api
        .post("/v2/customers", json!([{"account": "A", "lat": 1.0}]))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    let r = api
        .post(
            "/v2/customers",
            json!([{"account": "A", "lat": 1.0, "lng": 2.0}]),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
}

#[tokio::test]
async fn customers_omitted_fields_are_kept_sent_arrays_replace_and_empty_clears() {
    let api = Api::start();
    let first = json!([{"account": "A", "address": "1 High St", "name": "Ann", "tags": ["Fragile"],
        "time_windows": [{"from": "08:00"}]}]);
    let id = api.post("/v2/customers", first).await.body["customers"][0]["id"]
        .as_i64()
        .unwrap();
    api.post(
        "/v2/customers",
        json!([{"account": "A", "phone": "123", "tags": []}]),
    )
    .await;
    let c = api.get(&format!("/v2/customers/{id}")).await.body["customer"].clone();
    assert_eq!(
        (c["name"].as_str(), c["phone"].as_str()),
        (Some("Ann"), Some("123"))
    );
    assert_eq!(c["tags"], json!([]));
    assert_eq!(c["time_windows"], json!([{"from": "08:00", "to": null}]));
}

#[tokio::test]
async fn customer_references_match_by_id_and_name_ignoring_case_and_unknown_are_dropped() {
    let api = Api::start();
    let body = json!([{"account": "A", "address": "1 High St",
        "capacities": [{"id": 1, "capacity": 5}, {"id": 999, "capacity": 1}],
        "tags": ["fragile", "Nope"],
        "custom_fields": [{"name": "GATE CODE", "value": "1234"}, {"id": 999, "value": "x"}]}]);
    let id = api.post("/v2/customers", body).await.body["customers"][0]["id"]
        .as_i64()
        .unwrap();
    let c = api.get(&format!("/v2/customers/{id}")).await.body["customer"].clone();
    assert_eq!(
        c["capacities"],
        json!([{"id": 1, "type": "Weight", "capacity": 5}])
    );
    assert_eq!(c["tags"], json!(["Fragile"]));
    assert_eq!(
        c["custom_fields"],
        json!([{"value": "1234", "custom_field_type": {"name": "Gate code", "type": "TEXT", "id": 1}}])
    );
}

#[tokio::test]
async fn customers_are_geocoded_and_a_failure_is_saved_without_coordinates() {
    let api = Api::start();
    let r = api
        .post(
            "/v2/customers",
            json!([customer("A"), {"account": "B", "address": "Nowhere"}]),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert_eq!(r.body["errors"][0]["name"], "GEOCODING_FAILED");
    assert_eq!(r.body["errors"][0]["details"]["account"], "B");
    let a = r.body["customers"][0]["id"].as_i64().unwrap();
    let b = r.body["customers"][1]["id"].as_i64().unwrap();
    assert_eq!(
        api.get(&format!("/v2/customers/{a}")).await.body["customer"]["lat"],
        51.5
    );
    assert_eq!(
        api.get(&format!("/v2/customers/{b}")).await.body["customer"]["lat"],
        Value::Null
    );
}

#[tokio::test]
async fn customer_list_is_most_recently_updated_first_with_list_view_fields_and_pages() {
    let api = Api::start();
    for a in ["A", "B", "C"] {
        api.post("/v2/customers", json!([customer(a)])).await;
    }
    let first = api.get("/v2/customers?limit=2").await;
    let accounts: Vec<&str> = first.body["customers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["account"].as_str().unwrap())
        .collect();
    assert_eq!(accounts, ["C", "B"]);
    let keys: Vec<&String> = first.body["customers"][0]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys.len(), 13);
    assert!(first.body["customers"][0].get("tags").is_none());
    let next = first.next_link().expect("a next link");
    let second = api.get(&next).await;
    assert_eq!(second.body["customers"][0]["account"], "A");
    assert!(second.next_link().is_none());
    assert_eq!(
        api.get("/v2/customers?page_info=garbage").await.status,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn customer_detail_is_404_for_unknown_ids_and_other_depots() {
    let api = Api::start();
    let id = api.post("/v2/customers", json!([customer("A")])).await.body["customers"][0]["id"]
        .as_i64()
        .unwrap();
    assert_eq!(
        api.get("/v2/customers/99999").await.status,
        StatusCode::NOT_FOUND
    );
    let other = api
        .call_as(
            &api.other_key.clone(),
            Method::GET,
            &format!("/v2/customers/{id}"),
            None,
        )
        .await;
    assert_eq!(other.status, StatusCode::NOT_FOUND);
    assert_eq!(other.name(), "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn customer_put_is_partial_and_matches_custom_fields_by_id_only() {
    let api = Api::start();
    let id = api
        .post(
            "/v2/customers",
            json!([{"account": "A", "address": "1 High St", "name": "Ann"}]),
        )
        .await
        .body["customers"][0]["id"]
        .as_i64()
        .unwrap();
    let r = api
        .put(
            &format!("/v2/customers/{id}"),
            json!({"phone": "9", "custom_fields": [{"name": "Gate code", "value": "1"}]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["customer"]["name"], "Ann");
    assert_eq!(r.body["customer"]["phone"], "9");
    assert_eq!(r.body["customer"]["custom_fields"], json!([]));
    assert_eq!(r.body["errors"], json!([]));
    let r = api
        .put(
            &format!("/v2/customers/{id}"),
            json!({"custom_fields": [{"id": 1, "value": "1"}]}),
        )
        .await;
    assert_eq!(r.body["customer"]["custom_fields"][0]["value"], "1");
}

#[tokio::test]
async fn customer_put_refuses_another_customers_account_and_unknown_ids() {
    let api = Api::start();
    let r = api
        .post("/v2/customers", json!([customer("A"), customer("B")]))
        .await;
    let a = r.body["customers"][0]["id"].as_i64().unwrap();
    let r = api
        .put(&format!("/v2/customers/{a}"), json!({"account": "B"}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.paths(), ["account"]);
    assert_eq!(
        api.put("/v2/customers/99999", json!({"name": "x"}))
            .await
            .status,
        StatusCode::NOT_FOUND
    );
}

#[tokio::test]
async fn customer_put_regeocodes_a_changed_address_and_reports_failure_in_errors() {
    let api = Api::start();
    let id = api.post("/v2/customers", json!([customer("A")])).await.body["customers"][0]["id"]
        .as_i64()
        .unwrap();
    let r = api
        .put(
            &format!("/v2/customers/{id}"),
            json!({"address": "2 Low St"}),
        )
        .await;
    assert_eq!(r.body["customer"]["lat"], 52.5);
    let r = api
        .put(
            &format!("/v2/customers/{id}"),
            json!({"address": "Nowhere"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.body["customer"]["address"], "Nowhere");
    assert_eq!(r.body["customer"]["lat"], Value::Null);
    assert_eq!(r.body["errors"][0]["name"], "GEOCODING_FAILED");
}

#[tokio::test]
async fn a_read_key_cannot_write_customers() {
    let api = Api::start();
    let r = api
        .call_as(
            &api.read_key.clone(),
            Method::POST,
            "/v2/customers",
            Some(json!([customer("A")])),
        )
        .await;
    assert_eq!(r.status, StatusCode::FORBIDDEN);
    assert_eq!(r.name(), "PERMISSION");
}

#[tokio::test]
async fn a_depot_holds_at_most_300000_customers() {
    let api = Api::start();
    super::test_sql::execute(
        &api.db,
        &format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 299999) \
             INSERT INTO customers (depot_id, account, address, capacities, skills, tags, \
             time_windows, custom_fields, created, updated) \
             SELECT {}, 'bulk-' || i, 'x', '[]', '[]', '[]', '[]', '[]', 0, 0 FROM n",
            api.north.depot_id
        ),
    );
    let over = api
        .post("/v2/customers", json!([customer("A"), customer("B")]))
        .await;
    assert_eq!(over.status, StatusCode::BAD_REQUEST);
    assert_eq!(over.paths(), ["1"]);
    let at_limit = api.post("/v2/customers", json!([customer("A")])).await;
    assert_eq!(at_limit.status, StatusCode::CREATED);
    let update = api
        .post("/v2/customers", json!([customer("A"), customer("bulk-7")]))
        .await;
    assert_eq!(
        update.status,
        StatusCode::CREATED,
        "updates do not count against the limit"
    );
    assert_eq!(
        api.post("/v2/customers", json!([customer("B")]))
            .await
            .status,
        StatusCode::BAD_REQUEST
    );
}

#[tokio::test]
async fn customer_skills_match_existing_skills_ignoring_case() {
    let api = Api::start();
    let van = json!({"name": "Van", "availability": "always", "start_location": "depot", "end_location": "depot",
        "skills": ["Forklift"]});
    assert_eq!(api.post("/v2/vehicles", van).await.status, StatusCode::OK);
    let body = json!([{"account": "A", "address": "1 High St", "skills": ["FORKLIFT", "Diving"]}]);
    let id = api.post("/v2/customers", body).await.body["customers"][0]["id"]
        .as_i64()
        .unwrap();
    let c = api.get(&format!("/v2/customers/{id}")).await.body["customer"].clone();
    assert_eq!(c["skills"], json!(["Forklift"]));
}

#[tokio::test]
async fn every_email_the_service_takes_must_be_a_plain_address() {
    let api = Api::start();
    for bad in [
        "<a@b.example>",
        "Ann <a@b.example>",
        "a@b",
        "a@[127.0.0.1]",
        "a..b@example.com",
    ] {
        let r = api
            .post(
                "/v2/customers",
                json!([{"account": "E", "lat": 1.0, "lng": 2.0, "email": bad}]),
            )
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}");
        assert_eq!(r.paths(), ["0.email"], "{bad}");
        let order = json!({
            "order_number": "E-1", "type": "delivery", "delivery_lat": 1.0, "delivery_lng": 2.0,
            "delivery_contact_email": bad, "pickup_contact_email": bad,
            "emails": [{"email": bad}],
            "customer": {"account": "EC", "email": bad},
        });
        let r = api.post("/v2/orders", json!([order])).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bad}: {:#}", r.body);
        let mut paths = r.paths();
        paths.sort();
        assert_eq!(
            paths,
            [
                "0.customer.email",
                "0.delivery_contact_email",
                "0.emails.0.email",
                "0.pickup_contact_email",
            ],
            "{bad}"
        );
    }
    let good = json!([{"account": "G", "lat": 1.0, "lng": 2.0, "email": "first.last+tag@sub.example.co.uk"}]);
    let r = api.post("/v2/customers", good).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:#}", r.body);
}
