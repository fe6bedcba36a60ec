//! POST /plans/{id}/dispatch, POST /routes/{id}/dispatch, DELETE /plans/{id}, PUT /routes/{id}.

use std::sync::Arc;
use std::time::Duration;

use dispatch_core::events::DomainEvent;
use dispatch_http::routing::Routing;
use serde_json::json;

use super::*;

#[tokio::test]
async fn plan_dispatch_routes_every_order_and_fires_plans_dispatched_once() {
    let app = TestApp::new();
    let v1 = vehicle(&app, "Van 1").await;
    let v2 = vehicle(&app, "Van 2").await;
    let o = orders(&app, "D", 3).await;
    let laid = lay_out(
        &app,
        &[(Some(v1), vec![o[0], o[1]]), (Some(v2), vec![o[2]])],
    );
    let r = dispatch_plan(&app, laid.plan).await;
    assert_eq!(
        r.ok(),
        &json!({"plan": {"id": laid.plan, "dispatched": true,
            "routes": [{"id": laid.routes[0]}, {"id": laid.routes[1]}]},
            "dropped_orders": []})
    );
    for id in &o {
        assert_eq!(status_of(&app, *id).await, "ROUTED");
        assert_eq!(status_events(&app, *id), vec!["ROUTED"]);
    }
    assert_eq!(plan_dispatched(&app, laid.plan), 1);
    let plan = app
        .get(&format!("/v2/plans/{}", laid.plan), &app.north())
        .await;
    let routes = plan.ok()["plan"]["routes"].as_array().unwrap().clone();
    assert!(routes.iter().all(|r| r["dispatched"] == true));
    let list = app.get("/v2/plans", &app.north()).await;
    assert_eq!(list.ok()["plans"][0]["dispatched"], true);
}

#[tokio::test]
async fn a_repeat_dispatch_is_409_already_dispatched_and_changes_nothing() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "R", 1).await;
    let laid = lay_out(&app, &[(Some(v), o.clone())]);
    let path = format!("/v2/plans/{}/dispatch", laid.plan);
    app.post(&path, &app.north(), json!(null)).await.ok();
    app.post(&path, &app.north(), json!(null))
        .await
        .envelope(409, "ALREADY_DISPATCHED");
    dispatch_route(&app, laid.routes[0])
        .await
        .envelope(409, "ALREADY_DISPATCHED");
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED"]);
    assert_eq!(plan_dispatched(&app, laid.plan), 1);
}

#[tokio::test]
async fn the_active_solution_id_dispatches_and_an_earlier_solution_id_is_400() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "S", 2).await;
    let first = lay_out(&app, &[(Some(v), vec![o[0]])]);
    let second = reoptimised(&app, first.plan, &[(Some(v), vec![o[0], o[1]])]);
    dispatch_plan(&app, first.solution)
        .await
        .envelope(400, "INVALID_INPUT");
    let r = dispatch_plan(&app, second.solution).await;
    assert_eq!(r.ok()["plan"]["id"], first.plan);
    assert_eq!(r.ok()["plan"]["routes"], json!([{"id": second.routes[0]}]));
    // The superseded route was not dispatched and cannot be.
    let old = app
        .get(&format!("/v2/routes/{}", first.routes[0]), &app.north())
        .await;
    assert_eq!(old.ok()["route"]["dispatched"], false);
}

