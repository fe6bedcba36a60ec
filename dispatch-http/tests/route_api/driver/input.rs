//! Bad input on every driver endpoint gets the spec's envelope (never a 5xx), and a credential
//! used on another vehicle's route or stop gets 404 and changes nothing.

use axum::http::Method;
use dispatch_core::events::DomainEvent;

use super::*;

/// Every driver endpoint that names a route or a stop, with a valid body.
fn endpoints(route: i64, stop: i64, now: &str) -> Vec<(Method, String, Value)> {
    vec![
        (Method::GET, format!("/driver/routes/{route}"), Value::Null),
        (
            Method::POST,
            format!("/driver/routes/{route}/start"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/driver/routes/{route}/positions"),
            json!({"positions": [{"lat": 51.5, "lng": -0.12, "time": now}]}),
        ),
        (
            Method::POST,
            format!("/driver/stops/{stop}/arrive"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/driver/stops/{stop}/complete"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/driver/stops/{stop}/fail"),
            json!({"reason": "closed"}),
        ),
        (
            Method::PUT,
            format!("/driver/stops/{stop}/notes"),
            json!({"notes": "hi"}),
        ),
        (
            Method::POST,
            format!("/driver/stops/{stop}/phone-calls"),
            json!({}),
        ),
        (
            Method::POST,
            format!("/driver/routes/{route}/complete"),
            json!({}),
        ),
    ]
}

/// Each body POSTed to `path` is refused with exactly those validation paths, in any order.
async fn refused_with_paths<const N: usize>(
    app: &TestApp,
    path: &str,
    key: &str,
    cases: [(Value, Vec<&str>); N],
) {
    for (body, mut paths) in cases {
        let got = app
            .post(path, key, body.clone())
            .await
            .invalid_paths_sorted();
        paths.sort();
        assert_eq!(got, paths, "{body}");
    }
}

#[tokio::test]
async fn another_vehicles_route_or_stop_is_404_on_every_endpoint_and_nothing_changes() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, _, _) = driven_route(&app, "MINE", 1).await;
    let (_, theirs, route, o) = driven_route(&app, "THEIRS", 1).await;
    start(&app, &theirs, route).await;
    let stop = stop_ids(&app, &theirs, route).await[0];
    let before = depot_route(&app, route).await;
    let events_before = events(&app).len();
    let mut answers = Vec::new();
    for (method, path, body) in endpoints(route, stop, &now_text(&app)) {
        let body = (!body.is_null()).then_some(body);
        let r = app.call(method.clone(), &path, Some(&key), body).await;
        r.envelope(404, "RESOURCE_NOT_FOUND");
        answers.push(r.body["statusCode"].clone());
    }
    // The same answers for ids that do not exist at all.
    for (method, path, body) in endpoints(999_999, 999_999, &now_text(&app)) {
        let body = (!body.is_null()).then_some(body);
        app.call(method, &path, Some(&key), body)
            .await
            .envelope(404, "RESOURCE_NOT_FOUND");
    }
    assert_eq!(depot_route(&app, route).await, before);
    assert_eq!(events(&app).len(), events_before);
    assert_eq!(status_of(&app, o[0]).await, "ROUTED");
    assert!(!events(&app)
        .iter()
        .any(|e| matches!(e, DomainEvent::RouteCompleted { .. })));
}

