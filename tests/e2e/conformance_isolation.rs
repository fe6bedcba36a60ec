//! Conformance, black-box: data is scoped to the key's depot; order statuses and third parties
//! to its organisation. A key of another depot or organisation sees nothing and changes
//! nothing of this depot. And what one depot wrote and had acknowledged survives `kill -9`.

use crate::support;
use serde_json::{json, Value};
use support::refusals::{INVALID, NOT_FOUND};
use support::{seeded_server, Reply, Request, Server};

struct North {
    customer: i64,
    order: i64,
    vehicle: i64,
}

impl North {
    /// The order's, the customer's and the vehicle's paths.
    fn paths(&self) -> [String; 3] {
        [
            format!("/v2/orders/{}", self.order),
            format!("/v2/customers/{}", self.customer),
            format!("/v2/vehicles/{}", self.vehicle),
        ]
    }
}

/// A zone group's point test: North's zone group is the fixture's first.
const BOUNDS: &str = "/v2/zone-groups/1/bounds/contains";

fn populate(server: &Server, key: &str) -> North {
    let reply = server.post(
        "/v2/customers",
        key,
        &json!([{"account": "N-1", "name": "North customer", "lat": 51.5, "lng": -0.1}]),
    );
    assert_eq!(reply.status, 201);
    let customer = reply.json()["customers"][0]["id"].as_i64().unwrap();
    let reply = server.post(
        "/v2/orders",
        key,
        &json!([{"order_number": "N-ORDER", "type": "delivery", "customer": {"account": "N-1"},
                 "delivery_lat": 51.5, "delivery_lng": -0.1}]),
    );
    assert_eq!(reply.status, 200);
    let order: i64 = reply.json()["orders"][0]["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let reply = server.post(
        "/v2/vehicles",
        key,
        &json!({"name": "North van", "availability": "always", "start_location": "depot", "end_location": "depot"}),
    );
    assert_eq!(reply.status, 200);
    let vehicle = reply.json()["vehicle"]["id"].as_i64().unwrap();
    let reply = attach(server, key, order);
    assert_eq!(reply.status, 200, "{}", String::from_utf8_lossy(&reply.raw));
    North {
        customer,
        order,
        vehicle,
    }
}

fn attach(server: &Server, key: &str, order: i64) -> Reply {
    let boundary = "XBOUNDARYX";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"attachment\"; filename=\"pod.pdf\"\r\nContent-Type: application/pdf\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(b"%PDF-1.4\n%proof\n");
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let path = format!("/v2/orders/{order}/attachments");
    server.send(
        Request::new("POST", &path, Some(key))
            .header(
                "content-type",
                &format!("multipart/form-data; boundary={boundary}"),
            )
            .raw(body),
    )
}

fn list(server: &Server, key: &str, path: &str, field: &str) -> Vec<Value> {
    let reply = server.get(path, key);
    assert_eq!(reply.status, 200, "{path}");
    reply.json()[field].as_array().unwrap().clone()
}

#[test]
fn a_key_of_another_depot_or_organisation_sees_nothing_of_this_depot() {
    let (_dir, server, fx) = seeded_server();
    let north = populate(&server, &fx.key);
    let [order, customer, vehicle] = north.paths();
    for key in [&fx.south_key, &fx.other_key] {
        assert!(list(&server, key, "/v2/orders", "orders").is_empty());
        assert!(list(&server, key, "/v2/customers", "customers").is_empty());
        assert!(list(&server, key, "/v2/vehicles", "vehicles").is_empty());
        assert!(list(&server, key, "/v2/orders?order_number=N-ORDER", "orders").is_empty());
        assert!(list(
            &server,
            key,
            &format!("/v2/orders?customer_id={}", north.customer),
            "orders"
        )
        .is_empty());
        let depots = list(&server, key, "/v2/depots", "depots");
        assert!(depots.iter().all(|d| d["name"] != "North"), "{depots:?}");
        assert!(list(&server, key, "/v2/capacities", "capacities").is_empty());
        assert!(list(&server, key, "/v2/custom-fields", "custom_fields").is_empty());
        assert!(list(&server, key, "/v2/zone-groups", "zone_groups").is_empty());
        let templates = server.get("/v2/notifications/templates", key).json();
        assert_eq!(templates, json!([]));
        let contains = json!({"location": {"lat": 51.5, "lng": -0.12}});
        server.assert_refusals(
            key,
            &[
                ("GET", &order, None, NOT_FOUND),
                ("GET", &customer, None, NOT_FOUND),
                ("GET", &vehicle, None, INVALID),
                ("POST", BOUNDS, Some(&contains), NOT_FOUND),
            ],
        );
    }
}

