//! Conformance, black-box: authentication and the error envelope for every class of error, on
//! the real binary. Every error body must be exactly `{name, statusCode, description, details}`
//! with `details` an object; no request shape may produce a 5xx or a bare-text body.

use crate::support;
use serde_json::{json, Value};
use support::refusals::{INVALID, NOT_FOUND};
use support::{assert_envelope_shape, seeded_server, Request};

/// Every write endpoint of the service with a body that would be accepted from an `all` key.
fn writes() -> Vec<(&'static str, &'static str, Value)> {
    let vehicle = json!({"name": "V", "availability": "always", "start_location": "depot", "end_location": "depot"});
    let order = json!([{"order_number": "RO-1", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.12}]);
    vec![
        (
            "POST",
            "/v2/zone-groups/1/bounds/contains",
            json!({"location": {"lat": 51.5, "lng": -0.12}}),
        ),
        ("POST", "/v2/vehicles", vehicle.clone()),
        ("POST", "/v2/vehicles/", vehicle.clone()),
        ("PUT", "/v2/vehicles/1", json!({"name": "W"})),
        ("PATCH", "/v2/vehicles/1", json!({"name": "W"})),
        ("DELETE", "/v2/vehicles/1", Value::Null),
        (
            "POST",
            "/v2/customers",
            json!([{"account": "RC", "lat": 1.0, "lng": 1.0}]),
        ),
        (
            "POST",
            "/v2/customers/",
            json!([{"account": "RC", "lat": 1.0, "lng": 1.0}]),
        ),
        ("PUT", "/v2/customers/1", json!({"name": "X"})),
        ("POST", "/v2/orders", order.clone()),
        ("POST", "/v2/orders/", order.clone()),
        ("POST", "/v2/depots/1/orders", order),
        ("PUT", "/v2/orders/1", json!({"priority": "P1"})),
        ("POST", "/v2/orders/1/attachments", Value::Null),
        ("DELETE", "/v2/orders/order-number/SEEDED", Value::Null),
        ("POST", "/v2/order-statuses", json!({"status": "NEW"})),
        ("DELETE", "/v2/order-statuses/RETURNED", Value::Null),
    ]
}

#[test]
fn a_missing_empty_or_unknown_access_key_is_401_unauthorized_on_every_endpoint() {
    let (_dir, server, _fx) = seeded_server();
    let reads = [
        "/v2/depots",
        "/v2/orders",
        "/v2/customers",
        "/v2/vehicles/1",
        "/v2/order-statuses",
    ];
    for path in reads {
        server
            .call("GET", path, None, None)
            .assert_envelope("UNAUTHORIZED", 401);
        server
            .send(Request::new("GET", path, None).header("x-access-key", ""))
            .assert_envelope("UNAUTHORIZED", 401);
        server
            .call("GET", path, Some(&"0".repeat(64)), None)
            .assert_envelope("UNAUTHORIZED", 401);
    }
    for (method, path, body) in writes() {
        let body = (!body.is_null()).then_some(&body);
        server
            .call(method, path, None, body)
            .assert_envelope("UNAUTHORIZED", 401);
        server
            .call(method, path, Some("not-a-key"), body)
            .assert_envelope("UNAUTHORIZED", 401);
    }
}

#[test]
fn a_read_key_is_refused_with_403_permission_on_every_non_get_and_nothing_changes() {
    let (_dir, server, fx) = seeded_server();
    let seeded = json!([{"order_number": "SEEDED", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.12}]);
    assert_eq!(server.post("/v2/orders", &fx.key, &seeded).status, 200);
    let reads = || -> Vec<Value> {
        [
            "/v2/orders",
            "/v2/customers",
            "/v2/vehicles",
            "/v2/order-statuses",
        ]
        .iter()
        .map(|p| server.get(p, &fx.key).json())
        .collect()
    };
    let before = reads();
    for (method, path, body) in writes() {
        let body = (!body.is_null()).then_some(&body);
        server
            .call(method, path, Some(&fx.read_key), body)
            .assert_envelope("PERMISSION", 403);
    }
    assert_eq!(before, reads(), "a refused write changed nothing");
    // The same key reads fine.
    let reply = server.get("/v2/orders", &fx.read_key);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["orders"][0]["order_number"], "SEEDED");
}

#[test]
fn an_unknown_path_is_404_resource_not_found_with_or_without_a_key() {
    let (_dir, server, fx) = seeded_server();
    for path in [
        "/v2/nowhere",
        "/v2/orders/1/nowhere",
        "/nowhere",
        "/",
        "/v1/orders",
        "/v2/%C3%B6rders",
    ] {
        server
            .call("GET", path, Some(&fx.key), None)
            .assert_envelope("RESOURCE_NOT_FOUND", 404);
        server
            .call("GET", path, None, None)
            .assert_envelope("RESOURCE_NOT_FOUND", 404);
    }
}