#[tokio::test]
async fn bad_input_on_every_driver_endpoint_is_an_envelope_never_a_5xx() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "B", 1).await;
    start(&app, &key, route).await;
    let stop = stop_ids(&app, &key, route).await[0];
    let garbage = [
        json!([1, 2]),
        json!("text"),
        json!({"unknown": true}),
        json!({"time": "yesterday"}),
        json!({"lat": 91, "lng": 0}),
        json!({"lat": 51.5}),
        json!({"time": 5}),
    ];
    for (method, path, _) in endpoints(route, stop, &now_text(&app)) {
        if method == Method::GET {
            continue;
        }
        for body in &garbage {
            let r = app
                .call(method.clone(), &path, Some(&key), Some(body.clone()))
                .await;
            assert_eq!(
                r.status.as_u16(),
                400,
                "{method} {path} {body}: {:#}",
                r.body
            );
            r.envelope(400, "INVALID_INPUT");
        }
        // Malformed JSON.
        let r = app
            .send(
                axum::http::Request::builder()
                    .method(method.clone())
                    .uri(&path)
                    .header("x-access-key", &key)
                    .header("content-type", "application/json")
                    .body(axum::body::Body::from("{not json"))
                    .unwrap(),
            )
            .await;
        r.envelope(400, "INVALID_INPUT");
    }
    let positions = format!("/driver/routes/{route}/positions");
    let far_future = now(&app).add_millis(3_600_000).to_string();
    let cases = [
        (json!({}), vec!["positions"]),
        (json!({"positions": []}), vec!["positions"]),
        (json!({"positions": {}}), vec!["positions"]),
        (
            json!({"positions": [{"lat": 100, "lng": -200, "time": now_text(&app)}]}),
            vec!["positions.0.lat", "positions.0.lng"],
        ),
        (
            json!({"positions": [{"lat": 51.5, "lng": -0.1}]}),
            vec!["positions.0.time"],
        ),
        (
            json!({"positions": [{"lat": 51.5, "lng": -0.1, "time": far_future}]}),
            vec!["positions.0.time"],
        ),
        (json!({"positions": [5]}), vec!["positions.0"]),
        (
            json!({"positions": [{"lat": "x", "lng": -0.1, "time": now_text(&app), "speed": 3}]}),
            vec!["positions.0.speed", "positions.0.lat"],
        ),
    ];
    refused_with_paths(&app, &positions, &key, cases).await;
    let too_many: Vec<Value> = (0..1001)
        .map(|_| json!({"lat": 51.5, "lng": -0.1, "time": now_text(&app)}))
        .collect();
    assert_eq!(
        app.post(&positions, &key, json!({ "positions": too_many }))
            .await
            .invalid_paths(),
        vec!["positions"]
    );
    let complete = format!("/driver/stops/{stop}/complete");
    let cases = [
        (
            json!({"line_items": [{"id": 999_999, "delivered_quantity": 1}]}),
            vec!["line_items.0.id"],
        ),
        (
            json!({"line_items": [{"delivered_quantity": 1}]}),
            vec!["line_items.0.id"],
        ),
        (
            json!({"line_items": [{"id": 1}]}),
            vec!["line_items.0.delivered_quantity"],
        ),
        (json!({"line_items": "all"}), vec!["line_items"]),
        (json!({"notes": 5}), vec!["notes"]),
    ];
    refused_with_paths(&app, &complete, &key, cases).await;
    let fail = format!("/driver/stops/{stop}/fail");
    assert_eq!(
        app.post(&fail, &key, json!({})).await.invalid_paths(),
        vec!["reason"]
    );
    assert_eq!(
        app.post(&fail, &key, json!({"reason": ""}))
            .await
            .invalid_paths(),
        vec!["reason"]
    );
    let notes = format!("/driver/stops/{stop}/notes");
    assert_eq!(
        app.put(&notes, &key, json!({})).await.invalid_paths(),
        vec!["notes"]
    );
    assert_eq!(
        app.put(&notes, &key, json!({"notes": "x".repeat(40_001)}))
            .await
            .invalid_paths(),
        vec!["notes"]
    );
    for path in [
        "/driver/day?date=tomorrow",
        "/driver/day?when=now",
        "/driver/feed?after=-1",
        "/driver/feed?wait=31",
    ] {
        app.get(path, &key).await.envelope(400, "INVALID_INPUT");
    }
    app.post("/driver/stops/abc/arrive", &key, json!({}))
        .await
        .envelope(400, "INVALID_INPUT");
    // Nothing of that changed the stop.
    let depot = depot_route(&app, route).await;
    assert!(depot["stops"][0]["actual_completed_ts"].is_null());
    assert!(depot["stops"][0]["actual_arrival_time"].is_null());
    assert!(depot["actual_distance"].is_null());
}

#[tokio::test]
async fn a_driver_body_is_parsed_within_the_bounds_of_every_json_body() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "BOUND", 1).await;
    // 200 000 empty objects: refused while parsing at the 100 000th value, not built first.
    let body = format!("{{\"positions\": [{}{{}}]}}", "{},".repeat(199_999));
    let r = app
        .send(
            axum::http::Request::builder()
                .method(Method::POST)
                .uri(format!("/driver/routes/{route}/positions"))
                .header("x-access-key", &key)
                .header("content-type", "application/json")
                .body(axum::body::Body::from(body))
                .unwrap(),
        )
        .await;
    r.envelope(400, "INVALID_INPUT");
    let description = r.body["description"].as_str().unwrap_or_default();
    assert!(description.contains("JSON values"), "{:#}", r.body);
}
