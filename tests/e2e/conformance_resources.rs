//! Conformance, black-box: the shapes and rules of each resource as the spec and the operator
//! interface state them — reference data, zone lookup, vehicles, customers, orders, order
//! statuses, delete by order number, attachments — and the flows across them.

use crate::support;
use serde_json::{json, Value};
use support::refusals::{INVALID, NOT_FOUND};
use support::{encode, is_timestamp, seeded_server, Request, Server};

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().expect("an object").keys().cloned().collect();
    k.sort();
    k
}

fn sorted(list: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = list.iter().map(|s| (*s).to_owned()).collect();
    v.sort();
    v
}

fn order_id(reply: &support::Reply, index: usize) -> i64 {
    let id = &reply.json()["orders"][index]["id"];
    assert!(
        id.is_string(),
        "order ids in the creation result are strings: {id}"
    );
    id.as_str().unwrap().parse().unwrap()
}

fn multipart(
    server: &Server,
    key: &str,
    order: i64,
    field: &str,
    name: &str,
    content: &[u8],
) -> support::Reply {
    let mut body = format!(
        "--B0UND\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(content);
    body.extend_from_slice(b"\r\n--B0UND--\r\n");
    let path = format!("/v2/orders/{order}/attachments");
    server.send(
        Request::new("POST", &path, Some(key))
            .header("content-type", "multipart/form-data; boundary=B0UND")
            .raw(body),
    )
}

#[test]
fn reference_endpoints_answer_the_documented_shapes() {
    let (_dir, server, fx) = seeded_server();
    let north = fx.north();
    let depots = server.get("/v2/depots", &fx.key).json();
    assert_eq!(
        keys(&depots["depots"][0]),
        sorted(&["id", "name", "created", "updated"])
    );
    assert_eq!(depots["depots"][0]["id"], north["id"]);
    let capacities = server.get("/v2/capacities", &fx.key).json();
    let capacity = &capacities["capacities"][0];
    assert_eq!(
        keys(capacity),
        sorted(&["id", "type", "default", "created", "updated"])
    );
    assert_eq!(
        (&capacity["type"], &capacity["default"]),
        (&json!("Weight"), &json!("0"))
    );
    let fields = server.get("/v2/custom-fields", &fx.key).json();
    assert_eq!(
        keys(&fields["custom_fields"][0]),
        sorted(&["id", "name", "created", "updated"])
    );
    let groups = server.get("/v2/zone-groups", &fx.key).json();
    assert_eq!(
        keys(&groups["zone_groups"][0]),
        sorted(&["id", "name", "created", "updated"])
    );
    let templates = server.get("/v2/notifications/templates", &fx.key).json();
    assert_eq!(
        templates,
        json!([{"id": north["notification_templates"][0]["id"], "type": "SMS", "name": "On the way"}])
    );
    let third = server.get("/v2/third-parties", &fx.key).json();
    assert_eq!(
        third,
        json!({"third_parties": [{"id": fx.seeded["organisations"][0]["third_parties"][0]["id"], "name": "Courier X"}]})
    );
    for item in [
        &depots["depots"][0],
        capacity,
        &fields["custom_fields"][0],
        &groups["zone_groups"][0],
    ] {
        assert!(
            is_timestamp(&item["created"]) && is_timestamp(&item["updated"]),
            "{item}"
        );
        assert!(item["id"].is_i64(), "ids are integers: {item}");
    }
}

#[test]
fn zone_lookup_by_coordinates_address_or_postcode() {
    let (_dir, server, fx) = seeded_server();
    let group = fx.north()["zone_groups"][0]["id"].clone();
    let path = format!("/v2/zone-groups/{group}/bounds/contains");
    let zone = json!({"zone": {"id": fx.north()["zone_groups"][0]["zones"][0]["id"], "name": "Z1", "zone_group": {"id": group, "name": "Central"}}});
    for location in [
        json!({"lat": 51.5, "lng": -0.12}),
        json!({"address": "  1 HIGH st "}),
        json!({"postcode": "ab1 2cd"}),
        json!({"address": "1 High St", "country": "GB"}),
    ] {
        let reply = server.post(&path, &fx.key, &json!({"location": location}));
        assert_eq!(
            (reply.status, reply.json()),
            (200, zone.clone()),
            "{location}"
        );
    }
    let reply = server.post(
        &path,
        &fx.key,
        &json!({"location": {"lat": 40.0, "lng": 3.0}}),
    );
    assert_eq!((reply.status, reply.json()), (200, json!({"zone": null})));
    for location in [
        json!({"address": "Nowhere 9"}),
        json!({}),
        json!({"country": "GB"}),
    ] {
        server
            .post(&path, &fx.key, &json!({"location": location}))
            .assert_envelope("INVALID_INPUT", 400);
    }
    server
        .post(&path, &fx.key, &json!({}))
        .assert_envelope("INVALID_INPUT", 400);
    server
        .post(
            "/v2/zone-groups/9999/bounds/contains",
            &fx.key,
            &json!({"location": {"lat": 51.5, "lng": -0.12}}),
        )
        .assert_envelope("RESOURCE_NOT_FOUND", 404);
}

#[test]
fn vehicles_create_read_update_delete_as_documented() {
    let (_dir, server, fx) = seeded_server();
    let capacity = fx.north()["capacity_types"][0]["id"].as_i64().unwrap();
    let reply = server.post(
        "/v2/vehicles",
        &fx.key,
        &json!({"name": "Van 1", "availability": "shift", "shift_start": "08:00", "shift_end": "17:00",
                "start_location": "other", "start_address": "nowhere at all", "start_lat": 51.5, "start_lng": -0.1,
                "end_location": "depot", "break": true, "break_start": "12:00", "break_end": "13:00",
                "break_duration": 30, "skills": ["Fridge", "fridge"],
                "capacities": [{"id": capacity, "capacity": 500}, {"id": 9999, "capacity": 1}]}),
    );
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.raw));
    let created = reply.json()["vehicle"].clone();
    assert_eq!(created["active"], true);
    assert_eq!(
        created["start_address"], "nowhere at all",
        "stored as given, not geocoded"
    );
    assert_eq!(created["skills"], json!(["Fridge", "fridge"]));
    assert_eq!(
        created["capacities"],
        json!([{"id": capacity, "type": "Weight", "capacity": 500}])
    );
    assert!(created["shift"].is_array());
    let id = created["id"].as_i64().unwrap();
    let read = server.get(&format!("/v2/vehicles/{id}"), &fx.key).json()["vehicle"].clone();
    for present in [
        "shift_start",
        "shift_end",
        "start_address",
        "start_lat",
        "start_lng",
        "break_start",
        "break_end",
        "break_duration",
    ] {
        assert!(read.get(present).is_some(), "{present} in {read}");
    }
    for absent in ["end_address", "end_lat", "end_lng"] {
        assert!(
            read.get(absent).is_none(),
            "{absent} only for `other`: {read}"
        );
    }
    let shift = &read["shift"][0];
    for field in [
        "enabled",
        "availability",
        "shift_start",
        "shift_end",
        "force_shift_start",
        "max_route_duration",
        "day_of_week",
        "vehicle_breaks",
    ] {
        assert!(shift.get(field).is_some(), "{field} in {shift}");
    }
    let reply = server.send(
        Request::new("PATCH", &format!("/v2/vehicles/{id}"), Some(&fx.key))
            .json(&json!({"availability": "always", "break": false, "skills": [], "start_location": "depot"})),
    );
    assert_eq!(reply.status, 200);
    let read = server.get(&format!("/v2/vehicles/{id}"), &fx.key).json()["vehicle"].clone();
    for absent in [
        "shift_start",
        "shift_end",
        "start_address",
        "start_lat",
        "break_start",
        "break_duration",
    ] {
        assert!(read.get(absent).is_none(), "{absent} hidden now: {read}");
    }
    assert_eq!(read["skills"], json!([]));
    assert_eq!(
        read["capacities"].as_array().unwrap().len(),
        1,
        "omitted capacities are kept"
    );
    // Rules: shift start before end, break shorter than its window, other needs coordinates.
    for bad in [
        json!({"availability": "shift", "shift_start": "17:00", "shift_end": "08:00"}),
        json!({"break": true, "break_start": "12:00", "break_end": "12:30", "break_duration": 30}),
        json!({"end_location": "other"}),
        json!({"name": "x".repeat(31)}),
    ] {
        server
            .put(&format!("/v2/vehicles/{id}"), &fx.key, &bad)
            .assert_envelope("INVALID_INPUT", 400);
    }
    let list = server.get("/v2/vehicles", &fx.key).json();
    assert_eq!(list["vehicles"].as_array().unwrap().len(), 1);
    assert!(list["vehicles"][0]["shift"].is_array());
    let reply = server.delete(&format!("/v2/vehicles/{id}"), &fx.key);
    assert_eq!(
        (reply.status, reply.json()),
        (200, json!({"deleted": {"vehicles_count": 1}}))
    );
    server
        .get(&format!("/v2/vehicles/{id}"), &fx.key)
        .assert_envelope("INVALID_INPUT", 400);
    assert_eq!(
        server.get("/v2/vehicles", &fx.key).json(),
        json!({"vehicles": []})
    );
}

