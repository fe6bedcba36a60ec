//! `idempotency-key` on the driver's actions: an app that sends an action again after losing
//! its answer gets the first answer, and the action is carried out once.

use axum::body::Body;
use axum::http::{Method, Request};

use super::*;

/// POST /driver/stops/{stop}/{action} with an `idempotency-key`.
async fn keyed(app: &TestApp, key: &str, stop: i64, action: &str, idem: &str, body: Value) -> Resp {
    let request = Request::builder()
        .method(Method::POST)
        .uri(format!("/driver/stops/{stop}/{action}"))
        .header("x-access-key", key)
        .header("idempotency-key", idem)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    app.send(request).await
}

#[tokio::test]
async fn a_completion_sent_again_with_its_key_is_answered_from_the_record_and_done_once() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "R", 2).await;
    start(&app, &key, route).await;
    let stops = stop_ids(&app, &key, route).await;
    app.clock.advance_millis(10 * 60_000);
    on_stop(&app, &key, stops[0], "arrive", json!({}))
        .await
        .ok();
    app.clock.advance_millis(4 * 60_000);
    let body = json!({"notes": "left with neighbour"});
    let first = keyed(&app, &key, stops[0], "complete", "done-1", body.clone()).await;
    let completed = first.ok()["stop"]["actual_completed_ts"].clone();
    assert!(first.headers.get("idempotency-replay").is_none());

    // The answer was lost; the app sends again, later.
    app.clock.advance_millis(5 * 60_000);
    let again = keyed(&app, &key, stops[0], "complete", "done-1", body).await;
    assert_eq!(again.headers["idempotency-replay"], "true");
    assert_eq!(again.body, first.body, "the first answer, as it was");
    let read = app.get(&format!("/driver/routes/{route}"), &key).await;
    assert_eq!(
        read.ok()["route"]["stops"][0]["actual_completed_ts"],
        completed
    );

    // The same key with another body is refused, and changes nothing.
    let other = keyed(
        &app,
        &key,
        stops[0],
        "complete",
        "done-1",
        json!({"notes": "x"}),
    )
    .await;
    other.envelope(422, "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY");
    // A refusal is recorded too: a failure without its reason is refused again alike.
    let refused = keyed(&app, &key, stops[1], "fail", "fail-1", json!({})).await;
    let refused_again = keyed(&app, &key, stops[1], "fail", "fail-1", json!({})).await;
    assert!(refused.status.is_client_error(), "{:#}", refused.body);
    assert_eq!(refused_again.status, refused.status);
    assert_eq!(refused_again.body, refused.body);
    assert_eq!(refused_again.headers["idempotency-replay"], "true");
}
