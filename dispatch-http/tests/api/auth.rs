use axum::http::Method;
use serde_json::json;

use crate::common::{van, TestApp};

#[tokio::test]
async fn missing_key_is_401_unauthorized() {
    let app = TestApp::new();
    let r = app.call(Method::GET, "/v2/vehicles", None, None).await;
    r.envelope(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn unknown_and_empty_keys_are_401_unauthorized() {
    let app = TestApp::new();
    for key in ["nope", "", &"0".repeat(64), &app.north()[..63]] {
        let r = app.call(Method::GET, "/v2/depots", Some(key), None).await;
        r.envelope(401, "UNAUTHORIZED");
    }
}

#[tokio::test]
async fn a_key_of_bytes_no_key_is_spelt_with_is_401_invalid_not_missing() {
    let app = TestApp::new();
    let request = axum::http::Request::get("/v2/depots")
        .header(
            "x-access-key",
            axum::http::HeaderValue::from_bytes(b"\xff\xfe").unwrap(),
        )
        .body(axum::body::Body::empty())
        .unwrap();
    let body = app
        .send(request)
        .await
        .envelope(401, "UNAUTHORIZED")
        .clone();
    assert_eq!(body["description"], "invalid access key", "{body:#}");
    let r = app.call(Method::GET, "/v2/depots", None, None).await;
    assert_eq!(
        r.envelope(401, "UNAUTHORIZED")["description"],
        "the x-access-key header is required"
    );
}

#[tokio::test]
async fn writes_without_a_key_are_401_before_anything_else() {
    let app = TestApp::new();
    let r = app
        .call(Method::POST, "/v2/vehicles", None, Some(van("V")))
        .await;
    r.envelope(401, "UNAUTHORIZED");
    let r = app
        .call(Method::DELETE, "/v2/vehicles/1", Some("bad"), None)
        .await;
    r.envelope(401, "UNAUTHORIZED");
}

#[tokio::test]
async fn read_key_may_get_but_gets_403_permission_on_every_other_method() {
    let app = TestApp::new();
    let created = app.post("/v2/vehicles", &app.north(), van("Van")).await;
    let id = created.ok()["vehicle"]["id"].as_i64().unwrap();
    let read = app.north_read();
    app.get("/v2/vehicles", &read).await.ok();
    app.get(&format!("/v2/vehicles/{id}"), &read).await.ok();
    app.post("/v2/vehicles", &read, van("X"))
        .await
        .envelope(403, "PERMISSION");
    app.put(&format!("/v2/vehicles/{id}"), &read, json!({"name": "Y"}))
        .await
        .envelope(403, "PERMISSION");
    app.call(
        Method::PATCH,
        &format!("/v2/vehicles/{id}"),
        Some(&read),
        Some(json!({"name": "Y"})),
    )
    .await
    .envelope(403, "PERMISSION");
    app.delete(&format!("/v2/vehicles/{id}"), &read)
        .await
        .envelope(403, "PERMISSION");
    app.post(
        "/v2/zone-groups/1/bounds/contains",
        &read,
        json!({"location": {"lat": 51.5, "lng": -0.12}}),
    )
    .await
    .envelope(403, "PERMISSION");
    // Nothing changed.
    let v = app.get(&format!("/v2/vehicles/{id}"), &app.north()).await;
    assert_eq!(v.ok()["vehicle"]["name"], "Van");
    assert_eq!(
        app.get("/v2/vehicles", &app.north()).await.ok()["vehicles"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
}

#[tokio::test]
async fn healthz_needs_no_key() {
    let app = TestApp::new();
    let r = app.call(Method::GET, "/healthz", None, None).await;
    assert_eq!(r.ok()["status"], "ok");
}

#[tokio::test]
async fn keys_are_stored_only_as_digests() {
    let app = TestApp::new();
    let key = app.north();
    let stored = crate::common::test_sql::contents(&app.db);
    assert!(
        !crate::common::test_sql::holds(&stored, key.as_bytes()),
        "the clear key is in the database"
    );
    // The scan does see what the database holds: the depot's name.
    assert!(crate::common::test_sql::holds(&stored, b"North"));
}

/// On a multi-threaded runtime (as `dispatch serve` runs) the key's read and a read handler's
/// store work run on the request's own thread: many requests at once all answer, each one
/// authenticated by its own read of the key, so a key revoked between two requests is refused
/// by the second.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_on_a_threaded_runtime_check_the_key_on_every_request() {
    let app = std::sync::Arc::new(TestApp::new());
    let ids = crate::common::post_orders(
        &app,
        vec![
            crate::common::delivery("R-1", 51.50, -0.12),
            crate::common::delivery("R-2", 51.51, -0.13),
        ],
    )
    .await;
    let tasks: Vec<_> = (0..16)
        .map(|i| {
            let (app, id) = (app.clone(), ids[i % 2]);
            tokio::spawn(async move {
                let key = app.north();
                let one = app.get(&format!("/v2/orders/{id}"), &key).await;
                let page = app.get("/v2/orders?limit=1", &key).await;
                let listed = page.ok()["orders"].as_array().unwrap().len();
                (one.ok()["order"]["id"].as_i64(), listed)
            })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        assert_eq!(task.await.unwrap(), (Some(ids[i % 2]), 1));
    }
    let north = dispatch_core::model::organisation::DepotScope {
        organisation_id: app.seed_output["organisations"][0]["id"].as_i64().unwrap(),
        depot_id: app.depot(0, 0)["id"].as_i64().unwrap(),
    };
    let now = dispatch_core::time::Timestamp::from_millis(crate::common::START + 1);
    assert!(app
        .write(|tx| tx.revoke_access_key(north, "integration", now))
        .unwrap());
    for path in [format!("/v2/orders/{}", ids[0]), "/v2/orders".into()] {
        app.get(&path, &app.north())
            .await
            .envelope(401, "UNAUTHORIZED");
    }
    app.get("/v2/orders", &app.north_read()).await.ok();
}
