//! Reported times keep the order of what happened on the road: a stop is not arrived at before
//! its route started, not completed or failed before its arrival, and a route is not completed
//! before its start. A contradicting reported time is 400 at `time` and changes nothing; a
//! request without a time never trips over a device clock running ahead of the service's.
//! Orders cannot be added to a route its driver completed, nor is it reversed.

use dispatch_core::events::DomainEvent;

use super::*;

fn at(app: &TestApp, offset_ms: i64) -> String {
    now(app).add_millis(offset_ms).to_string()
}

fn refused_at_time(r: &Resp, what: &str) {
    let body = r.envelope(400, "INVALID_INPUT");
    let issue = &body["details"]["validationErrors"][0];
    assert_eq!(issue["path"], json!(["time"]), "{what}: {body:#}");
    assert_eq!(issue["code"], "too_small", "{what}: {body:#}");
    assert!(
        body["description"].as_str().unwrap().contains(what),
        "{what}: {body:#}"
    );
}

#[tokio::test]
async fn a_stop_is_not_arrived_before_the_start_nor_finished_before_its_arrival() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "T", 3).await;
    let stops = stop_ids(&app, &key, route).await;
    let start_at = at(&app, 0);
    on_route(&app, &key, route, "start", json!({"time": start_at}))
        .await
        .ok();
    app.clock.advance_millis(600_000);
    let r = on_stop(
        &app,
        &key,
        stops[0],
        "arrive",
        json!({"time": at(&app, -700_000)}),
    )
    .await;
    refused_at_time(&r, "the route's start");
    let arrived_at = at(&app, 0);
    on_stop(&app, &key, stops[0], "arrive", json!({"time": arrived_at}))
        .await
        .ok();
    app.clock.advance_millis(300_000);
    for (action, body) in [
        ("complete", json!({"time": at(&app, -301_000)})),
        (
            "fail",
            json!({"reason": "closed", "time": at(&app, -301_000)}),
        ),
    ] {
        let r = on_stop(&app, &key, stops[0], action, body).await;
        refused_at_time(&r, "the arrival at the stop");
    }
    let order = depot_route(&app, route).await["stops"][0]["orders"][0]["id"]
        .as_i64()
        .unwrap();
    assert_eq!(status_of(&app, order).await, "ROUTED", "nothing changed");
    // Completing at the arrival itself is a visit of no time; later is measured honestly.
    on_stop(
        &app,
        &key,
        stops[0],
        "complete",
        json!({"time": at(&app, -240_000)}),
    )
    .await
    .ok();
    let stop = &depot_route(&app, route).await["stops"][0];
    assert_eq!(stop["actual_duration"], 60, "{stop:#}");
    // A stop never arrived at is not completed before the route's start either.
    let r = on_stop(
        &app,
        &key,
        stops[1],
        "complete",
        json!({"time": at(&app, -1_000_000)}),
    )
    .await;
    refused_at_time(&r, "the route's start");
    let r = on_route(
        &app,
        &key,
        route,
        "complete",
        json!({"time": at(&app, -1_000_000)}),
    )
    .await;
    refused_at_time(&r, "the route's start");
    assert_eq!(count(&app, &DomainEvent::RouteCompleted { id: route }), 0);
}

#[tokio::test]
async fn without_a_reported_time_a_device_clock_ahead_of_the_service_is_no_refusal() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "A", 1).await;
    let stops = stop_ids(&app, &key, route).await;
    // The device runs 4 minutes ahead: its start is "in the future" for the service.
    let ahead = at(&app, 240_000);
    on_route(&app, &key, route, "start", json!({"time": ahead}))
        .await
        .ok();
    on_stop(&app, &key, stops[0], "arrive", json!({}))
        .await
        .ok();
    on_stop(&app, &key, stops[0], "complete", json!({}))
        .await
        .ok();
    let r = on_route(&app, &key, route, "complete", json!({})).await;
    assert_eq!(r.ok()["route"]["completed_ts"], json!(ahead));
    let stop = &depot_route(&app, route).await["stops"][0];
    assert_eq!(stop["actual_duration"], 0, "{stop:#}");
    assert_eq!(stop["actual_arrival_time"], json!(&ahead[..19]));
}

/// 400 INVALID_INPUT at the route's `id`, saying the route is completed.
fn refused_as_completed(r: &Resp) {
    let body = r.envelope(400, "INVALID_INPUT");
    let issue = &body["details"]["validationErrors"][0];
    assert_eq!(issue["path"], json!(["id"]), "{body:#}");
    assert!(
        body["description"].as_str().unwrap().contains("completed"),
        "{body:#}"
    );
}

#[tokio::test]
async fn a_route_its_driver_completed_takes_no_orders_even_when_allowed_and_is_not_reversed() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, o) = driven_route(&app, "D", 2).await;
    start(&app, &key, route).await;
    let stops = stop_ids(&app, &key, route).await;
    on_stop(&app, &key, stops[0], "complete", json!({}))
        .await
        .ok();
    on_route(&app, &key, route, "complete", json!({}))
        .await
        .ok();
    let late = orders(&app, "LATE", 1).await[0];
    let edits_before = count(&app, &DomainEvent::RouteEdited { id: route });
    for settings in [json!({"allow_dispatched": true}), json!({})] {
        let r = app
            .post(
                &format!("/v2/routes/{route}/add-orders"),
                &app.north(),
                json!({"orders": [{"id": late}], "settings": settings}),
            )
            .await;
        refused_as_completed(&r);
    }
    // Nor is it reversed: its stops keep their order and ids.
    let before = stop_ids(&app, &key, route).await;
    let r = app
        .post(
            &format!("/v2/routes/{route}/reverse"),
            &app.north(),
            json!(null),
        )
        .await;
    refused_as_completed(&r);
    assert_eq!(stop_ids(&app, &key, route).await, before);
    assert_eq!(status_of(&app, late).await, "OPEN");
    assert_eq!(
        depot_route(&app, route).await["stops"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert_eq!(
        count(&app, &DomainEvent::RouteEdited { id: route }),
        edits_before
    );
    // What the driver did not visit can still be taken off to be planned again.
    let r = app
        .post(
            &format!("/v2/routes/{route}/remove-orders"),
            &app.north(),
            json!({"orders": [{"id": o[0]}, {"id": o[1]}], "settings": {"allow_dispatched": true}}),
        )
        .await;
    let body = r.ok();
    let names: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    let visited = depot_route(&app, route).await["stops"][0]["orders"][0]["id"].clone();
    assert_eq!(names, ["ORDER_COMPLETED"], "{body:#}");
    assert_eq!(body["errors"][0]["details"]["id"], visited, "{body:#}");
    let unvisited = if visited == json!(o[0]) { o[1] } else { o[0] };
    assert_eq!(status_of(&app, unvisited).await, "OPEN");
}