#[test]
fn customers_are_created_or_updated_by_account_with_array_replacement() {
    let (_dir, server, fx) = seeded_server();
    let capacity = fx.north()["capacity_types"][0]["id"].as_i64().unwrap();
    let field = fx.north()["custom_fields"][0]["id"].as_i64().unwrap();
    let reply = server.post(
        "/v2/customers/",
        &fx.key,
        &json!([{"account": "A-1", "name": "Ann", "address": "1 High St", "phone": "0123", "duration": 10,
                 "tags": ["FRAGILE", "unknown"], "skills": [], "capacities": [{"id": capacity, "capacity": 5}, {"id": 999, "capacity": 1}],
                 "time_windows": [{"from": "09:00"}], "custom_fields": [{"name": "Gate code", "value": "4711"}]},
                {"account": "B-2", "lat": 51.4, "lng": -0.2}]),
    );
    assert_eq!(reply.status, 201);
    let body = reply.json();
    assert_eq!(keys(&body), sorted(&["customers", "errors"]));
    assert_eq!(body["customers"][1]["account"], "B-2");
    assert_eq!(body["errors"], json!([]));
    let id = body["customers"][0]["id"].as_i64().unwrap();
    let detail = server.get(&format!("/v2/customers/{id}"), &fx.key).json()["customer"].clone();
    assert_eq!(
        (&detail["lat"], &detail["lng"]),
        (&json!(51.5), &json!(-0.12)),
        "geocoded: {detail}"
    );
    assert_eq!(
        detail["tags"],
        json!(["Fragile"]),
        "tags by name ignoring case, unknown dropped"
    );
    assert_eq!(
        detail["capacities"],
        json!([{"id": capacity, "type": "Weight", "capacity": 5}])
    );
    assert_eq!(
        detail["custom_fields"],
        json!([{"value": "4711", "custom_field_type": {"name": "Gate code", "type": "TEXT", "id": field}}])
    );
    assert_eq!(detail["time_windows"][0]["from"], "09:00");
    // The same account again: sent fields overwrite, omitted are kept, sent arrays replace.
    let reply = server.post(
        "/v2/customers",
        &fx.key,
        &json!([{"account": "A-1", "name": "Ann B", "tags": []}]),
    );
    assert_eq!(reply.status, 201);
    assert_eq!(
        reply.json()["customers"][0]["id"],
        id,
        "updated, not created"
    );
    let detail = server.get(&format!("/v2/customers/{id}"), &fx.key).json()["customer"].clone();
    assert_eq!(detail["name"], "Ann B");
    assert_eq!(detail["phone"], "0123");
    assert_eq!(detail["tags"], json!([]));
    assert_eq!(detail["capacities"].as_array().unwrap().len(), 1);
    // The list view carries only its fields.
    let list = server.get("/v2/customers", &fx.key).json();
    let expected = sorted(&[
        "id", "account", "name", "address", "postcode", "lat", "lng", "phone", "email", "duration",
        "notes", "created", "updated",
    ]);
    for item in list["customers"].as_array().unwrap() {
        assert_eq!(keys(item), expected);
    }
    // An address that does not geocode: saved without coordinates, reported in errors.
    let reply = server.post(
        "/v2/customers",
        &fx.key,
        &json!([{"account": "C-3", "address": "Nowhere 9"}]),
    );
    assert_eq!(reply.status, 201);
    let body = reply.json();
    assert_eq!(body["errors"][0]["name"], "GEOCODING_FAILED");
    let c3 = body["customers"][0]["id"].as_i64().unwrap();
    let detail = server.get(&format!("/v2/customers/{c3}"), &fx.key).json()["customer"].clone();
    assert_eq!(
        (&detail["lat"], &detail["address"]),
        (&Value::Null, &json!("Nowhere 9"))
    );
    // Rules: no other properties, address or coordinates, limits.
    for bad in [
        json!([{"account": "X", "lat": 1, "lng": 1, "colour": "red"}]),
        json!([{"account": "X"}]),
        json!([{"account": "X", "lat": 1}]),
        json!([{"name": "no account", "lat": 1, "lng": 1}]),
        json!([{"account": "X", "lat": 1, "lng": 1, "duration": 0}]),
        json!([{"account": "X", "lat": 1, "lng": 1, "duration": 10000}]),
        json!([{"account": "x".repeat(101), "lat": 1, "lng": 1}]),
        json!([{"account": "X", "lat": 1, "lng": 1, "time_windows": [{"from": "01:00"}, {"from": "02:00"}, {"from": "03:00"}]}]),
        json!([{"account": "X", "lat": 1, "lng": 1, "email": "not-an-email"}]),
    ] {
        server
            .post("/v2/customers", &fx.key, &bad)
            .assert_envelope("INVALID_INPUT", 400);
    }
}

