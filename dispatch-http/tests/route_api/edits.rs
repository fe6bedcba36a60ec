//! POST /routes/{id}/add-orders, /remove-orders and /reverse.

use dispatch_core::events::DomainEvent;
use serde_json::{json, Value};

use super::*;

async fn add(app: &TestApp, route: i64, body: Value) -> Value {
    let r = app
        .post(
            &format!("/v2/routes/{route}/add-orders"),
            &app.north(),
            body,
        )
        .await;
    r.ok().clone()
}

async fn remove(app: &TestApp, route: i64, body: Value) -> Value {
    let r = app
        .post(
            &format!("/v2/routes/{route}/remove-orders"),
            &app.north(),
            body,
        )
        .await;
    r.ok().clone()
}

fn names(v: &Value) -> Vec<String> {
    v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn added_orders_are_appended_before_the_end_in_request_order_with_real_stops() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "A", 4).await;
    // Another plan: o[2] and o[3] are on none of its routes and on no active route.
    let laid = lay_out(&app, &[(Some(v), vec![o[0], o[1]])]);
    let out = add(
        &app,
        laid.routes[0],
        json!({"orders": [{"id": o[3]}, {"order_number": "A-2"}]}),
    )
    .await;
    assert_eq!(out["errors"], json!([]));
    let entries = out["orders"].as_array().unwrap();
    assert_eq!(entries[0]["id"], o[3]);
    assert_eq!(entries[1]["order_number"], "A-2");
    assert_eq!(
        route_orders(&app, laid.routes[0]).await,
        vec![vec![o[0]], vec![o[1]], vec![o[3]], vec![o[2]]]
    );
    let route = app
        .get(&format!("/v2/routes/{}", laid.routes[0]), &app.north())
        .await;
    let stops = route.ok()["route"]["stops"].as_array().unwrap().clone();
    for (entry, stop) in entries.iter().zip(&stops[2..]) {
        assert_eq!(
            entry["stops"],
            json!([{"id": stop["id"], "route": {"id": laid.routes[0]}}])
        );
    }
    // Times follow from the travel matrix: arrivals never go backwards.
    let times: Vec<&str> = stops
        .iter()
        .map(|s| s["estimated_arrival_time"].as_str().unwrap())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    // The route is undispatched: statuses stay OPEN, no events.
    assert_eq!(status_of(&app, o[3]).await, "OPEN");
    assert_eq!(status_events(&app, o[3]), Vec::<String>::new());
}

