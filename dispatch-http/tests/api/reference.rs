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
