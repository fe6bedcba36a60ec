//! Vehicle writes refuse properties they do not know: a misspelt field must not answer 200
//! having changed nothing.

use serde_json::json;

use crate::common::{van, TestApp};

#[tokio::test]
async fn a_misspelt_vehicle_property_is_400_at_its_path_and_changes_nothing() {
    let app = TestApp::new();
    let r = app
        .post(
            "/v2/vehicles",
            &app.north(),
            json!({"name": "Van", "availability": "full_day", "start_location": "depot",
                   "end_location": "depot", "colour": "red"}),
        )
        .await;
    assert_eq!(r.invalid_paths(), vec!["colour"]);
    assert_eq!(
        app.get("/v2/vehicles", &app.north()).await.ok()["vehicles"],
        json!([])
    );
    let v = app.post("/v2/vehicles", &app.north(), van("Van 1")).await;
    let id = v.ok()["vehicle"]["id"].as_i64().unwrap();
    let path = format!("/v2/vehicles/{id}");
    for method in ["PUT", "PATCH"] {
        let r = app
            .call(
                method.parse().unwrap(),
                &path,
                Some(&app.north()),
                Some(json!({"actve": false})),
            )
            .await;
        assert_eq!(r.invalid_paths(), vec!["actve"], "{method}");
    }
    let read = app.get(&path, &app.north()).await;
    assert_eq!(read.ok()["vehicle"]["active"], true);
}

#[tokio::test]
async fn a_vehicle_read_sent_back_whole_is_a_valid_update() {
    let app = TestApp::new();
    let v = app.post("/v2/vehicles", &app.north(), van("Van 1")).await;
    let mut vehicle = v.ok()["vehicle"].clone();
    vehicle["name"] = json!("Van One");
    let path = format!("/v2/vehicles/{}", vehicle["id"]);
    let r = app.put(&path, &app.north(), vehicle).await;
    assert_eq!(r.ok()["vehicle"]["name"], "Van One");
}
