//! Jobs run by the workers: the finished plan with its routes, stops and unserved orders,
//! route reads, re-optimisation, dispatched routes of earlier solutions, cancellation.

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::StoreError;
use dispatch_core::service::plans::cancel_plan_jobs;
use dispatch_core::status::Status;
use serde_json::{json, Value};

use super::common::TestApp;
use super::{
    delivery, ended, first_order_ids, optimise, optimise_day, optimise_south, post_orders,
    post_vehicle, start_workers, wait_for, DAY,
};

fn scope(app: &TestApp) -> DepotScope {
    DepotScope {
        organisation_id: app.seed_output["organisations"][0]["id"].as_i64().unwrap(),
        depot_id: app.depot(0, 0)["id"].as_i64().unwrap(),
    }
}

fn hhmm(v: &Value) -> bool {
    let s = v.as_str().unwrap_or("");
    s.len() == 5 && s.as_bytes()[2] == b':'
}

/// Six orders around the depot and one needing a skill no vehicle has.
async fn day(app: &TestApp) -> (Vec<i64>, i64) {
    let mut orders: Vec<Value> = (0..6)
        .map(|i| {
            delivery(
                &format!("D{i}"),
                51.50 + 0.004 * f64::from(i),
                -0.12 + 0.003 * f64::from(i),
            )
        })
        .collect();
    let mut crane = delivery("CRANE", 51.505, -0.125);
    crane["skills"] = json!(["Crane"]);
    orders.push(crane);
    let ids = post_orders(app, orders).await;
    (ids[..6].to_vec(), ids[6])
}