#[test]
fn customer_put_is_partial_and_reports_geocoding_failures_in_errors() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post("/v2/customers", &fx.key, &json!([{"account": "P-1", "name": "P", "lat": 1.0, "lng": 1.0, "tags": ["Fragile"]}, {"account": "P-2", "lat": 1, "lng": 1}]));
    let id = reply.json()["customers"][0]["id"].as_i64().unwrap();
    let reply = server.put(
        &format!("/v2/customers/{id}"),
        &fx.key,
        &json!({"address": "Nowhere 9"}),
    );
    assert_eq!(reply.status, 200);
    let body = reply.json();
    assert_eq!(keys(&body), sorted(&["customer", "errors"]));
    assert_eq!(body["customer"]["name"], "P");
    assert_eq!(body["customer"]["address"], "Nowhere 9");
    assert_eq!(body["customer"]["tags"], json!(["Fragile"]));
    assert_eq!(body["errors"][0]["name"], "GEOCODING_FAILED");
    let reply = server.put(
        &format!("/v2/customers/{id}"),
        &fx.key,
        &json!({"address": "1 High St"}),
    );
    assert_eq!(reply.json()["errors"], json!([]));
    assert_eq!(reply.json()["customer"]["lat"], 51.5);
    server
        .put(
            &format!("/v2/customers/{id}"),
            &fx.key,
            &json!({"account": "P-2"}),
        )
        .assert_envelope("INVALID_INPUT", 400);
}