#[tokio::test]
async fn routes_dispatched_one_by_one_dispatch_the_plan_with_the_last() {
    let app = TestApp::new();
    let v1 = vehicle(&app, "Van 1").await;
    let v2 = vehicle(&app, "Van 2").await;
    let v3 = vehicle(&app, "Van 3").await;
    let o = orders(&app, "L", 3).await;
    let laid = lay_out(
        &app,
        &[
            (Some(v1), vec![o[0]]),
            (Some(v2), vec![o[1]]),
            (Some(v3), vec![o[2]]),
        ],
    );
    let r = dispatch_route(&app, laid.routes[0]).await;
    assert_eq!(
        r.ok(),
        &json!({"route": {"id": laid.routes[0], "dispatched": true}, "dropped_orders": []})
    );
    assert_eq!(status_of(&app, o[0]).await, "ROUTED");
    assert_eq!(status_of(&app, o[1]).await, "OPEN");
    assert_eq!(plan_dispatched(&app, laid.plan), 0);
    // The plan call skips the dispatched route and lists only what it dispatched.
    dispatch_route(&app, laid.routes[1]).await.ok();
    let plan = app
        .get(&format!("/v2/plans/{}", laid.plan), &app.north())
        .await;
    assert_eq!(plan.ok()["plan"]["routes"][0]["dispatched"], true);
    dispatch_route(&app, laid.routes[2]).await.ok();
    assert_eq!(plan_dispatched(&app, laid.plan), 1);
    dispatch_plan(&app, laid.plan)
        .await
        .envelope(409, "ALREADY_DISPATCHED");
}

#[tokio::test]
async fn plan_dispatch_skips_routes_already_dispatched() {
    let app = TestApp::new();
    let v1 = vehicle(&app, "Van 1").await;
    let v2 = vehicle(&app, "Van 2").await;
    let o = orders(&app, "K", 2).await;
    let laid = lay_out(&app, &[(Some(v1), vec![o[0]]), (Some(v2), vec![o[1]])]);
    dispatch_route(&app, laid.routes[0]).await.ok();
    let r = dispatch_plan(&app, laid.plan).await;
    assert_eq!(r.ok()["plan"]["routes"], json!([{"id": laid.routes[1]}]));
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED"]);
    assert_eq!(plan_dispatched(&app, laid.plan), 1);
}

#[tokio::test]
async fn a_plan_still_optimising_or_a_route_without_vehicle_is_400_and_nothing_changes() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "B", 2).await;
    let laid = lay_out(&app, &[(Some(v), vec![o[0]]), (None, vec![o[1]])]);
    let r = dispatch_plan(&app, laid.plan).await;
    r.envelope(400, "INVALID_INPUT");
    assert!(r.body["description"].as_str().unwrap().contains("vehicle"));
    dispatch_route(&app, laid.routes[1])
        .await
        .envelope(400, "INVALID_INPUT");
    assert_eq!(status_of(&app, o[0]).await, "OPEN");
    let busy = lay_out(&app, &[(Some(v), vec![])]);
    queue_job(&app, busy.plan);
    let r = dispatch_plan(&app, busy.plan).await;
    r.envelope(400, "INVALID_INPUT");
    assert!(r.body["description"]
        .as_str()
        .unwrap()
        .contains("optimising"));
    dispatch_route(&app, busy.routes[0])
        .await
        .envelope(400, "INVALID_INPUT");
}

/// The `received` of a dispatch refusal's validation issue.
fn received(r: &Resp) -> String {
    r.envelope(400, "INVALID_INPUT");
    r.body["details"]["validationErrors"][0]["received"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn dispatch_refusals_carry_the_refused_id_and_its_state_as_received() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "Q", 3).await;
    let laid = lay_out(&app, &[(Some(v), vec![o[0]]), (None, vec![o[1]])]);
    let missing = laid.routes[1];
    let r = dispatch_plan(&app, laid.plan).await;
    assert_eq!(received(&r), format!("route {missing} without a vehicle"));
    let r = dispatch_route(&app, missing).await;
    assert_eq!(received(&r), format!("route {missing} without a vehicle"));
    let later = reoptimised(&app, laid.plan, &[(Some(v), vec![o[0], o[2]])]);
    let r = dispatch_plan(&app, laid.solution).await;
    assert_eq!(
        received(&r),
        format!(
            "solution {} (the active one is {})",
            laid.solution, later.solution
        )
    );
    let r = dispatch_route(&app, laid.routes[0]).await;
    assert_eq!(
        received(&r),
        format!("route {} of an earlier optimisation", laid.routes[0])
    );
    queue_job(&app, laid.plan);
    let r = dispatch_plan(&app, laid.plan).await;
    assert_eq!(received(&r), format!("plan {} still optimising", laid.plan));
    let fresh = app.write(|tx| {
        tx.insert_plan(
            north_scope(&app),
            &NewPlan {
                date: Date::parse(DAY).unwrap(),
            },
            now(&app),
        )
    });
    let fresh = fresh.unwrap().id;
    let r = dispatch_plan(&app, fresh).await;
    assert_eq!(
        received(&r),
        format!("plan {fresh} without a finished optimisation")
    );
}

