use axum::http::Method;
use serde_json::json;

use crate::common::{van, TestApp};

#[tokio::test]
async fn another_depots_key_can_neither_see_nor_change_a_vehicle() {
    let app = TestApp::new();
    let id = app
        .post("/v2/vehicles", &app.north(), van("North van"))
        .await
        .ok()["vehicle"]["id"]
        .as_i64()
        .unwrap();
    for key in [app.south(), app.far()] {
        assert!(app.get("/v2/vehicles", &key).await.ok()["vehicles"]
            .as_array()
            .unwrap()
            .is_empty());
        let path = format!("/v2/vehicles/{id}");
        assert_eq!(app.get(&path, &key).await.invalid_paths(), ["id"]);
        assert_eq!(
            app.put(&path, &key, json!({"name": "Stolen"}))
                .await
                .invalid_paths(),
            ["id"]
        );
        assert_eq!(
            app.call(
                Method::PATCH,
                &path,
                Some(&key),
                Some(json!({"name": "Stolen"}))
            )
            .await
            .invalid_paths(),
            ["id"]
        );
        assert_eq!(app.delete(&path, &key).await.invalid_paths(), ["id"]);
    }
    let v = app.get(&format!("/v2/vehicles/{id}"), &app.north()).await;
    assert_eq!(v.ok()["vehicle"]["name"], "North van");
}

#[tokio::test]
async fn reference_lists_show_only_the_callers_depot() {
    let app = TestApp::new();
    let north_caps = app.get("/v2/capacities", &app.north()).await;
    let names: Vec<&str> = north_caps.ok()["capacities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Weight", "Volume"]);
    let south_caps = app.get("/v2/capacities", &app.south()).await;
    let names: Vec<&str> = south_caps.ok()["capacities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["type"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Pallets"]);
    assert!(
        app.get("/v2/capacities", &app.far()).await.ok()["capacities"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    let depots = app.get("/v2/depots", &app.south()).await;
    assert_eq!(depots.ok()["depots"].as_array().unwrap().len(), 1);
    assert_eq!(depots.body["depots"][0]["name"], "South");

    assert!(
        app.get("/v2/custom-fields", &app.south()).await.ok()["custom_fields"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    let groups = app.get("/v2/zone-groups", &app.south()).await;
    assert_eq!(groups.ok()["zone_groups"].as_array().unwrap().len(), 1);
    assert!(app
        .get("/v2/notifications/templates", &app.far())
        .await
        .ok()
        .as_array()
        .unwrap()
        .is_empty());
}

#[tokio::test]
async fn another_depots_zone_group_is_not_found() {
    let app = TestApp::new();
    let central = app.depot(0, 0)["zone_groups"][0]["id"].as_i64().unwrap();
    let path = format!("/v2/zone-groups/{central}/bounds/contains");
    let body = json!({"location": {"lat": 51.5, "lng": -0.12}});
    app.post(&path, &app.south(), body.clone())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.post(&path, &app.far(), body)
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn third_parties_are_organisation_wide_and_stop_at_the_organisation() {
    let app = TestApp::new();
    for key in [app.north(), app.south()] {
        let r = app.get("/v2/third-parties", &key).await;
        let names: Vec<&str> = r.ok()["third_parties"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["Courier X", "Courier Y"]);
    }
    let far = app.get("/v2/third-parties", &app.far()).await;
    assert_eq!(
        far.ok()["third_parties"],
        json!([{"id": far.body["third_parties"][0]["id"], "name": "Elsewhere Ltd"}])
    );
}

#[tokio::test]
async fn skills_created_in_one_depot_do_not_leak_into_another() {
    let app = TestApp::new();
    let mut north = van("N");
    north["skills"] = json!(["Crane"]);
    app.post("/v2/vehicles", &app.north(), north).await.ok();
    let mut south = van("S");
    south["skills"] = json!(["Crane"]);
    let s = app.post("/v2/vehicles", &app.south(), south).await;
    assert_eq!(s.ok()["vehicle"]["skills"], json!(["Crane"]));
    // Deleting North's vehicle leaves South's untouched.
    let listed = app.get("/v2/vehicles", &app.north()).await;
    let north_id = listed.ok()["vehicles"][0]["id"].as_i64().unwrap();
    app.delete(&format!("/v2/vehicles/{north_id}"), &app.north())
        .await
        .ok();
    assert_eq!(
        app.get("/v2/vehicles", &app.south()).await.ok()["vehicles"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}
