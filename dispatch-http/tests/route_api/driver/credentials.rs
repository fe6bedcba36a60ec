//! Driver credentials: made and revoked by the depot, accepted only on driver endpoints, and
//! reaching only the vehicle's dispatched routes.

use super::*;

#[tokio::test]
async fn an_all_key_creates_a_credential_shown_once_and_lists_it_without_the_secret() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let path = format!("/v2/vehicles/{v}/driver-credentials");
    let r = app.post(&path, &app.north(), json!({"name": "Sam"})).await;
    assert_eq!(r.status.as_u16(), 201, "{:#}", r.body);
    let c = &r.body["driver_credential"];
    assert_eq!(c["vehicle_id"], v);
    assert_eq!(c["name"], "Sam");
    assert!(c["revoked"].is_null());
    let secret = c["credential"].as_str().unwrap();
    assert!(secret.starts_with("drv_") && secret.len() == 68, "{secret}");
    // No body at all is fine too: the default name.
    let r = app
        .call(axum::http::Method::POST, &path, Some(&app.north()), None)
        .await;
    assert_eq!(r.status.as_u16(), 201, "{:#}", r.body);
    assert_eq!(r.body["driver_credential"]["name"], "driver");
    let list = app.get(&path, &app.north()).await;
    let list = list.ok()["driver_credentials"].as_array().unwrap().clone();
    assert_eq!(list.len(), 2);
    assert!(list.iter().all(|c| c.get("credential").is_none()));
    // The store keeps no clear credential.
    let stored = crate::common::test_sql::contents(&app.db);
    assert!(!crate::common::test_sql::holds(&stored, secret.as_bytes()));
    assert!(crate::common::test_sql::holds(&stored, b"driver"));
}

#[tokio::test]
async fn making_credentials_needs_an_all_key_and_a_vehicle_of_the_depot() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let path = format!("/v2/vehicles/{v}/driver-credentials");
    app.post(&path, &app.north_read(), json!({}))
        .await
        .envelope(403, "PERMISSION");
    assert_eq!(
        app.post(&path, &app.south(), json!({}))
            .await
            .invalid_paths(),
        vec!["id"]
    );
    assert_eq!(
        app.post(
            "/v2/vehicles/999999/driver-credentials",
            &app.north(),
            json!({})
        )
        .await
        .invalid_paths(),
        vec!["id"]
    );
    assert_eq!(
        app.post(&path, &app.north(), json!({"name": 5, "colour": "red"}))
            .await
            .invalid_paths(),
        vec!["colour", "name"]
    );
    assert_eq!(
        app.post(&path, &app.north(), json!({"name": ""}))
            .await
            .invalid_paths(),
        vec!["name"]
    );
    assert_eq!(
        app.post(&path, &app.north(), json!({"name": "x".repeat(101)}))
            .await
            .invalid_paths(),
        vec!["name"]
    );
    app.post(&path, &app.north(), json!([1]))
        .await
        .envelope(400, "INVALID_INPUT");
    assert_eq!(
        app.post(
            "/v2/vehicles/abc/driver-credentials",
            &app.north(),
            json!({})
        )
        .await
        .invalid_paths(),
        vec!["id"]
    );
    let listed = app.get(&path, &app.north()).await;
    assert_eq!(listed.ok()["driver_credentials"], json!([]));
}