#[tokio::test]
async fn dispatch_of_unknown_or_foreign_ids_is_404_and_bad_ids_400() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let laid = lay_out(&app, &[(Some(v), vec![])]);
    for path in [
        format!("/v2/plans/{}/dispatch", laid.plan),
        format!("/v2/routes/{}/dispatch", laid.routes[0]),
    ] {
        app.post(&path, &app.south(), json!(null))
            .await
            .envelope(404, "RESOURCE_NOT_FOUND");
    }
    app.post("/v2/plans/999999/dispatch", &app.north(), json!(null))
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.post("/v2/routes/abc/dispatch", &app.north(), json!(null))
        .await
        .envelope(400, "INVALID_INPUT");
}

#[tokio::test]
async fn two_dispatches_of_one_plan_at_once_give_one_200_and_one_409() {
    for _ in 0..3 {
        let app = TestApp::new();
        let v = vehicle(&app, "Van").await;
        let o = orders(&app, "C", 4).await;
        let laid = lay_out(&app, &[(Some(v), o.clone())]);
        let path = format!("/v2/plans/{}/dispatch", laid.plan);
        let route_path = format!("/v2/routes/{}/dispatch", laid.routes[0]);
        let key = app.north();
        let (a, b) = tokio::join!(
            app.post(&path, &key, json!(null)),
            app.post(&route_path, &key, json!(null))
        );
        let mut codes = [a.status.as_u16(), b.status.as_u16()];
        codes.sort_unstable();
        assert_eq!(codes, [200, 409], "{:#} {:#}", a.body, b.body);
        for id in &o {
            assert_eq!(status_events(&app, *id), vec!["ROUTED"]);
        }
        assert_eq!(plan_dispatched(&app, laid.plan), 1);
    }
}

