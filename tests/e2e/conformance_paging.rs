//! Conformance, black-box: paging on the wire (spec, Limits: Paging, and the list endpoints) —
//! `Link: <...>; rel="next"` carrying `page_info`, `limit` and the filters, stable keyset pages
//! under concurrent writes, the limit fallback, both `updated_at_min` formats, malformed
//! `page_info`.

use crate::support;
use std::collections::HashSet;

use serde_json::{json, Value};
use support::{is_timestamp, seeded_server, Server};

fn orders(prefix: &str, range: std::ops::Range<usize>, date: &str) -> Value {
    Value::Array(
        range
            .map(|i| {
                json!({"order_number": format!("{prefix}-{i:04}"), "type": "delivery",
                       "delivery_lat": 51.5, "delivery_lng": -0.12, "delivery_date": date})
            })
            .collect(),
    )
}

fn post_orders(server: &Server, key: &str, batch: &Value) {
    let reply = server.post("/v2/orders", key, batch);
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.raw));
}

/// Follows `rel="next"` from `first` to the last page; every page's ids in order.
fn walk(server: &Server, key: &str, first: &str, list: &str) -> Vec<Vec<Value>> {
    let mut pages = Vec::new();
    let mut url = Some(first.to_owned());
    while let Some(next) = url {
        let reply = server.get(&next, key);
        assert_eq!(reply.status, 200, "{next}");
        let body = reply.json();
        pages.push(body[list].as_array().unwrap().clone());
        url = reply.next_link();
        assert!(pages.len() < 1000, "paging terminates");
    }
    pages
}

#[test]
fn paging_250_orders_with_concurrent_inserts_has_no_duplicates_and_no_gaps() {
    let (_dir, server, fx) = seeded_server();
    for batch in 0..3 {
        let end = (batch * 100 + 100).min(250);
        post_orders(
            &server,
            &fx.key,
            &orders("P", batch * 100..end, "2026-12-01"),
        );
    }
    let existing: HashSet<i64> = walk(&server, &fx.key, "/v2/orders?limit=100", "orders")
        .concat()
        .iter()
        .map(|o| o["id"].as_i64().unwrap())
        .collect();
    assert_eq!(existing.len(), 250);

    let mut seen = Vec::new();
    let mut url = Some("/v2/orders?limit=30".to_owned());
    let mut inserted = 0;
    while let Some(next) = url {
        let reply = server.get(&next, &fx.key);
        assert_eq!(reply.status, 200);
        for order in reply.json()["orders"].as_array().unwrap() {
            seen.push(order["id"].as_i64().unwrap());
        }
        // Between pages: new orders; they sort first and must not shift the later pages.
        post_orders(
            &server,
            &fx.key,
            &orders("NEW", inserted..inserted + 7, "2026-12-01"),
        );
        inserted += 7;
        url = reply.next_link();
    }
    let unique: HashSet<i64> = seen.iter().copied().collect();
    assert_eq!(unique.len(), seen.len(), "no order appears twice");
    let missing: Vec<&i64> = existing.difference(&unique).collect();
    assert!(
        missing.is_empty(),
        "orders present at the start were skipped: {missing:?}"
    );
}

