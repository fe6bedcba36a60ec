//! Text that becomes the key of a unique index has a length limit every store can hold:
//! PostgreSQL refuses index entries of more than about 2.7 kB, so without a rule a long
//! order_number or skill name was a storage failure (500) there and accepted on SQLite.

use axum::http::StatusCode;
use serde_json::json;

use super::{delivery, Api};

/// `n` characters of four bytes each (the widest UTF-8), different at every place so that
/// the store cannot compress them below its index entry limit.
fn wide_text(n: usize) -> String {
    (0..n)
        .map(|i| char::from_u32(0x1F300 + (i as u32 * 7919) % 0x300).unwrap())
        .collect()
}

#[tokio::test]
async fn an_order_number_of_255_wide_characters_is_stored_and_found_by_number() {
    let api = Api::start();
    let number = wide_text(255);
    let r = api.post("/v2/orders", json!([delivery(&number)])).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    // Posting it again updates the stored order: the unique key matched.
    let again = api.post("/v2/orders", json!([delivery(&number)])).await;
    assert_eq!(again.status, StatusCode::OK, "{}", again.body);
    assert_eq!(again.body["orders"][0]["id"], r.body["orders"][0]["id"]);
    assert_eq!(again.body["orders"][0]["order_number"], number.as_str());
}

#[tokio::test]
async fn an_order_number_longer_than_255_characters_is_refused_at_its_path() {
    let api = Api::start();
    let r = api
        .post(
            "/v2/orders",
            json!([delivery("A"), delivery(&wide_text(256))]),
        )
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert_eq!(r.paths(), ["1.order_number"]);
    assert_eq!(api.get("/v2/orders").await.body["orders"], json!([]));
}

#[tokio::test]
async fn a_vehicle_skill_name_longer_than_255_characters_is_refused_and_255_is_kept() {
    let api = Api::start();
    let vehicle = |skill: String| {
        json!({"name": "Van", "availability": "shift", "shift_start": "08:00",
            "shift_end": "18:00", "start_location": "depot", "end_location": "depot",
            "skills": [skill]})
    };
    let r = api.post("/v2/vehicles", vehicle(wide_text(256))).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", r.body);
    assert_eq!(r.paths(), ["skills.0"]);
    let kept = wide_text(255);
    let r = api.post("/v2/vehicles", vehicle(kept.clone())).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.body);
    assert_eq!(r.body["vehicle"]["skills"], json!([kept]));
}