#[tokio::test]
async fn a_dispatch_past_its_deadline_is_503_and_a_retry_tells_the_truth() {
    let mut app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "T", 2).await;
    let laid = lay_out(&app, &[(Some(v), o.clone())]);
    let mut routing = Routing::default();
    routing.dispatch_deadline = Duration::from_millis(150);
    let mut state = app.state.clone();
    state.routing = Arc::new(routing);
    app.router = dispatch_http::app(state);
    // Another writer holds the database for a while: the dispatch waits behind it. The request
    // is sent only once the writer is inside its transaction (a fixed pause was not always
    // enough on a loaded machine).
    let db = app.store.clone();
    let scope = north_scope(&app);
    let plan = laid.plan;
    let (held, holding) = std::sync::mpsc::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let blocker = std::thread::spawn(move || {
        let db: &dyn Store = &*db;
        db.transaction(|tx| {
            // A statement, so that the transaction's locks are taken: PostgreSQL's store sends
            // its BEGIN (and advisory locks) together with the first statement.
            tx.get_plan(scope, plan)?;
            let _ = held.send(());
            // Held until the dispatch has been answered (a loaded machine may take longer
            // than any fixed pause to get the request as far as the database).
            let _ = released.recv_timeout(Duration::from_secs(30));
            Ok::<_, dispatch_core::ports::store::StoreError>(())
        })
        .unwrap();
    });
    holding.recv().unwrap();
    let path = format!("/v2/plans/{}/dispatch", laid.plan);
    let r = app.post(&path, &app.north(), json!(null)).await;
    let _ = release.send(());
    r.envelope(503, "SERVICE_UNAVAILABLE");
    assert!(r.headers.get("retry-after").is_some());
    blocker.join().unwrap();
    // The first attempt goes through once the database is free; then the retry says so.
    let plan_path = format!("/v2/plans/{}", laid.plan);
    for _ in 0..100 {
        let plan = app.get(&plan_path, &app.north()).await;
        if plan.ok()["plan"]["routes"][0]["dispatched"] == true {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let retry = app.post(&path, &app.north(), json!(null)).await;
    retry.envelope(409, "ALREADY_DISPATCHED");
    assert_eq!(status_of(&app, o[0]).await, "ROUTED");
}

#[tokio::test]
async fn deleting_a_plan_reopens_dispatched_orders_and_fires_its_events() {
    let app = TestApp::new();
    let v1 = vehicle(&app, "Van 1").await;
    let v2 = vehicle(&app, "Van 2").await;
    let o = orders(&app, "X", 5).await;
    let first = lay_out(&app, &[(Some(v1), vec![o[0], o[1]])]);
    dispatch_route(&app, first.routes[0]).await.ok();
    // A re-optimisation leaves the dispatched route on the plan beside the new ones.
    let second = reoptimised(&app, first.plan, &[(Some(v2), vec![o[2], o[3]])]);
    set_status(&app, o[1], "DELIVERED");
    // o[4] is ROUTED by another plan's dispatched route and also on an undispatched one here.
    let other = lay_out(&app, &[(Some(v2), vec![o[4]])]);
    dispatch_plan(&app, other.plan).await.ok();
    let r = app
        .delete(&format!("/v2/plans/{}", first.plan), &app.north())
        .await;
    assert_eq!(r.ok(), &json!({"deleted": {"plans_count": 1}}));
    assert_eq!(status_of(&app, o[0]).await, "OPEN");
    assert_eq!(status_events(&app, o[0]), vec!["ROUTED", "OPEN"]);
    assert_eq!(status_of(&app, o[1]).await, "DELIVERED");
    assert_eq!(status_events(&app, o[2]), Vec::<String>::new());
    assert_eq!(status_of(&app, o[4]).await, "ROUTED");
    assert_eq!(
        count(
            &app,
            &DomainEvent::RouteDeleted {
                id: first.routes[0]
            }
        ),
        1
    );
    assert_eq!(
        count(
            &app,
            &DomainEvent::RouteDeleted {
                id: second.routes[0]
            }
        ),
        0
    );
    assert_eq!(count(&app, &DomainEvent::PlanDeleted { id: first.plan }), 1);
    for path in [
        format!("/v2/plans/{}", first.plan),
        format!("/v2/routes/{}", first.routes[0]),
        format!("/v2/routes/{}", second.routes[0]),
    ] {
        app.get(&path, &app.north())
            .await
            .envelope(404, "RESOURCE_NOT_FOUND");
    }
    let routes = app.get("/v2/routes", &app.north()).await;
    assert_eq!(routes.ok()["routes"].as_array().unwrap().len(), 1);
    dispatch_plan(&app, first.plan)
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.delete(&format!("/v2/plans/{}", first.plan), &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn deleting_an_undispatched_plan_keeps_statuses_and_cancels_its_job() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "U", 1).await;
    let laid = lay_out(&app, &[(Some(v), o.clone())]);
    let job = queue_job(&app, laid.plan);
    app.delete(&format!("/v2/plans/{}", laid.plan), &app.north())
        .await
        .ok();
    assert_eq!(status_events(&app, o[0]), Vec::<String>::new());
    assert_eq!(
        count(&app, &DomainEvent::RouteDeleted { id: laid.routes[0] }),
        0
    );
    assert_eq!(count(&app, &DomainEvent::PlanDeleted { id: laid.plan }), 1);
    app.get(&format!("/v2/plans/optimise/{job}"), &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    let scope = north_scope(&app);
    let gone = app.read(|tx| tx.get_optimisation(scope, &job)).unwrap();
    assert!(gone.is_none(), "the job is cancelled with its plan");
    app.delete(&format!("/v2/plans/{}", laid.plan), &app.south())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn put_route_sets_is_locked_only_and_answers_without_stops() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "P", 2).await;
    let laid = lay_out(&app, &[(Some(v), o.clone())]);
    let path = format!("/v2/routes/{}", laid.routes[0]);
    let r = app
        .put(&path, &app.north(), json!({"is_locked": true}))
        .await;
    let route = &r.ok()["route"];
    assert_eq!(route["is_locked"], true);
    assert_eq!(route["id"], laid.routes[0]);
    assert!(route.get("stops").is_none(), "{route:#}");
    assert!(route["vehicle"].is_object());
    let read = app.get(&path, &app.north()).await;
    assert_eq!(read.ok()["route"]["is_locked"], true);
    assert_eq!(read.ok()["route"]["stops"].as_array().unwrap().len(), 2);
    // Not enforced: a locked route still dispatches.
    app.post(&format!("{path}/dispatch"), &app.north(), json!(null))
        .await
        .ok();
    let r = app
        .put(&path, &app.north(), json!({"is_locked": false}))
        .await;
    assert_eq!(r.ok()["route"]["is_locked"], false);
    assert_eq!(
        app.put(&path, &app.north(), json!({"is_locked": "yes"}))
            .await
            .invalid_paths(),
        vec!["is_locked"]
    );
    assert_eq!(
        app.put(&path, &app.north(), json!({"is_locked": true, "name": "x"}))
            .await
            .invalid_paths(),
        vec!["name"]
    );
    app.put(&path, &app.north(), json!([]))
        .await
        .envelope(400, "INVALID_INPUT");
    app.put(&path, &app.south(), json!({"is_locked": true}))
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.put(
        "/v2/routes/424242",
        &app.north(),
        json!({"is_locked": true}),
    )
    .await
    .envelope(404, "RESOURCE_NOT_FOUND");
}

#[tokio::test]
async fn auto_dispatch_dispatches_the_plan_when_its_optimisation_ends() {
    use dispatch_core::service::dispatch::AutoDispatch;
    use dispatch_server::runtime::{Optimiser, OptimiserConfig};
    let app = TestApp::new();
    vehicle(&app, "Van").await;
    let o = orders(&app, "A", 4).await;
    let workers = Optimiser::start(
        app.state.store.clone(),
        app.state.clock.clone(),
        app.state.routing.matrix.clone(),
        Arc::new(AutoDispatch {
            links: Arc::new(dispatch_http::links::Links::of(&app.state)),
        }),
        app.state.jobs.clone(),
        OptimiserConfig {
            workers: 1,
            solver_threads: 1,
            min_budget: Duration::from_millis(200),
            max_budget: Duration::from_millis(200),
            lease: Duration::from_secs(10),
            poll: Duration::from_millis(50),
            nice: 0,
            idle: false,
        },
        "test-node".to_owned(),
    );
    let plan = super::auto_dispatch::optimise_with_auto_dispatch(&app).await;
    let mut dispatched = false;
    for _ in 0..200 {
        let p = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
        let routes = p.ok()["plan"]["routes"].as_array().unwrap().clone();
        if !routes.is_empty() && routes.iter().all(|r| r["dispatched"] == true) {
            dispatched = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::task::spawn_blocking(move || workers.shutdown())
        .await
        .unwrap();
    assert!(dispatched, "the plan was not dispatched");
    let list = app.get("/v2/plans", &app.north()).await;
    assert_eq!(list.ok()["plans"][0]["dispatched"], true);
    for id in &o {
        assert_eq!(status_of(&app, *id).await, "ROUTED");
    }
    assert_eq!(plan_dispatched(&app, plan), 1);
    dispatch_plan(&app, plan)
        .await
        .envelope(409, "ALREADY_DISPATCHED");
}