#[test]
fn a_customer_created_first_is_referenced_by_account_from_an_order() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/customers",
        &fx.key,
        &json!([{"account": "ACC-1", "name": "Ann", "lat": 51.5, "lng": -0.1}]),
    );
    let customer = reply.json()["customers"][0]["id"].as_i64().unwrap();
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": "SO-1", "type": "delivery", "customer": {"account": "ACC-1"}, "delivery_address": "1 High St"},
                {"order_number": "SO-2", "type": "delivery", "customer": {"id": customer, "account": "ACC-RENAMED"}, "delivery_lat": 1.0, "delivery_lng": 1.0}]),
    );
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.raw));
    let first = order_id(&reply, 0);
    let order = server.get(&format!("/v2/orders/{first}"), &fx.key).json()["order"].clone();
    assert_eq!(order["customer_id"], customer);
    let list = server
        .get(&format!("/v2/orders?customer_id={customer}"), &fx.key)
        .json();
    assert_eq!(list["orders"].as_array().unwrap().len(), 2);
    assert_eq!(
        list["orders"][0]["customer"],
        json!({"id": customer, "account": "ACC-RENAMED"})
    );
    let detail = server
        .get(&format!("/v2/customers/{customer}"), &fx.key)
        .json();
    assert_eq!(
        detail["customer"]["account"], "ACC-RENAMED",
        "a differing account is written to the customer"
    );
    assert_eq!(
        server.get("/v2/customers", &fx.key).json()["customers"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn post_orders_lists_every_order_with_string_ids_and_keeps_status_on_update() {
    let (_dir, server, fx) = seeded_server();
    let batch = json!([
        {"order_number": "A", "type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.1,
         "line_items": [{"product_code": "TEA", "product_name": "Tea", "product_quantity": 2, "product_unit_price": 12.5}]},
        {"order_number": "B", "type": "pickup", "pickup_address": "Nowhere 9"},
        {"order_number": "C", "type": "shipment", "pickup_lat": 1, "pickup_lng": 1, "delivery_postcode": "AB1 2CD"}
    ]);
    let reply = server.post("/v2/orders", &fx.key, &batch);
    assert_eq!(reply.status, 200);
    let body = reply.json();
    assert_eq!(keys(&body), sorted(&["orders", "errors"]));
    let listed: Vec<&Value> = body["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| &o["order_number"])
        .collect();
    assert_eq!(listed, [&json!("A"), &json!("B"), &json!("C")]);
    for order in body["orders"].as_array().unwrap() {
        assert_eq!(keys(order), sorted(&["id", "order_number"]));
        assert!(order["id"].is_string());
    }
    assert_eq!(body["errors"].as_array().unwrap().len(), 1, "{body}");
    let error = &body["errors"][0];
    assert_eq!(error["name"], "GEOCODING_FAILED");
    assert_eq!(error["details"]["order_number"], "B");
    assert!(
        error["details"].get("id").is_some() && error["details"].get("is_created").is_some(),
        "{error}"
    );
    let a = order_id(&reply, 0);
    // A line item delivered: the order's status is derived, then kept by a later POST.
    let reply = server.put(
        &format!("/v2/orders/{a}"),
        &fx.key,
        &json!({"line_items": [{"product_code": "TEA", "status": "DELIVERED"}]}),
    );
    assert_eq!(reply.status, 200);
    assert_eq!(reply.json()["order"]["status"], "DELIVERED");
    let reply = server.post("/v2/orders", &fx.key, &json!([batch[0]]));
    assert_eq!(order_id(&reply, 0), a);
    let order = server.get(&format!("/v2/orders/{a}"), &fx.key).json()["order"].clone();
    assert_eq!(
        order["status"], "DELIVERED",
        "existing orders keep their status"
    );
    assert_eq!(order["order_value"], 25);
    assert_eq!(order["value_source"], "DERIVED");
    assert!(is_timestamp(&order["created"]) && is_timestamp(&order["updated"]));
    // The whole batch is refused on any problem, nothing written.
    let before = server.get("/v2/orders", &fx.key).json();
    for bad in [
        json!([{"order_number": "D", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1},
               {"order_number": "D", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]),
        json!([{"order_number": "E", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1},
               {"order_number": "F", "type": "shipment", "delivery_lat": 1, "delivery_lng": 1}]),
        json!([{"order_number": "G", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1, "order_exchange": {"reference": "R"}}]),
        json!([{"order_number": "H", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1, "order_value": 1.005}]),
        json!([{"order_number": "I", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1, "order_value": 10000000.01}]),
        json!([{"order_number": "J", "type": "teleport", "delivery_lat": 1, "delivery_lng": 1}]),
        json!([{"type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]),
    ] {
        server
            .post("/v2/orders", &fx.key, &bad)
            .assert_envelope("INVALID_INPUT", 400);
    }
    let too_many: Vec<Value> = (0..101)
        .map(|i| json!({"order_number": format!("M{i}"), "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}))
        .collect();
    server
        .post("/v2/orders", &fx.key, &json!(too_many))
        .assert_envelope("INVALID_INPUT", 400);
    assert_eq!(server.get("/v2/orders", &fx.key).json(), before);
}

#[test]
fn an_order_without_a_customer_is_403_permission_where_the_depot_disallows_it() {
    let (_dir, server, fx) = seeded_server();
    let order =
        json!([{"order_number": "NC", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]);
    server
        .post("/v2/orders", &fx.south_key, &order)
        .assert_envelope("PERMISSION", 403);
    assert_eq!(server.post("/v2/orders", &fx.key, &order).status, 200);
}

#[test]
fn order_summary_and_full_order_carry_the_documented_fields() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": "F-1", "type": "delivery", "customer": {"account": "FC", "lat": 1, "lng": 1},
                 "delivery_lat": 1, "delivery_lng": 1, "delivery_time_windows": [{"from": "09:00", "to": "10:00"}],
                 "line_items": [{"product_code": "P", "product_name": "Product", "product_quantity": 1}]}]),
    );
    let id = order_id(&reply, 0);
    let list = server.get("/v2/orders", &fx.key).json();
    let summary = &list["orders"][0];
    assert_eq!(
        keys(summary),
        sorted(&[
            "id",
            "order_number",
            "status",
            "type",
            "stops",
            "line_items",
            "customer",
            "created",
            "updated"
        ])
    );
    assert_eq!(keys(&summary["line_items"][0]), ["id"]);
    assert_eq!(keys(&summary["customer"]), sorted(&["id", "account"]));
    let order = server.get(&format!("/v2/orders/{id}"), &fx.key).json()["order"].clone();
    for field in [
        "id",
        "order_number",
        "type",
        "status",
        "priority",
        "customer_id",
        "delivery_address",
        "delivery_lat",
        "delivery_time_windows",
        "delivery_date",
        "delivery_available_days",
        "pickup_address",
        "time_windows",
        "order_exchange",
        "parts",
        "vehicle_assignment",
        "emails",
        "third_party",
        "tags",
        "skills",
        "capacities",
        "custom_fields",
        "order_value",
        "currency",
        "value_source",
        "line_items",
        "stops",
        "attachments",
        "created",
        "updated",
    ] {
        assert!(order.get(field).is_some(), "{field} in {order}");
    }
    assert_eq!(
        order["time_windows"],
        json!([{"from": "09:00", "to": "10:00", "type": "delivery"}])
    );
    let item = &order["line_items"][0];
    for field in [
        "id",
        "product_code",
        "product_name",
        "product_quantity",
        "product_unit_price",
        "product_value",
        "product_value_source",
        "quantity_outstanding",
        "status",
        "date",
        "capacities",
        "custom_fields",
    ] {
        assert!(item.get(field).is_some(), "{field} in {item}");
    }
}

#[test]
fn delete_by_order_number_counts_the_exchange_partner_and_a_later_post_restores_the_id() {
    let (_dir, server, fx) = seeded_server();
    let number = "EX/1 ü?&#";
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": number, "type": "delivery", "delivery_lat": 1, "delivery_lng": 1, "order_exchange": {"reference": "R1"},
                 "line_items": [{"product_code": "A", "product_name": "a", "product_quantity": 1}, {"product_code": "B", "product_name": "b", "product_quantity": 1}]},
                {"order_number": "EX-2", "type": "pickup", "pickup_lat": 1, "pickup_lng": 1, "order_exchange": {"reference": "R1"}},
                {"order_number": "EX", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]),
    );
    assert_eq!(reply.status, 200);
    let id = order_id(&reply, 0);
    let reply = server.delete(
        &format!("/v2/orders/order-number/{}", encode(number)),
        &fx.key,
    );
    assert_eq!(
        (reply.status, reply.json()),
        (
            200,
            json!({"deleted": {"orders_count": 2, "line_items_count": 2}})
        )
    );
    server
        .get(&format!("/v2/orders/{id}"), &fx.key)
        .assert_envelope("RESOURCE_NOT_FOUND", 404);
    let list = server.get("/v2/orders", &fx.key).json();
    assert_eq!(
        list["orders"].as_array().unwrap().len(),
        1,
        "deleted orders leave lists: {list}"
    );
    let reply = server.delete("/v2/orders/order-number/never-existed", &fx.key);
    assert_eq!(
        (reply.status, reply.json()),
        (
            200,
            json!({"deleted": {"orders_count": 0, "line_items_count": 0}})
        )
    );
    let reply = server.post("/v2/orders", &fx.key, &json!([{"order_number": number, "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]));
    assert_eq!(order_id(&reply, 0), id, "restored under its original id");
    assert_eq!(server.get(&format!("/v2/orders/{id}"), &fx.key).status, 200);
}

#[test]
fn order_statuses_list_add_and_remove_as_documented() {
    let (_dir, server, fx) = seeded_server();
    let list = server.get("/v2/order-statuses", &fx.key).json();
    let statuses = list["order_statuses"].as_array().unwrap();
    assert!(statuses
        .iter()
        .all(|s| keys(s) == sorted(&["status", "is_custom"])));
    assert!(statuses
        .iter()
        .any(|s| s["status"] == "OPEN" && s["is_custom"] == false));
    assert!(statuses
        .iter()
        .all(|s| !s["status"].as_str().unwrap().starts_with("PARTIALLY_")));
    let name = " Left at door ";
    let reply = server.post("/v2/order-statuses", &fx.key, &json!({"status": name}));
    assert_eq!(
        (reply.status, reply.json()),
        (
            201,
            json!({"order_status": {"status": name, "is_custom": true}})
        )
    );
    for bad in [
        json!({"status": name}),
        json!({"status": "OPEN"}),
        json!({"status": ""}),
        json!({"status": "x".repeat(256)}),
        json!({}),
    ] {
        server
            .post("/v2/order-statuses", &fx.key, &bad)
            .assert_envelope("INVALID_INPUT", 400);
    }
    // An order carrying a custom status keeps it after the status is removed.
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": "S", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1,
                 "line_items": [{"product_code": "A", "product_name": "a", "product_quantity": 1}]}]),
    );
    let order = order_id(&reply, 0);
    let reply = server.put(
        &format!("/v2/orders/{order}"),
        &fx.key,
        &json!({"line_items": [{"product_code": "A", "status": "RETURNED"}]}),
    );
    assert_eq!(reply.json()["order"]["status"], "RETURNED");
    let reply = server.delete("/v2/order-statuses/RETURNED", &fx.key);
    assert_eq!(
        (reply.status, reply.json()),
        (200, json!({"deleted": {"status": "RETURNED"}}))
    );
    let read = server.get(&format!("/v2/orders/{order}"), &fx.key).json();
    assert_eq!(read["order"]["status"], "RETURNED");
    let reply = server.delete(&format!("/v2/order-statuses/{}", encode(name)), &fx.key);
    assert_eq!(reply.json(), json!({"deleted": {"status": name}}));
    server.assert_refusals(
        &fx.key,
        &[
            ("DELETE", "/v2/order-statuses/OPEN", None, INVALID),
            ("DELETE", "/v2/order-statuses/NEVER", None, NOT_FOUND),
        ],
    );
}

#[test]
fn attachments_accept_pdf_png_jpeg_by_content_at_most_two_per_order() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": "AT", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]),
    );
    let order = order_id(&reply, 0);
    multipart(
        &server,
        &fx.key,
        order,
        "attachment",
        "fake.pdf",
        b"plain text, not a pdf",
    )
    .assert_envelope("INVALID_INPUT", 400);
    multipart(&server, &fx.key, order, "file", "a.pdf", b"%PDF-1.4\n")
        .assert_envelope("INVALID_INPUT", 400);
    let reply = multipart(
        &server,
        &fx.key,
        order,
        "attachment",
        "pod.pdf",
        b"%PDF-1.4\n%proof\n",
    );
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.raw));
    let attachment = reply.json();
    assert_eq!(
        keys(&attachment),
        sorted(&[
            "id",
            "order_id",
            "depot_id",
            "name",
            "mime",
            "ext",
            "size",
            "is_compressed",
            "modified",
            "created"
        ])
    );
    assert_eq!(
        attachment["order_id"],
        order.to_string(),
        "order_id is a string"
    );
    assert_eq!(attachment["name"], "pod.pdf");
    let reply = multipart(
        &server,
        &fx.key,
        order,
        "attachment",
        "photo.jpg",
        b"\xFF\xD8\xFF\xE0rest",
    );
    assert_eq!(reply.status, 200);
    multipart(
        &server,
        &fx.key,
        order,
        "attachment",
        "third.png",
        b"\x89PNG\r\n\x1a\nrest",
    )
    .assert_envelope("INVALID_INPUT", 400);
    let read = server.get(&format!("/v2/orders/{order}"), &fx.key).json();
    let names: Vec<&Value> = read["order"]["attachments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| &a["name"])
        .collect();
    assert_eq!(names, [&json!("pod.pdf"), &json!("photo.jpg")]);
    assert_eq!(
        keys(&read["order"]["attachments"][0]),
        sorted(&["id", "name"])
    );
    multipart(
        &server,
        &fx.key,
        987654,
        "attachment",
        "a.pdf",
        b"%PDF-1.4\n",
    )
    .assert_envelope("RESOURCE_NOT_FOUND", 404);
}