#[tokio::test]
async fn every_add_failure_is_named_in_its_situation_with_parallel_lists() {
    let app = TestApp::new();
    let v1 = vehicle(&app, "Van 1").await;
    let v2 = vehicle(&app, "Van 2").await;
    let o = orders(&app, "F", 6).await;
    let shipment = post_orders(
        &app,
        vec![json!({"order_number": "SHIP", "type": "shipment",
            "pickup_address": "1 A St", "pickup_lat": 51.5, "pickup_lng": -0.12,
            "delivery_address": "2 B St", "delivery_lat": 51.51, "delivery_lng": -0.11,
            "delivery_date": DAY})],
    )
    .await[0];
    let laid = lay_out(&app, &[(Some(v1), vec![o[0]]), (Some(v2), vec![o[1]])]);
    set_status(&app, o[2], "DELIVERED");
    // o[3] was on route 0 and was removed.
    add(&app, laid.routes[0], json!({"orders": [{"id": o[3]}]})).await;
    remove(&app, laid.routes[0], json!({"orders": [{"id": o[3]}]})).await;
    let out = add(
        &app,
        laid.routes[0],
        json!({"orders": [
            {"id": 999999},
            {"id": o[4], "order_number": "F-5"},
            {"id": o[1]},
            {"id": o[0]},
            {"id": o[2]},
            {"id": shipment},
            {"id": o[3]},
            {"order_number": "nope"},
        ]}),
    )
    .await;
    assert_eq!(
        names(&out),
        [
            "ORDER_NOT_FOUND",
            "ID_NUMBER_MISMATCH",
            "ALREADY_ROUTED",
            "ALREADY_ROUTED",
            "ORDER_COMPLETED",
            "ORDER_TYPE_UNSUPPORTED",
            "PREVIOUSLY_ON_ROUTE",
            "ORDER_NOT_FOUND",
        ]
    );
    // Resolved orders are listed (with no stops); unresolved references only in errors.
    let listed: Vec<i64> = out["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_i64().unwrap())
        .collect();
    assert_eq!(listed, vec![o[1], o[0], o[2], shipment, o[3]]);
    assert!(out["orders"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e["stops"] == json!([])));
    let errors = out["errors"].as_array().unwrap();
    assert_eq!(errors[0]["details"]["id"], 999999);
    assert_eq!(errors[7]["details"]["order_number"], "nope");
    assert_eq!(errors[2]["details"]["order_number"], "F-1");
    assert!(errors.iter().all(|e| e["description"].is_string()));
    assert_eq!(route_orders(&app, laid.routes[0]).await, vec![vec![o[0]]]);
}

#[tokio::test]
async fn a_dispatched_route_refuses_edits_unless_allowed_then_routes_audits_and_fires_routes_edited(
) {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "G", 3).await;
    let laid = lay_out(&app, &[(Some(v), vec![o[0], o[1]])]);
    let route = laid.routes[0];
    dispatch_route(&app, route).await.ok();
    let refused = add(&app, route, json!({"orders": [{"id": o[2]}]})).await;
    assert_eq!(names(&refused), ["ROUTE_DISPATCHED"]);
    let refused = remove(&app, route, json!({"orders": [{"id": o[0]}]})).await;
    assert_eq!(names(&refused), ["ROUTE_DISPATCHED"]);
    assert_eq!(count(&app, &DomainEvent::RouteEdited { id: route }), 0);
    let added = add(
        &app,
        route,
        json!({"orders": [{"id": o[2]}], "settings": {"allow_dispatched": true}}),
    )
    .await;
    assert_eq!(added["errors"], json!([]));
    assert_eq!(status_of(&app, o[2]).await, "ROUTED");
    assert_eq!(status_events(&app, o[2]), vec!["ROUTED"]);
    let removed = remove(
        &app,
        route,
        json!({"orders": [{"id": o[0]}], "settings": {"allow_dispatched": true}}),
    )
    .await;
    assert_eq!(removed["errors"], json!([]));
    assert_eq!(removed["orders"][0]["stops"].as_array().unwrap().len(), 1);
    assert_eq!(status_of(&app, o[0]).await, "OPEN");
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED", "OPEN"]);
    assert_eq!(count(&app, &DomainEvent::RouteEdited { id: route }), 2);
    let scope = north_scope(&app);
    let audit = app.read(|tx| tx.route_audit(scope, route)).unwrap();
    let actions: Vec<(&str, Vec<i64>)> = audit
        .iter()
        .map(|a| (a.action.as_str(), a.order_ids.clone()))
        .collect();
    assert_eq!(
        actions,
        vec![("orders_added", vec![o[2]]), ("orders_removed", vec![o[0]])]
    );
    // Back on the route it left: PREVIOUSLY_ON_ROUTE, even allowed.
    let again = add(
        &app,
        route,
        json!({"orders": [{"id": o[0]}], "settings": {"allow_dispatched": true}}),
    )
    .await;
    assert_eq!(names(&again), ["PREVIOUSLY_ON_ROUTE"]);
}