#[test]
fn a_wrong_method_on_a_known_path_is_an_envelope_with_allow() {
    let (_dir, server, fx) = seeded_server();
    for (method, path) in [
        ("DELETE", "/v2/depots"),
        ("POST", "/v2/capacities"),
        ("PUT", "/v2/orders"),
        ("DELETE", "/v2/customers/1"),
        ("GET", "/v2/orders/order-number/X"),
        ("PUT", "/v2/order-statuses"),
        ("GET", "/v2/orders/1/attachments"),
    ] {
        let reply = server.call(method, path, Some(&fx.key), None);
        assert_eq!(reply.status, 405, "{method} {path}");
        assert_envelope_shape(&reply);
        assert!(
            reply.header("allow").is_some(),
            "{method} {path}: Allow header"
        );
    }
}

#[test]
fn malformed_json_wrong_types_and_wrong_content_types_are_400_invalid_input() {
    let (_dir, server, fx) = seeded_server();
    let key = fx.key.as_str();
    let raw = |method: &'static str, path: &'static str, ct: &str, body: &str| {
        server.send(
            Request::new(method, path, Some(key))
                .header("content-type", ct)
                .raw(body.as_bytes().to_vec()),
        )
    };
    for (method, path) in [
        ("POST", "/v2/orders"),
        ("POST", "/v2/customers"),
        ("POST", "/v2/vehicles"),
        ("PUT", "/v2/vehicles/1"),
        ("POST", "/v2/order-statuses"),
        ("POST", "/v2/zone-groups/1/bounds/contains"),
    ] {
        for body in ["{", "[{]", "", "   ", "nul", "\u{0}", "{\"a\":1}}", "[1,]"] {
            raw(method, path, "application/json", body).assert_envelope("INVALID_INPUT", 400);
        }
        raw(method, path, "text/plain", "{}").assert_envelope("INVALID_INPUT", 400);
        raw(method, path, "application/x-www-form-urlencoded", "a=1")
            .assert_envelope("INVALID_INPUT", 400);
    }
    // A scalar or object where an array of orders is expected, a number where a string is.
    for body in [
        json!({"order_number": "X"}),
        json!("orders"),
        json!(42),
        json!(null),
    ] {
        server
            .post("/v2/orders", key, &body)
            .assert_envelope("INVALID_INPUT", 400);
    }
    let reply = server.post(
        "/v2/orders",
        key,
        &json!([{"order_number": 7, "type": "delivery", "delivery_lat": "north", "delivery_lng": 1}]),
    );
    let body = reply.assert_envelope("INVALID_INPUT", 400);
    let issues = body["details"]["validationErrors"].as_array().unwrap();
    let paths: Vec<&Value> = issues.iter().map(|i| &i["path"]).collect();
    assert!(paths.contains(&&json!([0, "order_number"])), "{body}");
    assert!(paths.contains(&&json!([0, "delivery_lat"])), "{body}");
}

#[test]
fn validation_errors_carry_code_expected_received_path_and_message() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/vehicles",
        &fx.key,
        &json!({"name": "x".repeat(31), "availability": "sometimes", "start_location": "depot"}),
    );
    let body = reply.assert_envelope("INVALID_INPUT", 400);
    let issues = body["details"]["validationErrors"]
        .as_array()
        .expect("an array");
    assert!(issues.len() >= 3, "every violation reported: {body}");
    for issue in issues {
        let obj = issue.as_object().unwrap();
        for field in ["code", "expected", "received", "path", "message"] {
            assert!(obj.contains_key(field), "{field} in {issue}");
        }
        assert!(issue["path"].is_array(), "{issue}");
        assert!(
            issue["code"].is_string() && issue["message"].is_string(),
            "{issue}"
        );
    }
    let paths: Vec<&Value> = issues.iter().map(|i| &i["path"]).collect();
    for expected in [
        json!(["name"]),
        json!(["availability"]),
        json!(["end_location"]),
    ] {
        assert!(paths.contains(&&expected), "{expected} in {body}");
    }
}

#[test]
fn a_body_over_the_limit_is_refused_in_the_envelope_not_read_whole() {
    let (_dir, server, fx) = seeded_server();
    let mut huge = b"[".to_vec();
    huge.extend(std::iter::repeat_n(b' ', 40 * 1024 * 1024));
    huge.push(b']');
    for path in ["/v2/orders", "/v2/customers", "/v2/vehicles"] {
        let reply = server.send(
            Request::new("POST", path, Some(&fx.key))
                .header("content-type", "application/json")
                .raw(huge.clone()),
        );
        assert_eq!(reply.status, 400, "{path}");
        assert_envelope_shape(&reply);
    }
}