#[test]
fn an_attachment_over_10_mb_is_refused() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": "BIG", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1}]),
    );
    let order = order_id(&reply, 0);
    let mut content = b"%PDF-1.4\n".to_vec();
    content.resize(10 * 1024 * 1024 + 10, b'0');
    let reply = multipart(&server, &fx.key, order, "attachment", "big.pdf", &content);
    assert_eq!(reply.status, 400);
    support::assert_envelope_shape(&reply);
    assert_eq!(reply.json()["name"], "INVALID_INPUT");
    let mut content = b"%PDF-1.4\n".to_vec();
    content.resize(9 * 1024 * 1024, b'0');
    let reply = multipart(&server, &fx.key, order, "attachment", "nine.pdf", &content);
    assert_eq!(reply.status, 200, "9 MB is within the limit");
}

#[test]
fn depot_orders_accept_exactly_the_listed_properties() {
    let (_dir, server, fx) = seeded_server();
    let depot = fx.north()["id"].clone();
    let path = format!("/v2/depots/{depot}/orders");
    let full = json!({
        "order_number": "DP-1", "type": "shipment", "customer": {"account": "DPC", "lat": 1, "lng": 1},
        "delivery_contact_name": "Ann", "delivery_contact_number": "0123", "delivery_contact_email": "ann@example.com",
        "delivery_address": "1 High St", "delivery_postcode": "AB1 2CD", "delivery_lat": 51.5, "delivery_lng": -0.12,
        "delivery_notes": "ring", "delivery_time_windows": [{"from": "09:00", "to": "10:00"}],
        "delivery_date": "2026-12-01", "delivery_available_days": ["MONDAY"],
        "pickup_address": "1 High St", "pickup_postcode": "AB1 2CD", "pickup_duration": 5, "pickup_lat": 51.5,
        "pickup_lng": -0.12, "pickup_notes": "back door", "pickup_time_windows": [{"from": "08:00", "to": "09:00"}],
        "pickup_contact_name": "Bob", "pickup_contact_number": "0456", "pickup_contact_email": "bob@example.com",
        "pickup_available_days": ["TUESDAY"], "parts": 2,
        "line_items": [{"product_code": "A", "product_name": "a", "product_quantity": 1}],
        "skills": ["Fridge"], "custom_fields": [{"name": "Gate code", "value": "1"}],
        "capacities": [{"id": 1, "capacity": 3}]
    });
    let reply = server.post(&path, &fx.key, &json!([full]));
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.raw));
    assert!(reply.json()["orders"][0]["id"].is_string());
    for (field, value) in [
        ("priority", json!("P1")),
        ("delivery_duration", json!(5)),
        ("delivery_country_code", json!("GB")),
        ("pickup_country_code", json!("GB")),
        ("emails", json!([{"email": "a@example.com"}])),
        ("tags", json!(["Fragile"])),
        ("order_value", json!(10)),
        ("third_party", json!({"id": 1})),
        ("time_windows", json!([])),
    ] {
        let mut order = full.clone();
        order[field] = value;
        let body = server
            .post(&path, &fx.key, &json!([order]))
            .assert_envelope("INVALID_INPUT", 400);
        assert_eq!(
            body["details"]["validationErrors"][0]["path"],
            json!([0, field]),
            "{body}"
        );
    }
}

