//! Paging wire and the list/bulk tiers on the customer and order endpoints.

use serde_json::{json, Value};

use super::harness::{Resp, Service, DOCS_LINK, OPT_IN};

fn customers(accounts: &[&str]) -> Value {
    Value::Array(
        accounts
            .iter()
            .map(|a| json!({"account": a, "name": a, "lat": 51.5, "lng": -0.12}))
            .collect(),
    )
}

fn order(number: &str) -> Value {
    json!({"order_number": number, "type": "delivery", "delivery_address": "1 High St",
           "delivery_lat": 51.5, "delivery_lng": -0.12})
}

/// The link-values of the `Link` header.
fn link_values(r: &Resp) -> Vec<String> {
    r.header("link")
        .map(|l| {
            l.split(", <")
                .map(|v| v.trim_start_matches('<').to_owned())
                .collect()
        })
        .unwrap_or_default()
}

fn next_path(r: &Resp) -> Option<String> {
    let values = link_values(r);
    let next = values.iter().find(|v| v.ends_with("rel=\"next\""))?;
    let url = next.split('>').next()?;
    Some(url.trim_start_matches("http://dispatch.test").to_owned())
}

#[tokio::test]
async fn list_pages_carry_next_first_and_the_deprecation_link_in_one_header() {
    let s = Service::start(false);
    s.post("/v2/customers", &[], &customers(&["A", "B", "C"]))
        .await;
    let first = s.get("/v2/customers?limit=2", &[]).await;
    assert_eq!(first.status, 200);
    assert_eq!(first.json()["customers"].as_array().unwrap().len(), 2);
    assert_eq!(first.headers.get_all("link").iter().count(), 1);
    let values = link_values(&first);
    assert_eq!(values.len(), 2, "{values:?}");
    assert!(
        values[0].starts_with("http://dispatch.test/v2/customers?page_info="),
        "{values:?}"
    );
    assert!(values[0].ends_with("&limit=2>; rel=\"next\""), "{values:?}");
    assert_eq!(format!("<{}", values[1]), DOCS_LINK);

    let second = s.get(&next_path(&first).unwrap(), &[]).await;
    assert_eq!(second.status, 200);
    assert_eq!(second.json()["customers"].as_array().unwrap().len(), 1);
    assert_eq!(
        second.header("link"),
        Some(DOCS_LINK),
        "last page: no rel=next"
    );

    let opted_in = s.get("/v2/customers?limit=2", &[OPT_IN]).await;
    let values = link_values(&opted_in);
    assert_eq!(values.len(), 1, "{values:?}");
    assert!(values[0].ends_with("rel=\"next\""));
}

#[tokio::test]
async fn out_of_range_limits_fall_back_to_100_and_a_malformed_page_info_is_400() {
    let s = Service::start(false);
    s.post("/v2/customers", &[], &customers(&["A", "B", "C"]))
        .await;
    for limit in ["0", "101", "x"] {
        let r = s.get(&format!("/v2/customers?limit={limit}"), &[]).await;
        assert_eq!(
            r.json()["customers"].as_array().unwrap().len(),
            3,
            "{limit}"
        );
        assert_eq!(next_path(&r), None, "{limit}");
    }
    let r = s.get("/v2/customers?page_info=garbage", &[]).await;
    let body = r.assert_error(400, "INVALID_INPUT");
    assert_eq!(
        body["details"]["validationErrors"][0]["path"],
        json!(["page_info"])
    );
}

#[tokio::test]
async fn a_replayed_post_customers_has_the_original_status_and_an_empty_body() {
    let s = Service::start(false);
    let body = customers(&["A"]);
    let first = s.send("/v2/customers", "k", &body).await;
    assert_eq!(first.status, 201, "{:?}", first.json());
    assert!(!first.raw.is_empty());
    let replay = s.send("/v2/customers/", "k", &body).await;
    assert_eq!(replay.status, 201);
    replay.assert_replayed();
    assert!(replay.raw.is_empty());
}

#[tokio::test]
async fn a_replayed_post_orders_returns_the_original_body() {
    let s = Service::start(false);
    let body = json!([order("O-1")]);
    let first = s.send("/v2/orders", "k", &body).await;
    assert_eq!(first.status, 200, "{:?}", first.json());
    let replay = s.send("/v2/orders", "k", &body).await;
    assert_eq!(replay.status, 200);
    replay.assert_replayed();
    assert_eq!(replay.raw, first.raw);
    let other = s.send("/v2/orders", "k", &json!([order("O-2")])).await;
    other.assert_error(422, "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY");
}

#[tokio::test]
async fn get_customers_is_listing_tier_five_per_second_and_thirty_per_minute() {
    let s = Service::start(true);
    for second in 0..6 {
        if second > 0 {
            s.advance_secs(1);
        }
        for i in 0..5 {
            let r = s.get("/v2/customers", &[]).await;
            assert_eq!(r.status, 200, "second {second} request {i}");
        }
        if second == 0 {
            let burst = s.get("/v2/customers", &[]).await;
            assert_eq!(
                burst.assert_error(403, "FORBIDDEN")["details"]["retry_after_seconds"],
                1
            );
        }
    }
    s.advance_secs(1);
    let r = s.get("/v2/customers", &[OPT_IN]).await;
    let body = r.assert_error(429, "RATE_LIMIT_EXCEEDED");
    assert_eq!(body["details"]["retry_after_seconds"], 54);
    assert_eq!(r.header("retry-after"), Some("54"));
}

#[tokio::test]
async fn post_orders_is_bulk_tier_one_per_two_seconds() {
    let s = Service::start(true);
    assert_eq!(
        s.post("/v2/orders", &[], &json!([order("A")])).await.status,
        200
    );
    let r = s.post("/v2/orders", &[], &json!([order("B")])).await;
    assert_eq!(
        r.assert_error(403, "FORBIDDEN")["details"]["retry_after_seconds"],
        2
    );
    assert_eq!(r.header("retry-after"), Some("2"));
    s.advance_secs(2);
    assert_eq!(
        s.post("/v2/orders", &[], &json!([order("B")])).await.status,
        200
    );
}

#[tokio::test]
async fn depot_order_posts_are_idempotent_and_scoped_to_their_own_path() {
    let s = Service::start(false);
    let depot = s.get("/v2/depots", &[]).await.json()["depots"][0]["id"].clone();
    let path = format!("/v2/depots/{depot}/orders");
    let body = json!([order("D-1")]);
    let first = s.send(&path, "k", &body).await;
    assert_eq!(first.status, 200, "{:?}", first.json());
    let replay = s.send(&path, "k", &body).await;
    replay.assert_replayed();
    assert_eq!(replay.raw, first.raw);
    // The same key on POST /orders is another endpoint's key.
    let elsewhere = s.send("/v2/orders", "k", &body).await;
    assert_eq!(elsewhere.status, 200);
    elsewhere.assert_not_replayed();
}
