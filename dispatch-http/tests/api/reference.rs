use serde_json::json;

use crate::common::TestApp;

#[tokio::test]
async fn depots_lists_the_callers_depot_with_timestamps() {
    let app = TestApp::new();
    let r = app.get("/v2/depots", &app.north()).await;
    let depots = r.ok()["depots"].as_array().unwrap();
    assert_eq!(depots.len(), 1);
    assert_eq!(depots[0]["name"], "North");
    assert_eq!(depots[0]["id"], app.depot(0, 0)["id"]);
    assert_eq!(depots[0]["created"], "2026-11-22T08:00:00.000Z");
    assert_eq!(depots[0]["updated"], "2026-11-22T08:00:00.000Z");
    let mut keys: Vec<&String> = depots[0].as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(
        keys,
        ["created", "id", "name", "updated"],
        "the spec's fields"
    );
    let id = depots[0]["id"].clone();
    let r = app.get(&format!("/v2/depots/{id}"), &app.north()).await;
    let depot = &r.ok()["depot"];
    assert_eq!(depot["address"], "1 Depot Way");
    assert_eq!(
        (depot["lat"].clone(), depot["lng"].clone()),
        (json!(51.5), json!(-0.12))
    );
    let south = app.depot(0, 1)["id"].clone();
    let r = app.get(&format!("/v2/depots/{south}"), &app.north()).await;
    r.envelope(404, "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn a_depot_gets_its_position_from_coordinates_or_from_its_geocoded_address() {
    let app = TestApp::new();
    let south = app.depot(0, 1)["id"].as_i64().unwrap();
    let path = format!("/v2/depots/{south}");
    let read = app.get(&path, &app.south()).await;
    assert_eq!(
        read.ok()["depot"]["lat"],
        json!(null),
        "South starts without one"
    );
    let r = app
        .put(
            &path,
            &app.south(),
            json!({"name": "South yard", "lat": 50.8, "lng": -1.1}),
        )
        .await;
    let depot = r.ok()["depot"].clone();
    assert_eq!(depot["id"], south);
    assert_eq!(depot["name"], "South yard");
    assert_eq!(
        (depot["lat"].clone(), depot["lng"].clone()),
        (json!(50.8), json!(-1.1))
    );
    assert_eq!(depot["address"], json!(null));
    let read = app.get(&path, &app.south()).await;
    assert_eq!(read.ok()["depot"], depot);
    // An address alone is geocoded (North's gazetteer knows "9 Far Rd").
    let north = app.depot(0, 0)["id"].as_i64().unwrap();
    let r = app
        .put(
            &format!("/v2/depots/{north}"),
            &app.north(),
            json!({"address": "9 Far Rd"}),
        )
        .await;
    let depot = &r.ok()["depot"];
    assert_eq!(depot["address"], "9 Far Rd");
    assert_eq!(
        (depot["lat"].clone(), depot["lng"].clone()),
        (json!(52), json!(1))
    );
    assert_eq!(depot["name"], "North", "absent properties are kept");
}

#[tokio::test]
async fn depot_writes_refuse_half_positions_unknown_properties_and_other_depots() {
    let app = TestApp::new();
    let north = app.depot(0, 0)["id"].as_i64().unwrap();
    let south = app.depot(0, 1)["id"].as_i64().unwrap();
    let path = format!("/v2/depots/{north}");
    let r = app.put(&path, &app.north(), json!({"lat": 51.0})).await;
    assert_eq!(r.invalid_paths(), vec!["lng"]);
    let r = app
        .put(
            &path,
            &app.north(),
            json!({"latitude": 51.0, "longitude": 0.1}),
        )
        .await;
    assert_eq!(r.invalid_paths_sorted(), vec!["latitude", "longitude"]);
    assert_eq!(
        r.body["details"]["validationErrors"][0]["code"],
        "unrecognized_keys"
    );
    let r = app
        .put(&path, &app.north(), json!({"lat": 95, "lng": 0}))
        .await;
    assert_eq!(r.invalid_paths(), vec!["lat"]);
    let r = app.put(&path, &app.north(), json!({"name": "South"})).await;
    assert_eq!(r.invalid_paths(), vec!["name"]);
    let r = app
        .put(&path, &app.north(), json!({"address": "Nowhere 1"}))
        .await;
    r.envelope(400, "GEOCODING_FAILED");
    let r = app
        .put(
            &format!("/v2/depots/{south}"),
            &app.north(),
            json!({"lat": 1, "lng": 1}),
        )
        .await;
    r.envelope(404, "RESOURCE_NOT_FOUND");
    let r = app
        .put(&path, &app.north_read(), json!({"lat": 1, "lng": 1}))
        .await;
    r.envelope(403, "PERMISSION");
    let read = app.get(&path, &app.north()).await;
    let depot = &read.ok()["depot"];
    assert_eq!(depot["address"], "1 Depot Way", "nothing was written");
    assert_eq!(depot["lat"], json!(51.5));
}

#[tokio::test]
async fn capacities_have_id_type_default_and_timestamps() {
    let app = TestApp::new();
    let r = app.get("/v2/capacities", &app.north()).await;
    let first = &r.ok()["capacities"][0];
    assert_eq!(first["id"], app.depot(0, 0)["capacity_types"][0]["id"]);
    assert_eq!(first["type"], "Weight");
    assert_eq!(first["default"], "0");
    assert_eq!(first["created"], "2026-11-22T08:00:00.000Z");
    assert!(first["updated"].is_string());
}

#[tokio::test]
async fn custom_fields_and_zone_groups_are_whole_lists() {
    let app = TestApp::new();
    let cf = app.get("/v2/custom-fields", &app.north()).await;
    let field = &cf.ok()["custom_fields"][0];
    assert_eq!(field["name"], "Gate code");
    for key in ["id", "created", "updated"] {
        assert!(!field[key].is_null(), "{key}");
    }
    let zg = app.get("/v2/zone-groups", &app.north()).await;
    let groups = zg.ok()["zone_groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[0]["name"], "Central");
    assert!(groups[0].get("zones").is_none(), "zones are not included");
}

#[tokio::test]
async fn notification_templates_are_a_plain_array() {
    let app = TestApp::new();
    let r = app.get("/v2/notifications/templates", &app.north()).await;
    let list = r.ok().as_array().expect("plain array");
    let first_id = app.depot(0, 0)["notification_templates"][0]["id"].clone();
    assert_eq!(
        list[0],
        json!({"id": first_id, "type": "SMS", "name": "On the way"})
    );
    assert_eq!(list[1]["type"], "EMAIL");
}

#[tokio::test]
async fn third_parties_key_is_spelled_with_an_underscore() {
    let app = TestApp::new();
    let r = app.get("/v2/third-parties", &app.north()).await;
    assert!(r.ok().get("third_parties").is_some());
    assert!(r.body.get("third-parties").is_none());
}
