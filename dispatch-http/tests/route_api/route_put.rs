//! PUT /routes/{id} is a partial update (spec: Routes): only what is sent changes.

use serde_json::json;

use super::*;

#[tokio::test]
async fn put_route_with_nothing_to_change_answers_the_route_unchanged() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "U", 2).await;
    let laid = lay_out(&app, &[(Some(v), o)]);
    let path = format!("/v2/routes/{}", laid.routes[0]);
    app.put(&path, &app.north(), json!({"is_locked": true}))
        .await
        .ok();
    let before = app.get(&path, &app.north()).await.ok()["route"].clone();
    let r = app.put(&path, &app.north(), json!({})).await;
    let route = &r.ok()["route"];
    assert_eq!(route["is_locked"], true, "the flag is kept");
    assert_eq!(route["updated"], before["updated"], "nothing was written");
    assert!(route.get("stops").is_none(), "{route:#}");
    let r = app
        .put(&path, &app.north(), json!({"is_locked": null}))
        .await;
    assert_eq!(
        r.ok()["route"]["is_locked"],
        true,
        "null leaves it as it is"
    );
    app.put("/v2/routes/424242", &app.north(), json!({}))
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
}