#[test]
fn deleting_a_vehicle_removes_its_order_assignments_and_inactive_vehicles_are_listed() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/vehicles",
        &fx.key,
        &json!({"name": "Parked", "active": false, "availability": "always", "start_location": "app-location", "end_location": "none"}),
    );
    assert_eq!(reply.status, 200);
    let vehicle = reply.json()["vehicle"]["id"].as_i64().unwrap();
    let list = server.get("/v2/vehicles", &fx.key).json();
    assert_eq!(
        list["vehicles"][0]["active"], false,
        "inactive vehicles are listed"
    );
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": "VA", "type": "delivery", "delivery_lat": 1, "delivery_lng": 1, "vehicle_assignment": {"vehicle_id": vehicle}}]),
    );
    let order = order_id(&reply, 0);
    let read = server.get(&format!("/v2/orders/{order}"), &fx.key).json();
    assert_eq!(
        read["order"]["vehicle_assignment"],
        json!({"vehicle_id": vehicle})
    );
    assert_eq!(
        server
            .delete(&format!("/v2/vehicles/{vehicle}"), &fx.key)
            .status,
        200
    );
    let read = server.get(&format!("/v2/orders/{order}"), &fx.key).json();
    assert_eq!(read["order"]["vehicle_assignment"], Value::Null);
}

