//! The driver feed keeps a few days of changes: older messages are pruned as the depot's
//! routes change.

use dispatch_core::service::driver::feed::FEED_RETENTION_MS;

use super::*;

async fn messages(app: &TestApp, key: &str) -> Vec<i64> {
    let r = app.get("/driver/feed?after=0&wait=0", key).await;
    r.ok()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["route_id"].as_i64().unwrap())
        .collect()
}

#[tokio::test]
async fn feed_messages_older_than_the_retention_are_pruned_as_routes_change() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van R").await;
    let other = vehicle(&app, "Van S").await;
    let key = credential(&app, v).await;
    let mine = orders(&app, "R", 2).await;
    let theirs = orders(&app, "S", 2).await;
    let laid = lay_out(
        &app,
        &[
            (Some(v), mine),
            (Some(other), vec![theirs[0]]),
            (Some(other), vec![theirs[1]]),
        ],
    );
    dispatch(&app, laid.routes[0]).await;
    assert_eq!(messages(&app, &key).await, [laid.routes[0]]);
    // Another vehicle's change within the retention keeps the message.
    app.clock.advance_millis(FEED_RETENTION_MS - 60_000);
    dispatch(&app, laid.routes[1]).await;
    assert_eq!(messages(&app, &key).await, [laid.routes[0]]);
    // Past the retention, the next change of the depot prunes it.
    app.clock.advance_millis(120_000);
    dispatch(&app, laid.routes[2]).await;
    assert_eq!(messages(&app, &key).await, Vec::<i64>::new());
    // Cursors stay meaningful: a new subscriber starts at the present, and the next change of
    // this vehicle arrives after it.
    let start = app.get("/driver/feed?wait=0", &key).await;
    let cursor = start.ok()["cursor"].as_i64().unwrap();
    app.post(
        &format!("/v2/routes/{}/reverse", laid.routes[0]),
        &app.north(),
        json!(null),
    )
    .await
    .ok();
    let r = app
        .get(&format!("/driver/feed?after={cursor}&wait=0"), &key)
        .await;
    let after = r.ok()["messages"].as_array().unwrap().clone();
    assert_eq!(after.len(), 1, "{after:#?}");
    assert_eq!(after[0]["kind"], "edited");
    assert!(after[0]["id"].as_i64().unwrap() > cursor);
}