#[tokio::test]
async fn removal_failures_are_named_and_removed_orders_reopen() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "R", 4).await;
    let laid = lay_out(&app, &[(Some(v), vec![o[0], o[1], o[2]])]);
    set_status(&app, o[2], "UNDELIVERED");
    let out = remove(
        &app,
        laid.routes[0],
        json!({"orders": [{"id": o[0]}, {"id": o[3]}, {"id": o[2]}, {"order_number": "zzz"},
            {"id": o[1], "order_number": "R-0"}, {"id": o[0]}]}),
    )
    .await;
    assert_eq!(
        names(&out),
        [
            "NOT_ON_ROUTE",
            "ORDER_COMPLETED",
            "ORDER_NOT_FOUND",
            "ID_NUMBER_MISMATCH",
            "NOT_ON_ROUTE"
        ]
    );
    let entries = out["orders"].as_array().unwrap();
    assert_eq!(entries.len(), 4, "{out:#}");
    assert_eq!(entries[0]["stops"].as_array().unwrap().len(), 1);
    assert_eq!(entries[1]["stops"], json!([]));
    assert_eq!(
        route_orders(&app, laid.routes[0]).await,
        vec![vec![o[1]], vec![o[2]]]
    );
    // Removed orders are unrouted, not moved elsewhere.
    let r = app.get(&format!("/v2/orders/{}", o[0]), &app.north()).await;
    let body = r.ok();
    let order = if body["order"].is_object() {
        &body["order"]
    } else {
        body
    };
    assert_eq!(order["stops"], json!([]));
}

#[tokio::test]
async fn multi_order_stops_are_rebuilt_or_deleted_and_exchange_halves_cannot_be_split() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "M", 2).await;
    let pair = post_orders(
        &app,
        vec![
            json!({"order_number": "EX-D", "type": "delivery", "delivery_address": "5 Swap St",
                "delivery_lat": 51.505, "delivery_lng": -0.115, "delivery_date": DAY,
                "order_exchange": {"reference": "SWAP"}}),
            json!({"order_number": "EX-P", "type": "pickup", "pickup_address": "5 Swap St",
                "pickup_lat": 51.505, "pickup_lng": -0.115, "delivery_date": DAY,
                "order_exchange": {"reference": "SWAP"}}),
        ],
    )
    .await;
    let laid = lay_out(&app, &[(Some(v), vec![o[0]])]);
    let scope = north_scope(&app);
    let at = now(&app);
    // One stop serving o[0] and o[1]; one serving the exchange pair.
    app.write(|tx| {
        let mut stops: Vec<_> = tx
            .list_stops(scope, laid.routes[0])?
            .into_iter()
            .map(|s| s.visit)
            .collect();
        stops[0].order_ids.push(o[1]);
        let mut pair_stop = stops[0].clone();
        pair_stop.order_ids = pair.clone();
        stops.push(pair_stop);
        tx.replace_stops(scope, laid.routes[0], &stops, at)
    })
    .unwrap();
    let out = remove(
        &app,
        laid.routes[0],
        json!({"orders": [{"id": o[0]}, {"id": pair[0]}]}),
    )
    .await;
    assert_eq!(names(&out), ["STOP_REBUILD_FAILED"]);
    assert_eq!(out["errors"][0]["details"]["id"], pair[0]);
    let route = app
        .get(&format!("/v2/routes/{}", laid.routes[0]), &app.north())
        .await;
    let stops = route.ok()["route"]["stops"].as_array().unwrap().clone();
    assert_eq!(stops.len(), 2);
    assert_eq!(stops[0]["orders"][0]["id"], o[1]);
    assert_eq!(
        stops[0]["address"], "M-1 High St",
        "rebuilt for the order left"
    );
    assert_eq!(stops[1]["orders"].as_array().unwrap().len(), 2);
    // Both halves together: the stop is deleted.
    let out = remove(
        &app,
        laid.routes[0],
        json!({"orders": [{"id": pair[0]}, {"id": pair[1]}]}),
    )
    .await;
    assert_eq!(out["errors"], json!([]));
    assert_eq!(route_orders(&app, laid.routes[0]).await, vec![vec![o[1]]]);
}