#[test]
fn a_customer_created_by_an_order_is_geocoded_like_any_customer() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/orders",
        &fx.key,
        &json!([{"order_number": "G-1", "type": "delivery", "customer": {"account": "FROM-ORDER", "name": "N"}, "delivery_address": "1 High St"},
                {"order_number": "G-2", "type": "delivery", "customer": {"account": "OWN", "address": " 1 HIGH st"}, "delivery_lat": 1, "delivery_lng": 1},
                {"order_number": "G-3", "type": "delivery", "customer": {"account": "LOST", "address": "Nowhere 9"}, "delivery_lat": 1, "delivery_lng": 1}]),
    );
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.raw));
    let customers = server.get("/v2/customers", &fx.key).json();
    let by_account = |account: &str| -> Value {
        customers["customers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["account"] == account)
            .cloned()
            .unwrap_or_else(|| panic!("{account} in {customers}"))
    };
    let from_order = by_account("FROM-ORDER");
    assert_eq!(
        (
            &from_order["address"],
            &from_order["lat"],
            &from_order["lng"]
        ),
        (&json!("1 High St"), &json!(51.5), &json!(-0.12))
    );
    let own = by_account("OWN");
    assert_eq!(
        (&own["lat"], &own["lng"]),
        (&json!(51.5), &json!(-0.12)),
        "{own}"
    );
    let lost = by_account("LOST");
    assert_eq!(
        (&lost["address"], &lost["lat"]),
        (&json!("Nowhere 9"), &Value::Null),
        "saved without coordinates"
    );
}