#[test]
fn the_next_link_carries_page_info_limit_and_every_filter() {
    let (_dir, server, fx) = seeded_server();
    post_orders(&server, &fx.key, &orders("D1", 0..25, "2026-12-01"));
    post_orders(&server, &fx.key, &orders("D2", 0..25, "2026-12-02"));
    let first =
        "/v2/orders?status=open&date=2026-12-01&updated_at_min=2020-01-01%2000:00:00&limit=10";
    let reply = server.get(first, &fx.key);
    assert_eq!(reply.status, 200);
    let next = reply.next_link().expect("a next link");
    assert!(
        next.starts_with(&format!("http://{}/v2/orders?", server.addr)),
        "{next}"
    );
    let query = next.split_once('?').unwrap().1;
    for part in [
        "page_info=",
        "limit=10",
        "status=open",
        "date=2026-12-01",
        "updated_at_min=",
    ] {
        assert!(query.contains(part), "{part} in {next}");
    }
    let pages = walk(&server, &fx.key, first, "orders");
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [10, 10, 5]);
    let numbers: HashSet<String> = pages
        .concat()
        .iter()
        .map(|o| o["order_number"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(numbers.len(), 25);
    assert!(
        numbers.iter().all(|n| n.starts_with("D1-")),
        "the date filter held on every page"
    );
}

#[test]
fn the_last_page_has_no_next_link() {
    let (_dir, server, fx) = seeded_server();
    post_orders(&server, &fx.key, &orders("L", 0..4, "2026-12-01"));
    let reply = server.get("/v2/orders?limit=4", &fx.key);
    assert_eq!(reply.json()["orders"].as_array().unwrap().len(), 4);
    assert_eq!(reply.next_link(), None);
    let reply = server.get("/v2/orders?limit=3", &fx.key);
    let next = reply.next_link().expect("one more page");
    let last = server.get(&next, &fx.key);
    assert_eq!(last.json()["orders"].as_array().unwrap().len(), 1);
    assert_eq!(last.next_link(), None);
    let empty = server.get("/v2/customers", &fx.key);
    assert_eq!(empty.json(), json!({"customers": []}));
    assert_eq!(empty.next_link(), None);
}

#[test]
fn lists_are_most_recently_updated_first() {
    let (_dir, server, fx) = seeded_server();
    post_orders(&server, &fx.key, &orders("U", 0..3, "2026-12-01"));
    let list = server.get("/v2/orders", &fx.key).json();
    let first_id = list["orders"][2]["id"].as_i64().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(5));
    let reply = server.put(
        &format!("/v2/orders/{first_id}"),
        &fx.key,
        &json!({"priority": "P2"}),
    );
    assert_eq!(reply.status, 200);
    let list = server.get("/v2/orders", &fx.key).json();
    let orders = list["orders"].as_array().unwrap();
    assert_eq!(orders[0]["id"], first_id, "the updated order comes first");
    let updated: Vec<&str> = orders
        .iter()
        .map(|o| o["updated"].as_str().unwrap())
        .collect();
    assert!(updated.windows(2).all(|w| w[0] >= w[1]), "{updated:?}");
    assert!(orders
        .iter()
        .all(|o| is_timestamp(&o["updated"]) && is_timestamp(&o["created"])));
}

#[test]
fn a_limit_outside_1_to_100_falls_back_to_100() {
    let (_dir, server, fx) = seeded_server();
    post_orders(&server, &fx.key, &orders("F", 0..100, "2026-12-01"));
    post_orders(&server, &fx.key, &orders("G", 0..20, "2026-12-01"));
    let customers: Value = (0..101)
        .map(|i| json!({"account": format!("C{i}"), "lat": 51.5, "lng": -0.1}))
        .collect::<Vec<_>>()
        .into();
    let reply = server.post(
        "/v2/customers",
        &fx.key,
        &Value::Array(customers.as_array().unwrap()[..100].to_vec()),
    );
    assert_eq!(reply.status, 201);
    let reply = server.post("/v2/customers", &fx.key, &json!([customers[100]]));
    assert_eq!(reply.status, 201);
    for limit in ["0", "101", "-1", "1000", "abc", ""] {
        for (path, list) in [("/v2/orders", "orders"), ("/v2/customers", "customers")] {
            let reply = server.get(&format!("{path}?limit={limit}"), &fx.key);
            assert_eq!(reply.status, 200, "{path} limit={limit}");
            assert_eq!(
                reply.json()[list].as_array().unwrap().len(),
                100,
                "{path} limit={limit}"
            );
            let next = reply.next_link().expect("more rows");
            assert!(next.contains("limit=100"), "{next}");
        }
    }
    let reply = server.get("/v2/orders?limit=1", &fx.key);
    assert_eq!(reply.json()["orders"].as_array().unwrap().len(), 1);
}

#[test]
fn a_malformed_page_info_is_400_invalid_input_at_page_info() {
    let (_dir, server, fx) = seeded_server();
    for path in ["/v2/orders", "/v2/customers"] {
        for value in ["garbage", "%FF%FE", "eyJ2Ijo5OX0", "AAAA"] {
            let reply = server.get(&format!("{path}?page_info={value}"), &fx.key);
            let body = reply.assert_envelope("INVALID_INPUT", 400);
            let issues = body["details"]["validationErrors"].as_array().unwrap();
            assert_eq!(issues[0]["path"], json!(["page_info"]), "{body}");
        }
    }
}