#[tokio::test]
async fn a_credential_is_accepted_only_on_driver_endpoints_and_a_depot_key_only_on_v2() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let key = credential(&app, v).await;
    let me = app.get("/driver/me", &key).await;
    assert_eq!(me.ok()["driver"]["vehicle"]["id"], v);
    assert_eq!(me.ok()["driver"]["vehicle"]["name"], "Van");
    assert_eq!(
        me.ok()["driver"]["depot_id"],
        app.depot(0, 0)["id"].as_i64().unwrap()
    );
    for path in ["/v2/orders", "/v2/vehicles", "/v2/routes", "/v2/depots"] {
        app.get(path, &key).await.envelope(403, "PERMISSION");
    }
    app.post("/v2/orders", &key, json!([]))
        .await
        .envelope(403, "PERMISSION");
    app.post(
        &format!("/v2/vehicles/{v}/driver-credentials"),
        &key,
        json!({}),
    )
    .await
    .envelope(403, "PERMISSION");
    for depot_key in [app.north(), app.north_read(), app.far()] {
        app.get("/driver/me", &depot_key)
            .await
            .envelope(403, "PERMISSION");
    }
    app.get("/driver/me", "drv_0000")
        .await
        .envelope(401, "UNAUTHORIZED");
    app.get("/driver/me", "nonsense")
        .await
        .envelope(401, "UNAUTHORIZED");
    app.call(axum::http::Method::GET, "/driver/me", None, None)
        .await
        .envelope(401, "UNAUTHORIZED");
    app.get("/driver/nowhere", &key)
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn a_revoked_credential_and_one_of_a_deleted_vehicle_are_refused() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let key = credential(&app, v).await;
    let other = credential(&app, v).await;
    let list = app
        .get(
            &format!("/v2/vehicles/{v}/driver-credentials"),
            &app.north(),
        )
        .await;
    let id = list.ok()["driver_credentials"][0]["id"].as_i64().unwrap();
    let path = format!("/v2/vehicles/{v}/driver-credentials/{id}");
    app.delete(&path, &app.north_read())
        .await
        .envelope(403, "PERMISSION");
    app.get("/driver/me", &key).await.ok();
    let r = app.delete(&path, &app.north()).await;
    let revoked_at = r.ok()["driver_credential"]["revoked"].clone();
    assert!(revoked_at.is_string(), "{:#}", r.body);
    app.get("/driver/me", &key)
        .await
        .envelope(401, "UNAUTHORIZED");
    app.get("/driver/me", &other).await.ok();
    // Revoking again keeps the first time; unknown ones are 404.
    app.clock.advance_millis(60_000);
    assert_eq!(
        app.delete(&path, &app.north()).await.ok()["driver_credential"]["revoked"],
        revoked_at
    );
    app.delete(
        &format!("/v2/vehicles/{v}/driver-credentials/999999"),
        &app.north(),
    )
    .await
    .envelope(404, "RESOURCE_NOT_FOUND");
    app.delete(
        &format!("/v2/vehicles/{v}/driver-credentials/x"),
        &app.north(),
    )
    .await
    .envelope(400, "INVALID_INPUT");
    app.delete(&format!("/v2/vehicles/{v}"), &app.north())
        .await
        .ok();
    app.get("/driver/me", &other)
        .await
        .envelope(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn a_driver_reads_only_routes_dispatched_to_its_vehicle_and_all_others_look_alike() {
    let app = TestApp::new();
    let (v, key, route, o) = driven_route(&app, "A", 2).await;
    let r = app.get(&format!("/driver/routes/{route}"), &key).await;
    let body = r.ok()["route"].clone();
    assert_eq!(body["id"], route);
    assert_eq!(body["vehicle"]["vehicle_id"], v.to_string());
    assert_eq!(body["stops"][0]["orders"][0]["id"], o[0]);
    // Another vehicle's dispatched route, an undispatched route of this vehicle, another
    // depot's id space and a route that does not exist: the same 404.
    let (_, _, foreign, _) = driven_route(&app, "B", 1).await;
    let extra = orders(&app, "C", 1).await;
    let undispatched = lay_out(&app, &[(Some(v), extra)]).routes[0];
    let mut answers = Vec::new();
    for id in [foreign, undispatched, 999_999] {
        let r = app.get(&format!("/driver/routes/{id}"), &key).await;
        r.envelope(404, "RESOURCE_NOT_FOUND");
        answers.push(r.body.clone());
    }
    assert!(answers.iter().all(|a| a == &answers[0]), "{answers:#?}");
    app.get("/driver/routes/abc", &key)
        .await
        .envelope(400, "INVALID_INPUT");
}
