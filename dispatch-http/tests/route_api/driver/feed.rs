//! Route changes pushed to the driver: long polling and Server-Sent Events, resumable.

use std::time::Duration;

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use tower::ServiceExt;

use super::*;

fn kinds(messages: &Value) -> Vec<(String, i64)> {
    messages
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["kind"].as_str().unwrap().to_owned(),
                m["route_id"].as_i64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test]
async fn dispatches_edits_and_deletions_reach_the_vehicles_feed_in_order() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van F").await;
    let other = vehicle(&app, "Van G").await;
    let key = credential(&app, v).await;
    let start = app.get("/driver/feed?wait=0", &key).await;
    assert_eq!(start.ok()["messages"], json!([]));
    let cursor = start.ok()["cursor"].as_i64().unwrap();
    let o = orders(&app, "F", 3).await;
    let extra = orders(&app, "X", 1).await;
    let theirs = orders(&app, "Y", 1).await;
    let laid = lay_out(&app, &[(Some(v), o.clone()), (Some(other), theirs)]);
    let route = laid.routes[0];
    dispatch(&app, route).await;
    dispatch(&app, laid.routes[1]).await;
    app.post(
        &format!("/v2/routes/{route}/reverse"),
        &app.north(),
        json!(null),
    )
    .await
    .ok();
    app.post(
        &format!("/v2/routes/{route}/add-orders"),
        &app.north(),
        json!({"orders": [{"id": extra[0]}], "settings": {"allow_dispatched": true}}),
    )
    .await
    .ok();
    app.post(
        &format!("/v2/routes/{route}/remove-orders"),
        &app.north(),
        json!({"orders": [{"id": o[0]}], "settings": {"allow_dispatched": true}}),
    )
    .await
    .ok();
    let r = app
        .get(&format!("/driver/feed?after={cursor}&wait=0"), &key)
        .await;
    let body = r.ok().clone();
    assert_eq!(
        kinds(&body["messages"]),
        vec![
            ("dispatched".to_owned(), route),
            ("edited".to_owned(), route),
            ("edited".to_owned(), route),
            ("edited".to_owned(), route),
        ]
    );
    // Each message carries the route as it is now.
    assert_eq!(body["messages"][0]["route"]["id"], route);
    assert_eq!(
        body["messages"][0]["route"]["stops"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let cursor = body["cursor"].as_i64().unwrap();
    app.delete(&format!("/v2/plans/{}", laid.plan), &app.north())
        .await
        .ok();
    let r = app
        .get(&format!("/driver/feed?after={cursor}&wait=0"), &key)
        .await;
    assert_eq!(
        kinds(&r.ok()["messages"]),
        vec![("deleted".to_owned(), route)]
    );
    assert!(r.ok()["messages"][0]["route"].is_null());
    // Nothing after the last cursor.
    let last = r.ok()["cursor"].as_i64().unwrap();
    let r = app
        .get(&format!("/driver/feed?after={last}&wait=0"), &key)
        .await;
    assert_eq!(r.ok()["messages"], json!([]));
    assert_eq!(r.ok()["cursor"], last);
}

#[tokio::test]
async fn a_long_poll_returns_as_soon_as_a_change_commits() {
    let app = std::sync::Arc::new(TestApp::new());
    let v = vehicle(&app, "Van L").await;
    let key = credential(&app, v).await;
    let o = orders(&app, "L", 1).await;
    let laid = lay_out(&app, &[(Some(v), o)]);
    let waiting = {
        let app = app.clone();
        let key = key.clone();
        tokio::spawn(async move { app.get("/driver/feed?wait=10", &key).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    let started = std::time::Instant::now();
    dispatch(&app, laid.routes[0]).await;
    let r = tokio::time::timeout(Duration::from_secs(5), waiting)
        .await
        .expect("the poll answers within the wait")
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(
        kinds(&r.ok()["messages"]),
        vec![("dispatched".to_owned(), laid.routes[0])]
    );
}

/// Reads SSE frames from a response body until `want` events (not comments) arrived.
async fn sse_events(body: &mut Body, want: usize) -> Vec<(String, String, Value)> {
    let mut text = String::new();
    let mut out = Vec::new();
    while out.len() < want {
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("an event in time")
            .expect("the stream stays open")
            .unwrap();
        if let Ok(data) = frame.into_data() {
            text.push_str(std::str::from_utf8(&data).unwrap());
        }
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            let (mut event, mut id, mut data) = (String::new(), String::new(), Value::Null);
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    event = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("id:") {
                    id = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data = serde_json::from_str(v.trim()).unwrap();
                }
            }
            if !event.is_empty() {
                let doc = dispatch_http::openapi::document();
                crate::contract::check_event(doc, "/driver/events", &event, &data)
                    .unwrap_or_else(|e| panic!("{e}"));
                out.push((event, id, data));
            }
        }
    }
    out
}

async fn subscribe(app: &TestApp, key: &str, last_event_id: Option<&str>) -> Body {
    let mut b = Request::builder()
        .uri("/driver/events")
        .header("x-access-key", key);
    if let Some(id) = last_event_id {
        b = b.header("last-event-id", id);
    }
    let response = app
        .router
        .clone()
        .oneshot(b.body(Body::empty()).unwrap())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/event-stream");
    response.into_body()
}

#[tokio::test]
async fn server_sent_events_push_dispatches_and_resume_after_the_last_event_id() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van S").await;
    let key = credential(&app, v).await;
    let o = orders(&app, "SSE", 4).await;
    let laid = lay_out(&app, &[(Some(v), vec![o[0], o[1]])]);
    let mut body = subscribe(&app, &key, None).await;
    let ready = sse_events(&mut body, 1).await;
    assert_eq!(ready[0].0, "ready");
    dispatch(&app, laid.routes[0]).await;
    let got = sse_events(&mut body, 1).await;
    assert_eq!(got[0].0, "dispatched");
    assert_eq!(got[0].2["route"]["id"], laid.routes[0]);
    let seen = got[0].1.clone();
    drop(body);
    // While the driver is away: an edit and another dispatch.
    app.post(
        &format!("/v2/routes/{}/reverse", laid.routes[0]),
        &app.north(),
        json!(null),
    )
    .await
    .ok();
    let later = lay_out(&app, &[(Some(v), vec![o[2], o[3]])]);
    dispatch(&app, later.routes[0]).await;
    let mut body = subscribe(&app, &key, Some(&seen)).await;
    let got = sse_events(&mut body, 3).await;
    let names: Vec<_> = got.iter().map(|e| e.0.as_str()).collect();
    assert_eq!(names, vec!["ready", "edited", "dispatched"]);
    assert_eq!(got[2].2["route_id"], later.routes[0]);
    assert!(got[1].1.parse::<i64>().unwrap() < got[2].1.parse::<i64>().unwrap());
    // Each event's data was held to the schema the document names for it; one it does not
    // describe fails.
    let doc = dispatch_http::openapi::document();
    let mut wrong = got[2].2.clone();
    wrong["kind"] = json!("teleported");
    assert!(crate::contract::check_event(doc, "/driver/events", "dispatched", &wrong).is_err());
    assert!(crate::contract::check_event(doc, "/driver/events", "moved", &got[2].2).is_err());
    // A bad Last-Event-ID is refused in the envelope.
    let r = app
        .send(
            Request::builder()
                .uri("/driver/events")
                .header("x-access-key", &key)
                .header("last-event-id", "yesterday")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    r.envelope(400, "INVALID_INPUT");
}

/// A cursor ahead of the vehicle's feed (kept from a database that was restored or reset, or
/// mistyped) is read as the present: the answer's cursor, and the SSE `ready` id, are the
/// latest message's, so the next change arrives. It was echoed back and every later change
/// was skipped for good, without a word.
#[tokio::test]
async fn a_cursor_ahead_of_the_feed_is_read_as_the_present_and_misses_nothing() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van A").await;
    let key = credential(&app, v).await;
    let present = app.get("/driver/feed?wait=0", &key).await.ok()["cursor"]
        .as_i64()
        .unwrap();
    let ahead = i64::MAX.to_string();
    let r = app
        .get(&format!("/driver/feed?after={ahead}&wait=0"), &key)
        .await;
    assert_eq!(r.ok()["messages"], json!([]));
    assert_eq!(r.ok()["cursor"], present);
    let mut body = subscribe(&app, &key, Some(&ahead)).await;
    let ready = sse_events(&mut body, 1).await;
    assert_eq!(ready[0].0, "ready");
    assert_eq!(ready[0].1, present.to_string());
    let o = orders(&app, "AHEAD", 1).await;
    let laid = lay_out(&app, &[(Some(v), o)]);
    dispatch(&app, laid.routes[0]).await;
    let got = sse_events(&mut body, 1).await;
    assert_eq!(got[0].0, "dispatched");
    let r = app
        .get(&format!("/driver/feed?after={ahead}&wait=0"), &key)
        .await;
    assert_eq!(
        r.ok()["cursor"].as_i64().unwrap(),
        got[0].1.parse::<i64>().unwrap()
    );
}