#[test]
fn customer_duration_is_a_number_of_minutes_from_1_to_9999() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/customers",
        &fx.key,
        &json!([{"account": "D-1", "lat": 1, "lng": 1, "duration": 7.5}, {"account": "D-2", "lat": 1, "lng": 1, "duration": 10}]),
    );
    assert_eq!(reply.status, 201, "{}", String::from_utf8_lossy(&reply.raw));
    let list = server.get("/v2/customers", &fx.key).json();
    let durations: Vec<&Value> = list["customers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["duration"])
        .collect();
    assert_eq!(durations, [&json!(10), &json!(7.5)]);
    assert_eq!(
        list["customers"][0]["duration"].to_string(),
        "10",
        "whole minutes render without a fraction"
    );
    for bad in [0.5, 9999.5, -1.0] {
        server
            .post(
                "/v2/customers",
                &fx.key,
                &json!([{"account": "D-3", "lat": 1, "lng": 1, "duration": bad}]),
            )
            .assert_envelope("INVALID_INPUT", 400);
    }
}

#[test]
fn the_largest_valid_customer_batch_is_accepted() {
    let (_dir, server, fx) = seeded_server();
    // 100 customers with 40000-character notes of two-byte characters: about 8 MB of JSON.
    let notes = "é".repeat(40_000);
    let batch: Vec<Value> = (0..100)
        .map(|i| {
            json!({"account": format!("{i:0>100}"), "name": "ñ".repeat(100), "address": "1 High St",
                        "lat": 51.5, "lng": -0.1, "notes": notes, "duration": 9999})
        })
        .collect();
    let reply = server.post("/v2/customers", &fx.key, &json!(batch));
    assert_eq!(
        reply.status,
        201,
        "{}",
        String::from_utf8_lossy(&reply.raw[..reply.raw.len().min(300)])
    );
    assert_eq!(reply.json()["customers"].as_array().unwrap().len(), 100);
    let id = reply.json()["customers"][0]["id"].as_i64().unwrap();
    let detail = server.get(&format!("/v2/customers/{id}"), &fx.key).json();
    assert_eq!(
        detail["customer"]["notes"]
            .as_str()
            .unwrap()
            .chars()
            .count(),
        40_000
    );
    let too_long = json!([{"account": "N", "lat": 1, "lng": 1, "notes": "é".repeat(40_001)}]);
    server
        .post("/v2/customers", &fx.key, &too_long)
        .assert_envelope("INVALID_INPUT", 400);
}
