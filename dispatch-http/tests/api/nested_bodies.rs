//! Unknown properties are refused inside bodies too: a misspelt setting or booking property is
//! a 400 naming it, never a 200 that did something else than asked.

use serde_json::json;

use crate::common::{TestApp, DAY};

fn unrecognised(r: &crate::common::Resp) -> Vec<String> {
    let paths = r.invalid_paths();
    for issue in r.body["details"]["validationErrors"].as_array().unwrap() {
        assert_eq!(issue["code"], "unrecognized_keys", "{issue}");
    }
    paths
}

#[tokio::test]
async fn a_misspelt_optimisation_setting_is_refused_at_its_path() {
    let app = TestApp::new();
    let r = app
        .post(
            "/v2/plans/optimise/orders",
            &app.north(),
            json!({"delivery_date": DAY, "settings": {"autodispatch": true}}),
        )
        .await;
    assert_eq!(unrecognised(&r), vec!["settings.autodispatch"]);
    let plans = app.get("/v2/plans", &app.north()).await;
    assert_eq!(plans.ok()["plans"], json!([]), "nothing was queued");
    let r = app
        .post(
            "/v2/plans/optimise/orders-for-ids",
            &app.north(),
            json!({"orders": [{"id": 1, "order_number": "A"}], "settings": {}}),
        )
        .await;
    assert_eq!(unrecognised(&r), vec!["orders.0.order_number"]);
}

#[tokio::test]
async fn booking_refuses_a_misspelt_vehicles_and_unknown_order_fields() {
    let app = TestApp::new();
    let order = json!({"type": "delivery", "delivery_lat": 51.5, "delivery_lng": -0.12});
    let r = app
        .post(
            "/v2/booking/availability",
            &app.north(),
            json!({"date": DAY, "order": order, "vehicle": [{"id": 1}]}),
        )
        .await;
    assert_eq!(unrecognised(&r), vec!["vehicle"]);
    let mut wrong = order.clone();
    wrong["delivery_latitude"] = json!(51.5);
    wrong["capacities"] = json!([{"id": 1, "capacity": 1, "unit": "kg"}]);
    let r = app
        .post(
            "/v2/booking/availability",
            &app.north(),
            json!({"date": DAY, "order": wrong, "vehicles": [{"id": 1, "name": "x"}]}),
        )
        .await;
    assert_eq!(
        r.invalid_paths_sorted(),
        vec![
            "order.capacities.0.unit",
            "order.delivery_latitude",
            "vehicles.0.name"
        ]
    );
}

#[tokio::test]
async fn route_edit_settings_and_zone_lookups_refuse_unknown_properties() {
    let app = TestApp::new();
    let r = app
        .post(
            "/v2/routes/1/add-orders",
            &app.north(),
            json!({"orders": [{"id": 1}], "settings": {"reoptimise": true}}),
        )
        .await;
    assert_eq!(unrecognised(&r), vec!["settings.reoptimise"]);
    let group = app.depot(0, 0)["zone_groups"][0]["id"].clone();
    let r = app
        .post(
            &format!("/v2/zone-groups/{group}/bounds/contains"),
            &app.north(),
            json!({"location": {"latitude": 51.5, "lng": -0.12}}),
        )
        .await;
    assert_eq!(unrecognised(&r), vec!["location.latitude"]);
}

#[tokio::test]
async fn entries_of_order_lists_refuse_unknown_properties_at_their_path() {
    let app = TestApp::new();
    let order = json!({
        "order_number": "N-1", "type": "delivery", "delivery_date": DAY,
        "delivery_address": "1 High St", "delivery_lat": 51.5, "delivery_lng": -0.12,
        "delivery_time_windows": [{"from": "09:00", "to": "10:00", "form": "09:30"}],
        "capacities": [{"id": 1, "capacity": 3, "unit": "kg"}],
        "custom_fields": [{"id": 1, "value": "x", "label": "y"}],
        "emails": [{"email": "a@example.com", "cc": true}],
        "customer": {"name": "Ann", "address": "1 High St", "phone_number": "1"},
        "line_items": [{"product_code": "P", "product_name": "Box", "product_quantity": 1,
                        "capacities": [{"id": 1, "capacity": 1, "weight": 2}]}]
    });
    let r = app.post("/v2/orders", &app.north(), json!([order])).await;
    assert_eq!(
        r.invalid_paths_sorted(),
        vec![
            "0.capacities.0.unit",
            "0.custom_fields.0.label",
            "0.customer.phone_number",
            "0.delivery_time_windows.0.form",
            "0.emails.0.cc",
            "0.line_items.0.capacities.0.weight",
        ]
    );
    unrecognised(&r);
    let orders = app.get("/v2/orders", &app.north()).await;
    assert_eq!(orders.ok()["orders"], json!([]), "nothing was saved");
}

#[tokio::test]
async fn entries_of_customer_and_vehicle_lists_refuse_unknown_properties() {
    let app = TestApp::new();
    let r = app
        .post(
            "/v2/customers",
            &app.north(),
            json!([{"account": "C-1", "name": "Ann", "address": "1 High St",
                    "time_windows": [{"from": "09:00", "to": "10:00", "day": "monday"}]}]),
        )
        .await;
    assert_eq!(unrecognised(&r), vec!["0.time_windows.0.day"]);
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            json!({"name": "Van", "availability": "shift", "shift_start": "08:00",
                   "shift_end": "17:00", "start_location": "depot", "end_location": "depot",
                   "capacities": [{"id": 1, "capacity": 400, "unit": "kg"}]}),
        )
        .await;
    assert_eq!(unrecognised(&r), vec!["capacities.0.unit"]);
}

#[tokio::test]
async fn an_order_read_sent_back_unchanged_is_accepted() {
    let app = TestApp::new();
    let order = json!({
        "order_number": "R-1", "type": "delivery", "delivery_date": DAY,
        "delivery_address": "1 High St", "delivery_lat": 51.5, "delivery_lng": -0.12,
        "delivery_time_windows": [{"from": "09:00", "to": "10:00"}],
        "emails": [{"email": "a@example.com"}],
        "line_items": [{"product_code": "P", "product_name": "Box", "product_quantity": 2,
                        "product_unit_price": 3}]
    });
    let made = app.post("/v2/orders", &app.north(), json!([order])).await;
    let id = made.ok()["orders"][0]["id"].as_str().unwrap().to_owned();
    let read = app.get(&format!("/v2/orders/{id}"), &app.north()).await;
    let read = read.ok()["order"].clone();
    assert!(!read["line_items"].as_array().unwrap().is_empty(), "{read}");
    let back = app
        .put(&format!("/v2/orders/{id}"), &app.north(), read)
        .await;
    back.ok();
}