#[tokio::test]
async fn reoptimize_resolves_the_route_and_declines_what_does_not_fit_with_a_reason() {
    let app = TestApp::new();
    // A van with a 30-minute shift cannot serve orders far away.
    let v = app
        .post(
            "/v2/vehicles",
            &app.north(),
            json!({"name": "Short", "availability": "shift", "shift_start": "09:00",
                "shift_end": "10:00", "start_location": "depot", "end_location": "depot"}),
        )
        .await
        .ok()["vehicle"]["id"]
        .as_i64()
        .unwrap();
    let o = orders(&app, "Q", 4).await;
    let far = post_orders(&app, vec![delivery("FAR", 53.5, -2.2)]).await[0];
    let laid = lay_out(&app, &[(Some(v), vec![o[0], o[1]])]);
    let out = add(
        &app,
        laid.routes[0],
        json!({"orders": [{"id": o[2]}, {"id": far}, {"id": o[3]}], "settings": {"reoptimize": true}}),
    )
    .await;
    assert_eq!(names(&out), ["NOT_PLACED"]);
    let e = &out["errors"][0];
    assert_eq!(e["details"]["id"], far);
    assert!(
        e["reason"].is_string() && e["reason_description"].is_string(),
        "{e:#}"
    );
    assert_eq!(e["details"]["reason"], e["reason"]);
    let mut on: Vec<i64> = route_orders(&app, laid.routes[0]).await.concat();
    on.sort_unstable();
    let mut want = vec![o[0], o[1], o[2], o[3]];
    want.sort_unstable();
    assert_eq!(on, want, "every accepted order is on a real stop");
    assert_eq!(out["orders"][1]["stops"], json!([]));
    assert_eq!(out["orders"][0]["stops"].as_array().unwrap().len(), 1);
    // The same request on an identical route gives the same answer (fixed seed and budget).
    let p = orders(&app, "P", 4).await;
    let far2 = post_orders(&app, vec![delivery("FAR2", 53.5, -2.2)]).await[0];
    let twin = lay_out(&app, &[(Some(v), vec![p[0], p[1]])]);
    let out2 = add(
        &app,
        twin.routes[0],
        json!({"orders": [{"id": p[2]}, {"id": far2}, {"id": p[3]}], "settings": {"reoptimize": true}}),
    )
    .await;
    assert_eq!(names(&out2), ["NOT_PLACED"]);
    assert_eq!(out2["errors"][0]["reason"], e["reason"]);
    let places = |route: Value| -> Vec<(String, String)> {
        route["route"]["stops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| {
                (
                    s["lat"].to_string(),
                    s["estimated_arrival_time"].to_string(),
                )
            })
            .collect()
    };
    let a = app
        .get(&format!("/v2/routes/{}", laid.routes[0]), &app.north())
        .await;
    let b = app
        .get(&format!("/v2/routes/{}", twin.routes[0]), &app.north())
        .await;
    assert_eq!(places(a.ok().clone()), places(b.ok().clone()));
}

#[tokio::test]
async fn reoptimize_over_120_stops_is_reoptimize_limit_and_nothing_changes() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let mut o = Vec::new();
    for batch in 0..2 {
        o.extend(orders(&app, &format!("L{batch}"), 60).await);
    }
    let extra = orders(&app, "X", 1).await;
    let laid = lay_out(&app, &[(Some(v), o.clone())]);
    let out = add(
        &app,
        laid.routes[0],
        json!({"orders": [{"id": extra[0]}], "settings": {"reoptimize": true}}),
    )
    .await;
    assert_eq!(names(&out), ["REOPTIMIZE_LIMIT"]);
    assert_eq!(route_orders(&app, laid.routes[0]).await.len(), 120);
    // Without reoptimize there is no limit.
    let out = add(&app, laid.routes[0], json!({"orders": [{"id": extra[0]}]})).await;
    assert_eq!(out["errors"], json!([]));
    assert_eq!(route_orders(&app, laid.routes[0]).await.len(), 121);
}

