//! The driver API's and the tracking page's answers against the OpenAPI document. Every
//! response of this suite already passes the harness's contract check; here a real day of a
//! driver is checked against a document with deliberately wrong schemas, to show the check
//! fails where the document and the handlers part.

use serde_json::{json, Value};

use super::super::pod::raw_get;
use super::*;
use crate::contract::{check_against, check_media_type};

/// Real driver answers: (method, uri, status, body).
async fn a_drivers_answers(app: &TestApp) -> (Vec<(&'static str, String, u16, Value)>, String) {
    let (_, key, route, _) = driven_route(app, "K", 2).await;
    morning(app);
    let mut out = Vec::new();
    let me = app.get("/driver/me", &key).await;
    out.push(("GET", "/driver/me".to_owned(), 200, me.ok().clone()));
    start(app, &key, route).await;
    let stops = stop_ids(app, &key, route).await;
    let uri = format!("/driver/routes/{route}/positions");
    let positions = app
        .post(
            &uri,
            &key,
            json!({"positions": [{"lat": 51.5, "lng": -0.12, "time": now_text(app)}]}),
        )
        .await;
    out.push(("POST", uri, 200, positions.ok().clone()));
    let uri = format!("/driver/stops/{}/arrive", stops[0]);
    let arrived = app.post(&uri, &key, json!({})).await;
    out.push(("POST", uri, 200, arrived.ok().clone()));
    let feed = app.get("/driver/feed?after=0&wait=0", &key).await;
    out.push(("GET", "/driver/feed".to_owned(), 200, feed.ok().clone()));
    let link = app
        .get(&format!("/v2/routes/{route}"), &app.north())
        .await
        .ok()["route"]["stops"][0]["tracking_link"]
        .as_str()
        .expect("a tracking link")
        .to_owned();
    let page = link[link.find("/track/").unwrap()..].to_owned();
    (out, page)
}

#[tokio::test]
async fn driver_and_tracking_answers_match_the_document_and_a_wrong_schema_fails() {
    let app = TestApp::new();
    let (answers, page) = a_drivers_answers(&app).await;
    let doc = dispatch_http::openapi::document();
    for (method, uri, status, body) in &answers {
        check_against(doc, method, uri, *status, body).unwrap_or_else(|e| panic!("{e}"));
    }
    let (status, headers, _) = raw_get(&app, &page, None).await;
    let html = headers["content-type"].to_str().unwrap();
    check_media_type(doc, "GET", &page, status.as_u16(), html).expect("a documented page");

    let mut wrong = doc.clone();
    let schemas = &mut wrong["components"]["schemas"];
    // A property the handler sends but the document does not name ...
    schemas["DriverIdentity"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("credential_id");
    // ... of another type ...
    schemas["TrackWire"]["properties"]["actual_distance"] = json!({"type": "string"});
    // ... one it never sends, required ...
    schemas["FeedPage"]["required"] = json!(["messages", "cursor", "next"]);
    // ... and a stop documented without its orders.
    schemas["StopWire"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("orders");
    let errors: Vec<String> = answers
        .iter()
        .filter_map(|(method, uri, status, body)| {
            check_against(&wrong, method, uri, *status, body).err()
        })
        .collect();
    let text = errors.join("\n");
    assert_eq!(errors.len(), answers.len(), "every answer fails:\n{text}");
    for expected in ["credential_id", "actual_distance", "next", "orders"] {
        assert!(text.contains(expected), "{expected} not in:\n{text}");
    }
    // The tracking page documented as JSON only: its HTML answer fails.
    wrong["paths"]["/track/{token}"]["get"]["responses"]["200"]["content"] =
        json!({"application/json": {"schema": {"type": "object"}}});
    let error = check_media_type(&wrong, "GET", &page, status.as_u16(), html).unwrap_err();
    assert!(error.contains("text/html"), "{error}");
}