#[tokio::test]
async fn a_finished_optimisation_shows_routes_stops_and_the_reason_of_each_unserved_order() {
    let app = TestApp::new();
    let workers = start_workers(&app, 300);
    let van = post_vehicle(&app, "Van 1").await;
    let (routed, crane) = day(&app).await;
    let (job, plan) = optimise_day(&app).await;
    let r = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    let p = r.ok()["plan"].clone();
    assert!(p["solution_id"].is_i64(), "{p:#}");
    assert_ne!(p["solution_id"], plan);
    assert_eq!(
        p["optimisation"],
        json!({"id": job, "in_progress": false, "state": "succeeded", "error": null,
               "travel_times": "great-circle", "warnings": []})
    );
    let routes = p["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 1, "{p:#}");
    let route = &routes[0];
    assert_eq!(
        route["vehicle"],
        json!({"vehicle_id": van.to_string(), "name": "Van 1", "driver": null})
    );
    assert_eq!(route["plan_id"], plan);
    assert_eq!(route["dispatched"], false);
    assert_eq!(route["date"], DAY);
    assert!(
        hhmm(&route["start_time"]) && hhmm(&route["end_time"]),
        "{route:#}"
    );
    let stops = route["stops"].as_array().unwrap();
    let mut served = first_order_ids(route);
    served.sort_unstable();
    assert_eq!(served, routed);
    let mut legs = 0;
    let mut previous = "00:00".to_owned();
    for s in stops {
        assert_eq!(s["route_id"], route["id"]);
        assert_eq!(s["route"]["id"], route["id"]);
        assert_eq!(s["arrival_date"], DAY);
        assert!(hhmm(&s["estimated_arrival_time"]) && hhmm(&s["estimated_departure_time"]));
        let arrival = s["estimated_arrival_time"].as_str().unwrap().to_owned();
        assert!(arrival >= previous, "stops in time order");
        previous = s["estimated_departure_time"].as_str().unwrap().to_owned();
        assert!(s["address"].as_str().unwrap().ends_with("High St"));
        assert_eq!(s["phone"], "0123");
        assert_eq!(s["delivery_notes"], "ring twice");
        assert_eq!(s["orders"][0]["type"], "delivery");
        legs += s["planned_distance"].as_i64().unwrap();
    }
    // The route's distance is its legs between stops plus the way back to the depot.
    assert!(route["planned_distance"].as_i64().unwrap() >= legs && legs > 0);
    assert!(route["travel_time"].as_i64().unwrap() > 0);
    assert!(
        route["total_time"].as_i64().unwrap() >= route["travel_time"].as_i64().unwrap() + 6 * 300
    );
    assert_eq!(p["total_time"], route["total_time"]);
    let unserved = p["unserved"].as_array().unwrap();
    assert_eq!(unserved.len(), 1);
    assert_eq!(unserved[0]["id"], crane);
    assert_eq!(unserved[0]["reason"], "SKILLS");
    assert!(unserved[0]["reason_description"].is_string());
    assert_eq!(unserved[0]["address"], "CRANE High St");

    // The same route through GET /routes/{id} and GET /routes; the summary in GET /plans.
    let id = route["id"].as_i64().unwrap();
    let r = app.get(&format!("/v2/routes/{id}"), &app.north()).await;
    assert_eq!(&r.ok()["route"], route);
    app.get(&format!("/v2/routes/{id}"), &app.south())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    let r = app.get("/v2/routes", &app.north()).await;
    let listed = &r.ok()["routes"][0];
    assert_eq!(listed["id"], id);
    assert_eq!(listed["stops"], 6);
    assert_eq!(listed["planned_distance"], route["planned_distance"]);
    let r = app.get("/v2/plans", &app.north()).await;
    let summary = &r.ok()["plans"][0];
    assert_eq!(summary["id"], plan);
    assert_eq!(summary["dispatched"], false);
    assert_eq!(summary["total_time"], p["total_time"]);
    let s = &summary["routes"][0];
    assert_eq!(s["stops"], 6);
    assert_eq!(s["total_time"], route["total_time"].to_string());
    assert_eq!(s["travel_time"], route["travel_time"].to_string());
    let operation = route["total_time"].as_i64().unwrap() - route["travel_time"].as_i64().unwrap();
    assert_eq!(s["operation_time"], operation.to_string());
    assert_eq!(s["distance"], route["planned_distance"]);

    // Orders stay OPEN until dispatch; an order read lists the stop serving it.
    let r = app
        .get(&format!("/v2/orders/{}", routed[0]), &app.north())
        .await;
    let order = &r.ok()["order"];
    assert_eq!(order["status"], "OPEN");
    let order_stops = order["stops"].as_array().unwrap();
    assert_eq!(order_stops.len(), 1);
    assert_eq!(order_stops[0]["route_id"], id);
    assert!(order_stops[0].get("orders").is_none());
    let on_route = stops
        .iter()
        .find(|s| s["orders"][0]["id"] == routed[0])
        .unwrap();
    assert_eq!(order_stops[0]["id"], on_route["id"]);
    assert_eq!(
        order_stops[0]["estimated_arrival_time"],
        on_route["estimated_arrival_time"]
    );
    // The order list shows the same stops; an unserved order has none.
    let r = app.get("/v2/orders?limit=100", &app.north()).await;
    let listed: Vec<Value> = r.ok()["orders"].as_array().unwrap().clone();
    let of = |id: i64| listed.iter().find(|o| o["id"] == id).unwrap()["stops"].clone();
    assert_eq!(of(routed[0]), Value::Array(order_stops.clone()));
    assert_eq!(of(crane), json!([]));
    workers.shutdown();
}

#[tokio::test]
async fn re_optimising_replaces_undispatched_routes_and_keeps_dispatched_ones() {
    let app = TestApp::new();
    let workers = start_workers(&app, 200);
    let van1 = post_vehicle(&app, "Van 1").await;
    let van2 = post_vehicle(&app, "Van 2").await;
    let (routed, _) = day(&app).await;
    let (job, plan) = optimise(
        &app,
        "/v2/plans/optimise/orders",
        json!({"delivery_date": DAY, "settings": {}, "vehicles": [{"id": van1}]}),
    )
    .await;
    wait_for(&app, &job).await;
    let first = app
        .get(&format!("/v2/plans/{plan}"), &app.north())
        .await
        .ok()["plan"]
        .clone();
    let old_route = first["routes"][0]["id"].as_i64().unwrap();
    assert_eq!(
        first["routes"][0]["vehicle"]["vehicle_id"],
        van1.to_string()
    );

    // Re-optimised with the second van only: a new solution, the old route leaves the plan
    // but stays readable.
    let (job, again) = optimise(
        &app,
        "/v2/plans/optimise/orders",
        json!({"delivery_date": DAY, "settings": {}, "plan": {"id": plan}, "vehicles": [{"id": van2}]}),
    )
    .await;
    assert_eq!(again, plan);
    wait_for(&app, &job).await;
    let second = app
        .get(&format!("/v2/plans/{plan}"), &app.north())
        .await
        .ok()["plan"]
        .clone();
    assert_ne!(second["solution_id"], first["solution_id"]);
    let routes = second["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 1);
    assert_eq!(routes[0]["vehicle"]["vehicle_id"], van2.to_string());
    let r = app
        .get(&format!("/v2/routes/{old_route}"), &app.north())
        .await;
    assert_eq!(r.ok()["route"]["plan_id"], plan);
    // An order's read shows its stop on the plan's current route only.
    let r = app
        .get(&format!("/v2/orders/{}", routed[0]), &app.north())
        .await;
    let order_stops = r.ok()["order"]["stops"].as_array().unwrap().clone();
    assert_eq!(order_stops.len(), 1);
    assert_eq!(order_stops[0]["route_id"], routes[0]["id"]);
    assert_eq!(
        app.get("/v2/routes", &app.north()).await.ok()["routes"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // A route dispatched from this solution stays on the plan through the next one, and its
    // orders are not planned again.
    let new_route = routes[0]["id"].as_i64().unwrap();
    let s = scope(&app);
    app.write(|tx| {
        let mut route = tx.get_route(s, new_route)?.unwrap();
        route.dispatched = true;
        tx.update_route(s, &route)?;
        Ok::<_, StoreError>(())
    })
    .unwrap();
    let extra = post_orders(&app, vec![delivery("LATE", 51.51, -0.11)]).await[0];
    let (job, _) = optimise(
        &app,
        "/v2/plans/optimise/orders",
        json!({"delivery_date": DAY, "settings": {}, "plan": {"id": plan}}),
    )
    .await;
    wait_for(&app, &job).await;
    let third = app
        .get(&format!("/v2/plans/{plan}"), &app.north())
        .await
        .ok()["plan"]
        .clone();
    let routes = third["routes"].as_array().unwrap();
    assert_eq!(routes.len(), 2, "{third:#}");
    assert_eq!(routes[0]["id"], new_route);
    assert_eq!(routes[0]["dispatched"], true);
    let replanned = first_order_ids(&routes[1]);
    assert_eq!(replanned, vec![extra]);
    assert!(routed.iter().all(|o| !replanned.contains(o)));
    workers.shutdown();
}

#[tokio::test]
async fn the_ids_variant_keeps_request_order_and_reports_completed_and_routed_orders() {
    let app = TestApp::new();
    let workers = start_workers(&app, 200);
    post_vehicle(&app, "Van 1").await;
    let (ids, _) = day(&app).await;
    let s = scope(&app);
    app.write(|tx| {
        let mut done = tx.get_order(s, ids[0])?.unwrap();
        done.status = Status::from_stored("DELIVERED");
        tx.update_order(s, &done)?;
        let mut routed = tx.get_order(s, ids[1])?.unwrap();
        routed.status = Status::routed();
        tx.update_order(s, &routed)
    })
    .unwrap();
    let order: Vec<i64> = vec![ids[5], ids[0], ids[3], ids[1], ids[4], ids[2]];
    let (job, plan) = optimise(
        &app,
        "/v2/plans/optimise/orders-for-ids",
        json!({"settings": {"maintain_upload_sequence": true},
               "orders": order.iter().map(|id| json!({"id": id})).collect::<Vec<_>>()}),
    )
    .await;
    wait_for(&app, &job).await;
    let p = app
        .get(&format!("/v2/plans/{plan}"), &app.north())
        .await
        .ok()["plan"]
        .clone();
    let visited = first_order_ids(&p["routes"][0]);
    assert_eq!(visited, vec![ids[5], ids[3], ids[4], ids[2]]);
    let reasons: Vec<(i64, String)> = p["unserved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            (
                u["id"].as_i64().unwrap(),
                u["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        reasons,
        vec![
            (ids[0], "ORDER_COMPLETED".to_owned()),
            (ids[1], "ALREADY_ROUTED".to_owned())
        ]
    );
    workers.shutdown();
}

#[tokio::test]
async fn a_cancelled_job_stops_and_leaves_the_plan_without_a_result() {
    let app = TestApp::new();
    let workers = start_workers(&app, 20_000);
    post_vehicle(&app, "Van 1").await;
    day(&app).await;
    let (job, plan) = optimise(
        &app,
        "/v2/plans/optimise/orders",
        json!({"delivery_date": DAY, "settings": {}}),
    )
    .await;
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let started = std::time::Instant::now();
    let s = scope(&app);
    let now = dispatch_core::ports::clock::Clock::now(&*app.clock);
    assert!(app
        .write(|tx| cancel_plan_jobs(tx, s, plan, "plan deleted", now))
        .unwrap());
    wait_for(&app, &job).await;
    workers.shutdown();
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let p = app
        .get(&format!("/v2/plans/{plan}"), &app.north())
        .await
        .ok()["plan"]
        .clone();
    assert_eq!(p["routes"], json!([]));
    assert_eq!(p["solution_id"], Value::Null);
    assert_eq!(
        app.get("/v2/routes", &app.north()).await.ok()["routes"],
        json!([])
    );
}

#[tokio::test]
async fn a_failed_optimisation_says_why_on_its_job_and_its_plan() {
    let app = TestApp::new();
    // South loses its position after the job is queued, so a vehicle starting at the depot
    // cannot be planned (a request made without one is refused at once).
    let depot = format!("/v2/depots/{}", app.depot(0, 1)["id"]);
    app.put(&depot, &app.south(), json!({"lat": 50.8, "lng": -1.1}))
        .await
        .ok();
    let r = app
        .post(
            "/v2/vehicles",
            &app.south(),
            json!({"name": "Van S", "availability": "always",
                   "start_location": "depot", "end_location": "depot"}),
        )
        .await;
    r.ok();
    let mut order = delivery("S1", 51.50, -0.12);
    order["delivery_date"] = json!(DAY);
    app.post("/v2/orders", &app.south(), json!([order]))
        .await
        .ok();
    let r = optimise_south(&app).await;
    let body = r.ok();
    assert_eq!(body["optimisation"]["state"], "queued", "{body:#}");
    assert!(body["optimisation"]["error"].is_null());
    let job = body["optimisation"]["id"].as_str().unwrap().to_owned();
    let plan = body["plan"]["id"].as_i64().unwrap();
    app.put(&depot, &app.south(), json!({"lat": null, "lng": null}))
        .await
        .ok();
    let workers = start_workers(&app, 300);
    let done = ended(&app, &app.south(), &job).await;
    assert_eq!(done["state"], "failed", "{done:#}");
    let error = done["error"].as_str().unwrap();
    assert!(error.contains("no coordinates"), "{error}");
    let p = app.get(&format!("/v2/plans/{plan}"), &app.south()).await;
    assert_eq!(p.ok()["plan"]["optimisation"], done);
    assert_eq!(p.body["plan"]["routes"], json!([]));
    workers.shutdown();
}