#[test]
fn updated_at_min_accepts_both_formats_and_ignores_an_unrecognised_one() {
    let (_dir, server, fx) = seeded_server();
    post_orders(&server, &fx.key, &orders("T", 0..3, "2026-12-01"));
    let reply = server.post(
        "/v2/customers",
        &fx.key,
        &json!([{"account": "T", "lat": 1.0, "lng": 1.0}]),
    );
    assert_eq!(reply.status, 201);
    for (path, list) in [("/v2/orders", "orders"), ("/v2/customers", "customers")] {
        let all = server.get(path, &fx.key).json()[list]
            .as_array()
            .unwrap()
            .len();
        assert!(all > 0);
        let count = |filter: &str| {
            let reply = server.get(&format!("{path}?updated_at_min={filter}"), &fx.key);
            assert_eq!(reply.status, 200, "{path} {filter}");
            reply.json()[list].as_array().unwrap().len()
        };
        assert_eq!(count("2020-01-01%2000:00:00"), all);
        assert_eq!(count("2020-01-01T00:00:00.000Z"), all);
        assert_eq!(count("2099-01-01%2000:00:00"), 0);
        assert_eq!(count("2099-01-01T00:00:00.000Z"), 0);
        assert_eq!(count("yesterday"), all, "an unrecognised format is ignored");
    }
}

#[test]
fn order_filters_combine_and_bad_values_are_400() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/customers",
        &fx.key,
        &json!([{"account": "F-1", "lat": 1.0, "lng": 1.0}]),
    );
    let customer = reply.json()["customers"][0]["id"].as_i64().unwrap();
    let mut batch = orders("C", 0..3, "2026-12-01");
    for order in batch.as_array_mut().unwrap().iter_mut().take(2) {
        order["customer"] = json!({"account": "F-1"});
    }
    post_orders(&server, &fx.key, &batch);
    post_orders(&server, &fx.key, &orders("E", 0..2, "2026-12-02"));
    let count = |query: &str| {
        let reply = server.get(&format!("/v2/orders?{query}"), &fx.key);
        assert_eq!(reply.status, 200, "{query}");
        reply.json()["orders"].as_array().unwrap().len()
    };
    assert_eq!(count(&format!("customer_id={customer}")), 2);
    assert_eq!(count(&format!("customer_id={customer}&date=2026-12-02")), 0);
    assert_eq!(count("date=2026-12-02&status=OPEN"), 2);
    assert_eq!(count("status=oPeN"), 5, "status is case-insensitive");
    assert_eq!(count("status=delivered"), 0);
    assert_eq!(count("order_number=C-0001"), 1);
    assert_eq!(count("order_number=c-0001"), 0, "order_number is exact");
    for bad in [
        "status=SHIPPED",
        "date=2026-12-1",
        "date=01/12/2026",
        "date=2026-12-01T00:00:00.000Z",
    ] {
        server
            .get(&format!("/v2/orders?{bad}"), &fx.key)
            .assert_envelope("INVALID_INPUT", 400);
    }
}

#[test]
fn paging_customers_with_concurrent_upserts_has_no_duplicates_and_no_gaps() {
    let (_dir, server, fx) = seeded_server();
    for batch in 0..2 {
        let customers: Vec<Value> = (batch * 100..batch * 100 + 100)
            .map(|i| json!({"account": format!("C-{i:04}"), "lat": 51.5, "lng": -0.1}))
            .collect();
        assert_eq!(
            server
                .post("/v2/customers", &fx.key, &json!(customers))
                .status,
            201
        );
    }
    let mut seen = Vec::new();
    let mut url = Some("/v2/customers?limit=17".to_owned());
    let mut round = 0;
    while let Some(next) = url {
        let reply = server.get(&next, &fx.key);
        assert_eq!(reply.status, 200);
        let page = reply.json();
        let items = page["customers"].as_array().unwrap();
        assert!(items.len() <= 17);
        seen.extend(items.iter().map(|c| c["id"].as_i64().unwrap()));
        let fresh: Vec<Value> = (0..5)
            .map(|i| json!({"account": format!("NEW-{round}-{i}"), "lat": 1, "lng": 1}))
            .collect();
        assert_eq!(
            server.post("/v2/customers", &fx.key, &json!(fresh)).status,
            201
        );
        round += 1;
        url = reply.next_link();
    }
    let unique: HashSet<i64> = seen.iter().copied().collect();
    assert_eq!(unique.len(), seen.len(), "no customer appears twice");
    assert!(
        (1..=200).all(|id| unique.contains(&id)),
        "every customer present at the start was listed"
    );
}