#[test]
fn a_key_of_another_depot_or_organisation_changes_nothing_of_this_depot() {
    let (_dir, server, fx) = seeded_server();
    let north = populate(&server, &fx.key);
    let [order, customer, vehicle] = north.paths();
    let before = server.get(&order, &fx.key).json();
    for key in [&fx.south_key, &fx.other_key] {
        let priority = json!({"priority": "P1"});
        let stolen = json!({"name": "stolen"});
        server.assert_refusals(
            key,
            &[
                ("PUT", &order, Some(&priority), NOT_FOUND),
                ("PUT", &customer, Some(&stolen), NOT_FOUND),
                ("PUT", &vehicle, Some(&stolen), INVALID),
                ("DELETE", &vehicle, None, INVALID),
            ],
        );
        attach(&server, key, north.order).assert_envelope("RESOURCE_NOT_FOUND", 404);
        let reply = server.delete("/v2/orders/order-number/N-ORDER", key);
        assert_eq!(reply.status, 200);
        assert_eq!(reply.json()["deleted"]["orders_count"], 0);
        // Orders naming North's customer by id are refused; by account they get their own.
        let reply = server.post(
            "/v2/orders",
            key,
            &json!([{"order_number": "N-ORDER", "type": "delivery", "customer": {"id": north.customer},
                     "delivery_lat": 1.0, "delivery_lng": 1.0}]),
        );
        reply.assert_envelope("INVALID_INPUT", 400);
        server
            .post(
                &format!("/v2/depots/{}/orders", fx.north()["id"]),
                key,
                &json!([]),
            )
            .assert_envelope("RESOURCE_NOT_FOUND", 404);
    }
    let after = server.get(&order, &fx.key).json();
    assert_eq!(before, after);
    let customer = server.get(&customer, &fx.key).json();
    assert_eq!(customer["customer"]["name"], "North customer");
    let vehicles = list(&server, &fx.key, "/v2/vehicles", "vehicles");
    assert_eq!(vehicles.len(), 1);
    assert_eq!(vehicles[0]["name"], "North van");
    assert_eq!(after["order"]["attachments"].as_array().unwrap().len(), 1);
}

#[test]
fn the_same_order_number_and_account_live_separately_in_two_depots() {
    let (_dir, server, fx) = seeded_server();
    let north = populate(&server, &fx.key);
    let reply = server.post(
        "/v2/orders",
        &fx.south_key,
        &json!([{"order_number": "N-ORDER", "type": "delivery", "customer": {"account": "N-1", "lat": 50.0, "lng": 0.0},
                 "delivery_lat": 50.0, "delivery_lng": 0.0}]),
    );
    assert_eq!(reply.status, 200);
    let south_order = reply.json()["orders"][0]["id"].as_str().unwrap().to_owned();
    assert_ne!(south_order, north.order.to_string());
    let south = list(&server, &fx.south_key, "/v2/customers", "customers");
    assert_eq!(south.len(), 1);
    assert_ne!(south[0]["id"], north.customer);
    let north_order = server.get(&north.paths()[0], &fx.key).json();
    assert_eq!(north_order["order"]["delivery_lat"], 51.5);
}

#[test]
fn order_statuses_and_third_parties_are_organisation_wide() {
    let (_dir, server, fx) = seeded_server();
    let reply = server.post(
        "/v2/order-statuses",
        &fx.key,
        &json!({"status": "Left with neighbour"}),
    );
    assert_eq!(reply.status, 201);
    let statuses = |key: &str| -> Vec<String> {
        list(&server, key, "/v2/order-statuses", "order_statuses")
            .iter()
            .filter(|s| s["is_custom"] == true)
            .map(|s| s["status"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(statuses(&fx.south_key), ["RETURNED", "Left with neighbour"]);
    assert_eq!(statuses(&fx.other_key), ["LOST"]);
    server.assert_refusals(
        &fx.other_key,
        &[
            ("DELETE", "/v2/order-statuses/RETURNED", None, NOT_FOUND),
            ("GET", "/v2/orders?status=RETURNED", None, INVALID),
        ],
    );
    let reply = server.delete("/v2/order-statuses/Left%20with%20neighbour", &fx.south_key);
    assert_eq!(reply.status, 200);
    assert_eq!(statuses(&fx.key), ["RETURNED"]);
    let names = |key: &str| -> Vec<Value> {
        list(&server, key, "/v2/third-parties", "third_parties")
            .iter()
            .map(|t| t["name"].clone())
            .collect()
    };
    assert_eq!(names(&fx.key), [json!("Courier X")]);
    assert_eq!(names(&fx.south_key), [json!("Courier X")]);
    assert_eq!(names(&fx.other_key), [json!("Elsewhere")]);
}

#[test]
fn acknowledged_customers_orders_statuses_and_attachments_survive_kill_9() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("durable.db");
    let fx = support::Fixture::seed(&db);
    let server = Server::start(&db);
    let north = populate(&server, &fx.key);
    let reply = server.post("/v2/order-statuses", &fx.key, &json!({"status": "Kept"}));
    assert_eq!(reply.status, 201);
    let [order, customer, vehicle] = north.paths();
    let reply = server.put(&order, &fx.key, &json!({"priority": "P1"}));
    assert_eq!(reply.status, 200);
    let reads = |server: &Server| -> Vec<Value> {
        [order.as_str(), &customer, &vehicle, "/v2/order-statuses"]
            .iter()
            .map(|path| server.get(path, &fx.key).json())
            .collect()
    };
    let before = reads(&server);
    server.kill_hard();
    let server = Server::start(&db);
    let after = reads(&server);
    assert_eq!(before, after);
    assert_eq!(after[0]["order"]["priority"], "P1");
    assert_eq!(
        after[0]["order"]["attachments"].as_array().unwrap().len(),
        1
    );
}