#[tokio::test]
async fn add_and_remove_requests_are_validated() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let laid = lay_out(&app, &[(Some(v), vec![])]);
    let path = format!("/v2/routes/{}/add-orders", laid.routes[0]);
    let eleven: Vec<Value> = (0..11).map(|i| json!({"id": i + 1})).collect();
    let cases = [
        (json!({}), vec!["orders"]),
        (json!({"orders": []}), vec!["orders"]),
        (json!({"orders": eleven}), vec!["orders"]),
        (json!({"orders": [{}]}), vec!["orders.0"]),
        (json!({"orders": [{"id": "x"}]}), vec!["orders.0.id"]),
        (
            json!({"orders": [{"id": 1}], "settings": {"reoptimize": "yes"}}),
            vec!["settings.reoptimize"],
        ),
    ];
    for (body, paths) in cases {
        assert_eq!(
            app.post(&path, &app.north(), body).await.invalid_paths(),
            paths
        );
    }
    app.post(
        "/v2/routes/424242/add-orders",
        &app.north(),
        json!({"orders": [{"id": 1}]}),
    )
    .await
    .envelope(404, "RESOURCE_NOT_FOUND");
    app.post(
        &format!("/v2/routes/{}/remove-orders", laid.routes[0]),
        &app.south(),
        json!({"orders": [{"id": 1}]}),
    )
    .await
    .envelope(404, "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn adding_one_order_to_two_routes_at_once_puts_it_on_exactly_one() {
    for _ in 0..3 {
        let app = TestApp::new();
        let v1 = vehicle(&app, "Van 1").await;
        let v2 = vehicle(&app, "Van 2").await;
        let o = orders(&app, "Z", 3).await;
        let laid = lay_out(&app, &[(Some(v1), vec![o[0]]), (Some(v2), vec![o[1]])]);
        let body = json!({"orders": [{"id": o[2]}]});
        let key = app.north();
        let first = format!("/v2/routes/{}/add-orders", laid.routes[0]);
        let second = format!("/v2/routes/{}/add-orders", laid.routes[1]);
        let (a, b) = tokio::join!(
            app.post(&first, &key, body.clone()),
            app.post(&second, &key, body.clone())
        );
        let mut results = vec![names(a.ok()), names(b.ok())];
        results.sort();
        assert_eq!(results, vec![vec![], vec!["ALREADY_ROUTED".to_owned()]]);
        let mut holders = 0;
        for r in &laid.routes {
            if route_orders(&app, *r).await.concat().contains(&o[2]) {
                holders += 1;
            }
        }
        assert_eq!(holders, 1);
    }
}

#[tokio::test]
async fn reverse_flips_the_visiting_order_with_new_stop_ids_and_recomputed_times() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "V", 3).await;
    let laid = lay_out(&app, &[(Some(v), o.clone())]);
    let path = format!("/v2/routes/{}", laid.routes[0]);
    let before = app.get(&path, &app.north()).await.ok()["route"].clone();
    let r = app
        .post(&format!("{path}/reverse"), &app.north(), json!(null))
        .await;
    let after = r.ok()["route"].clone();
    assert_eq!(first_order_ids(&after), vec![o[2], o[1], o[0]]);
    let stop_ids = |route: &Value| -> Vec<i64> {
        route["stops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["id"].as_i64().unwrap())
            .collect()
    };
    assert!(stop_ids(&after)
        .iter()
        .all(|id| !stop_ids(&before).contains(id)));
    // Times and distances come from the travel matrix, not the laid-out placeholders.
    assert_ne!(after["planned_distance"], before["planned_distance"]);
    let arrivals: Vec<&str> = after["stops"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["estimated_arrival_time"].as_str().unwrap())
        .collect();
    assert!(arrivals.windows(2).all(|w| w[0] <= w[1]), "{arrivals:?}");
    assert_eq!(
        count(&app, &DomainEvent::RouteEdited { id: laid.routes[0] }),
        0
    );
    // A second reverse restores the order; on a dispatched route it fires routes.edited.
    app.post(&format!("{path}/dispatch"), &app.north(), json!(null))
        .await
        .ok();
    let back = app
        .post(&format!("{path}/reverse"), &app.north(), json!(null))
        .await;
    assert_eq!(first_order_ids(&back.ok()["route"]), o);
    assert_eq!(
        count(&app, &DomainEvent::RouteEdited { id: laid.routes[0] }),
        1
    );
}

#[tokio::test]
async fn reversing_fewer_than_two_stops_is_400_and_unknown_routes_404() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "W", 1).await;
    let laid = lay_out(&app, &[(Some(v), o.clone()), (Some(v), vec![])]);
    for route in &laid.routes {
        app.post(
            &format!("/v2/routes/{route}/reverse"),
            &app.north(),
            json!(null),
        )
        .await
        .envelope(400, "INVALID_INPUT");
    }
    app.post("/v2/routes/424242/reverse", &app.north(), json!(null))
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
}
