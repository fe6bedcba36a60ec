use serde_json::{json, Value};

use crate::common::{Resp, TestApp};

fn contains_path(app: &TestApp, group: usize) -> String {
    let id = &app.depot(0, 0)["zone_groups"][group]["id"];
    format!("/v2/zone-groups/{id}/bounds/contains")
}

/// POST North's zone group `group` `/bounds/contains` with `{"location": location}`.
async fn contains(app: &TestApp, group: usize, location: Value) -> Resp {
    let body = json!({ "location": location });
    app.post(&contains_path(app, group), &app.north(), body)
        .await
}

/// The `zone` a successful lookup answers.
async fn zone_at(app: &TestApp, group: usize, location: Value) -> Value {
    contains(app, group, location).await.ok()["zone"].clone()
}

#[tokio::test]
async fn coordinates_inside_a_zone_return_it_with_its_group() {
    let app = TestApp::new();
    let zone = zone_at(&app, 0, json!({"lat": 51.50, "lng": -0.12})).await;
    let group = &app.depot(0, 0)["zone_groups"][0];
    assert_eq!(
        zone,
        json!({"id": group["zones"][0]["id"], "name": "Z1", "zone_group": {"id": group["id"], "name": "Central"}})
    );
    let zone = zone_at(&app, 0, json!({"lat": 51.52, "lng": -0.12})).await;
    assert_eq!(zone["name"], "Z2");
}

#[tokio::test]
async fn a_location_in_no_zone_gives_zone_null() {
    let app = TestApp::new();
    let zone = zone_at(&app, 0, json!({"lat": 40.0, "lng": 3.0})).await;
    assert_eq!(zone, Value::Null);
    let zone = zone_at(&app, 1, json!({"lat": 51.5, "lng": -0.12})).await;
    assert_eq!(zone, Value::Null);
}

#[tokio::test]
async fn without_coordinates_the_address_then_postcode_is_geocoded() {
    let app = TestApp::new();
    let zone = zone_at(&app, 0, json!({"address": "  1 HIGH ST "})).await;
    assert_eq!(zone["name"], "Z1");
    let zone = zone_at(
        &app,
        0,
        json!({"address": "unknown", "postcode": "ab1 2cd"}),
    )
    .await;
    assert_eq!(zone["name"], "Z1");
    // Geocoded, but outside every zone.
    let zone = zone_at(&app, 0, json!({"postcode": "ZZ9 9ZZ"})).await;
    assert_eq!(zone, Value::Null);
    // Only lat: not coordinates, so the address is used.
    let zone = zone_at(&app, 0, json!({"lat": 10.0, "address": "1 High St"})).await;
    assert_eq!(zone["name"], "Z1");
}

#[tokio::test]
async fn a_failed_geocode_or_no_address_is_400_invalid_input() {
    let app = TestApp::new();
    let r = contains(&app, 0, json!({"address": "Nowhere"})).await;
    assert_eq!(r.invalid_paths(), ["location"]);
    let r = contains(&app, 0, json!({})).await;
    assert_eq!(r.invalid_paths(), ["location"]);
    let r = app
        .post(&contains_path(&app, 0), &app.north(), json!({}))
        .await;
    assert_eq!(r.invalid_paths(), ["location"]);
    let r = contains(&app, 0, json!({"lat": "51", "lng": -0.12})).await;
    assert_eq!(r.invalid_paths(), ["location.lat"]);
    // Another depot's gazetteer is not used.
    let south_group = &app.depot(0, 1)["zone_groups"][0]["id"];
    let r = app
        .post(
            &format!("/v2/zone-groups/{south_group}/bounds/contains"),
            &app.south(),
            json!({"location": {"address": "1 High St"}}),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["location"]);
}

#[tokio::test]
async fn an_unknown_zone_group_is_404() {
    let app = TestApp::new();
    let r = app
        .post(
            "/v2/zone-groups/999999/bounds/contains",
            &app.north(),
            json!({"location": {"lat": 51.5, "lng": -0.12}}),
        )
        .await;
    r.envelope(404, "RESOURCE_NOT_FOUND");
}
