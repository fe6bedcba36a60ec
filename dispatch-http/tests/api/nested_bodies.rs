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