#[test]
fn ids_that_are_not_numbers_or_name_nothing_get_an_envelope_never_a_500() {
    let (_dir, server, fx) = seeded_server();
    let key = fx.key.as_str();
    for path in [
        "/v2/orders/abc",
        "/v2/orders/1.5",
        "/v2/orders/-1",
        "/v2/orders/99999999999999999999",
        "/v2/orders/%F0%9F%93%A6",
        "/v2/customers/abc",
        "/v2/customers/0",
        "/v2/customers/99999999999999999999",
        "/v2/vehicles/abc",
        "/v2/vehicles/%00",
    ] {
        let reply = server.get(path, key);
        assert!(
            reply.status == 404 || reply.status == 400,
            "{path}: {}",
            reply.status
        );
        assert_envelope_shape(&reply);
    }
    // The spec names the status of unknown ids: orders and customers 404, vehicles 400.
    let (name, priority) = (json!({"name": "x"}), json!({"priority": "P1"}));
    let contains = json!({"location": {"lat": 1, "lng": 1}});
    let bounds = "/v2/zone-groups/424242/bounds/contains";
    server.assert_refusals(
        key,
        &[
            ("GET", "/v2/orders/abc", None, NOT_FOUND),
            ("GET", "/v2/orders/424242", None, NOT_FOUND),
            ("GET", "/v2/customers/424242", None, NOT_FOUND),
            ("PUT", "/v2/customers/424242", Some(&name), NOT_FOUND),
            ("PUT", "/v2/orders/424242", Some(&priority), NOT_FOUND),
            ("GET", "/v2/vehicles/424242", None, INVALID),
            ("PUT", "/v2/vehicles/424242", Some(&name), INVALID),
            ("DELETE", "/v2/vehicles/424242", None, INVALID),
            ("POST", bounds, Some(&contains), NOT_FOUND),
        ],
    );
}

/// Every endpoint and method crossed with hostile bodies: the answer is JSON, an error is the
/// envelope, and nothing is a 5xx.
#[test]
fn no_request_shape_produces_a_500_or_a_non_envelope_body() {
    let (_dir, server, fx) = seeded_server();
    let key = fx.key.as_str();
    let paths = [
        "/v2/depots",
        "/v2/capacities",
        "/v2/custom-fields",
        "/v2/zone-groups",
        "/v2/zone-groups/1/bounds/contains",
        "/v2/notifications/templates",
        "/v2/third-parties",
        "/v2/vehicles",
        "/v2/vehicles/1",
        "/v2/customers",
        "/v2/customers/1",
        "/v2/orders",
        "/v2/orders/1",
        "/v2/depots/1/orders",
        "/v2/orders/1/attachments",
        "/v2/orders/order-number/%E2%9C%93%20x",
        "/v2/order-statuses",
        "/v2/order-statuses/%FF",
    ];
    let junk: Vec<Vec<u8>> = vec![
        b"{}".to_vec(),
        b"[]".to_vec(),
        b"[{}]".to_vec(),
        b"[null, 1, \"x\", true]".to_vec(),
        b"{\"location\": []}".to_vec(),
        b"{\"status\": 1e999}".to_vec(),
        "[{\"order_number\": \"\u{1F4E6}\u{202E}\u{0}\", \"type\": \"delivery\", \"delivery_lat\": 1e308, \"delivery_lng\": -1e308}]".as_bytes().to_vec(),
        "[{\"account\": \"\u{00e9}\u{0301}\", \"lat\": 91, \"lng\": 181, \"duration\": 1e20}]".as_bytes().to_vec(),
        b"{\"name\": {\"nested\": [[[[]]]]}, \"active\": \"yes\"}".to_vec(),
        vec![0xff, 0xfe, 0x00],
        format!("[{}]", "[".repeat(5000)).into_bytes(),
    ];
    for path in paths {
        for method in ["GET", "POST", "PUT", "PATCH", "DELETE"] {
            for body in &junk {
                let reply = server.send(
                    Request::new(method, path, Some(key))
                        .header("content-type", "application/json")
                        .raw(body.clone()),
                );
                assert!(reply.status < 500, "{method} {path}: {}", reply.status);
                if reply.status >= 400 {
                    assert_envelope_shape(&reply);
                } else if !reply.raw.is_empty() {
                    reply.json();
                }
            }
        }
    }
}

#[test]
fn unicode_round_trips_through_writes_and_reads() {
    let (_dir, server, fx) = seeded_server();
    let name = "Zoë Łukasiewicz 山田 📦";
    let reply = server.post(
        "/v2/customers",
        &fx.key,
        &json!([{"account": "ü-1 🚚", "name": name, "lat": 51.5, "lng": -0.1}]),
    );
    assert_eq!(reply.status, 201, "{}", String::from_utf8_lossy(&reply.raw));
    let id = reply.json()["customers"][0]["id"].as_i64().unwrap();
    let read = server.get(&format!("/v2/customers/{id}"), &fx.key).json();
    assert_eq!(read["customer"]["name"], name);
    assert_eq!(read["customer"]["account"], "ü-1 🚚");
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": "№ 7/ü", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1,
                 "customer": {"account": "ü-1 🚚"}}]),
    );
    assert_eq!(reply.status, 200);
    let list = server
        .get(
            &format!("/v2/orders?order_number={}", support::encode("№ 7/ü")),
            &fx.key,
        )
        .json();
    assert_eq!(list["orders"].as_array().unwrap().len(), 1, "{list}");
    assert_eq!(list["orders"][0]["customer"]["id"], id);
}
