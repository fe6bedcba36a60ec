//! The optimisation requests and the reads of a plan that is still optimising.

use dispatch_core::events::DomainEvent;
use dispatch_core::model::organisation::DepotScope;
use serde_json::json;

use super::common::TestApp;
use super::{delivery, post_orders, post_vehicle, DAY};

/// The `rel="next"` URL of a list response.
pub fn next_link(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get_all("link")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| v.contains("rel=\"next\""))
        .map(str::to_owned)
}

fn north_scope(app: &TestApp) -> DepotScope {
    DepotScope {
        organisation_id: app.seed_output["organisations"][0]["id"].as_i64().unwrap(),
        depot_id: app.depot(0, 0)["id"].as_i64().unwrap(),
    }
}

#[tokio::test]
async fn optimise_by_date_answers_at_once_with_the_job_and_the_new_plan() {
    let app = TestApp::new();
    post_orders(&app, vec![delivery("A", 51.51, -0.12)]).await;
    let r = app
        .post(
            "/v2/plans/optimise/orders",
            &app.north(),
            json!({"delivery_date": DAY, "settings": {"active_vehicles": true, "auto_dispatch": false}}),
        )
        .await;
    let body = r.ok();
    let job = body["optimisation"]["id"].as_str().unwrap();
    assert!(uuid::Uuid::parse_str(job).is_ok(), "{job}");
    assert_eq!(body["optimisation"]["in_progress"], true);
    assert_eq!(body["plan"]["dispatched"], false);
    let plan = body["plan"]["id"].as_i64().unwrap();
    assert_eq!(body.as_object().unwrap().len(), 2);

    // The job reads back; another depot's key does not see it; a non-UUID names nothing.
    let r = app
        .get(&format!("/v2/plans/optimise/{job}"), &app.north())
        .await;
    assert_eq!(r.ok(), body);
    app.get(&format!("/v2/plans/optimise/{job}"), &app.south())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.get(&format!("/v2/plans/optimise/{job}"), &app.far())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.get("/v2/plans/optimise/not-a-uuid", &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.get(
        "/v2/plans/optimise/6f1c1f3e-0d7e-4a36-9d55-4a3c9d0a1b2c",
        &app.north(),
    )
    .await
    .envelope(404, "RESOURCE_NOT_FOUND");

    // While it optimises the full plan has empty routes and unserved.
    let r = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    let full = &r.ok()["plan"];
    assert_eq!(full["id"], plan);
    assert_eq!(full["routes"], json!([]));
    assert_eq!(full["unserved"], json!([]));
    assert_eq!(full["total_time"], 0);
    assert_eq!(full["solution_id"], serde_json::Value::Null);
    assert_eq!(full["date"], DAY);
    for key in ["created", "updated"] {
        assert!(full[key].as_str().unwrap().ends_with('Z'), "{key}");
    }
    assert_eq!(full["driver_questionnaire_submissions"], json!([]));
    app.get(&format!("/v2/plans/{plan}"), &app.south())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.get("/v2/plans/abc", &app.north())
        .await
        .envelope(400, "INVALID_INPUT");

    // A plan without a result lists only id, total_time 0 and empty routes.
    let r = app.get("/v2/plans", &app.north()).await;
    assert_eq!(
        r.ok()["plans"],
        json!([{"id": plan, "total_time": 0, "routes": []}])
    );
    assert_eq!(
        app.get("/v2/plans", &app.south()).await.ok()["plans"],
        json!([])
    );

    // plans.created was written with the plan.
    let events = app.read(|tx| tx.list_events(north_scope(&app))).unwrap();
    assert!(
        events.contains(&DomainEvent::PlanCreated { id: plan }),
        "{events:?}"
    );
}

#[tokio::test]
async fn optimise_requests_are_validated_field_by_field() {
    let app = TestApp::new();
    let key = app.north();
    let paths = |body| {
        let app = &app;
        let key = key.clone();
        async move {
            app.post("/v2/plans/optimise/orders", &key, body)
                .await
                .invalid_paths()
        }
    };
    assert_eq!(paths(json!({})).await, ["delivery_date", "settings"]);
    assert_eq!(
        paths(json!({"delivery_date": "2026-02-30", "settings": {}})).await,
        ["delivery_date"]
    );
    assert_eq!(
        paths(json!({"delivery_date": 20261124, "settings": []})).await,
        ["delivery_date", "settings"]
    );
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {"auto_dispatch": "yes"}})).await,
        ["settings.auto_dispatch"]
    );
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {}, "zone_group_id": 999_999})).await,
        ["zone_group_id"]
    );
    let south_group = app.depot(0, 1)["zone_groups"][0]["id"].as_i64().unwrap();
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {}, "zone_group_id": south_group})).await,
        ["zone_group_id"]
    );
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {}, "vehicles": []})).await,
        ["vehicles"]
    );
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {}, "vehicles": [{"id": 424_242}]})).await,
        ["vehicles.0.id"]
    );
    let van = post_vehicle(&app, "Van").await;
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {}, "vehicles": [{"id": van}, {}]})).await,
        ["vehicles.1.id"]
    );
    assert_eq!(
        paths(
            json!({"delivery_date": DAY, "settings": {}, "vehicles": [{"id": van}, {"id": van}]})
        )
        .await,
        ["vehicles.1.id"]
    );
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {}, "plan": {"id": 77}})).await,
        ["plan.id"]
    );
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {}, "plan": {}})).await,
        ["plan.id"]
    );
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {}, "colour": "red"})).await,
        ["colour"]
    );
    // The ids variant has no delivery_date and needs orders.
    let ids = |body| {
        let app = &app;
        let key = key.clone();
        async move {
            app.post("/v2/plans/optimise/orders-for-ids", &key, body)
                .await
                .invalid_paths()
        }
    };
    assert_eq!(ids(json!({"settings": {}})).await, ["orders"]);
    assert_eq!(
        ids(json!({"settings": {}, "orders": [], "delivery_date": DAY})).await,
        ["delivery_date", "orders"]
    );
    let order = post_orders(&app, vec![delivery("A", 51.5, -0.1)]).await[0];
    assert_eq!(
        ids(json!({"settings": {}, "orders": [{"id": order}, {"id": 999_999}, {"id": order}]}))
            .await,
        ["orders.1.id", "orders.2.id"]
    );
    assert_eq!(
        ids(json!({"settings": {}, "orders": [{"id": "x"}]})).await,
        ["orders.0.id"]
    );
    // An entry that is not an object is refused at its place; the list is not empty.
    assert_eq!(
        ids(json!({"settings": {}, "orders": [order]})).await,
        ["orders.0"]
    );
    assert_eq!(
        paths(json!({"delivery_date": DAY, "settings": {}, "vehicles": [7]})).await,
        ["vehicles.0"]
    );
    // Nothing was created by the refused requests.
    assert_eq!(app.get("/v2/plans", &key).await.ok()["plans"], json!([]));
    // Another depot's orders are unknown ids.
    app.post(
        "/v2/plans/optimise/orders-for-ids",
        &app.south(),
        json!({"settings": {}, "orders": [{"id": order}]}),
    )
    .await
    .invalid_paths();
}

#[tokio::test]
async fn the_ids_variant_takes_the_earliest_delivery_date_of_its_orders() {
    let app = TestApp::new();
    let mut late = delivery("L", 51.5, -0.1);
    late["delivery_date"] = json!("2026-11-30");
    let mut early = delivery("E", 51.5, -0.1);
    early["delivery_date"] = json!("2026-11-25");
    let ids = post_orders(&app, vec![late, early, delivery("N", 51.5, -0.1)]).await;
    let r = app
        .post(
            "/v2/plans/optimise/orders-for-ids",
            &app.north(),
            json!({"settings": {"maintain_upload_sequence": true},
                   "orders": ids.iter().map(|id| json!({"id": id})).collect::<Vec<_>>()}),
        )
        .await;
    let plan = r.ok()["plan"]["id"].as_i64().unwrap();
    let r = app.get(&format!("/v2/plans/{plan}"), &app.north()).await;
    assert_eq!(r.ok()["plan"]["date"], DAY);
}

#[tokio::test]
async fn re_optimising_keeps_the_plan_and_refuses_another_date() {
    let app = TestApp::new();
    post_orders(&app, vec![delivery("A", 51.5, -0.1)]).await;
    let first = app
        .post(
            "/v2/plans/optimise/orders",
            &app.north(),
            json!({"delivery_date": DAY, "settings": {}}),
        )
        .await;
    let plan = first.ok()["plan"]["id"].as_i64().unwrap();
    let first_job = first.body["optimisation"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let again = app
        .post(
            "/v2/plans/optimise/orders",
            &app.north(),
            json!({"delivery_date": DAY, "settings": {}, "plan": {"id": plan}, "vehicles": null}),
        )
        .await;
    assert_eq!(again.ok()["plan"]["id"], plan);
    assert_ne!(again.body["optimisation"]["id"], first_job.as_str());
    // The superseded job stopped.
    let r = app
        .get(&format!("/v2/plans/optimise/{first_job}"), &app.north())
        .await;
    assert_eq!(r.ok()["optimisation"]["in_progress"], false);
    assert_eq!(
        app.post(
            "/v2/plans/optimise/orders",
            &app.north(),
            json!({"delivery_date": "2026-12-01", "settings": {}, "plan": {"id": plan}}),
        )
        .await
        .invalid_paths(),
        ["delivery_date"]
    );
    // Only one plans.created: re-optimisation creates no plan.
    let created = app
        .read(|tx| tx.list_events(north_scope(&app)))
        .unwrap()
        .into_iter()
        .filter(|e| matches!(e, DomainEvent::PlanCreated { .. }))
        .count();
    assert_eq!(created, 1);
}

#[tokio::test]
async fn plans_page_most_recently_updated_first_with_link_and_updated_at_min() {
    let app = TestApp::new();
    let mut plans = Vec::new();
    for _ in 0..3 {
        app.clock.advance_millis(60_000);
        let r = app
            .post(
                "/v2/plans/optimise/orders",
                &app.north(),
                json!({"delivery_date": DAY, "settings": {}}),
            )
            .await;
        plans.push(r.ok()["plan"]["id"].as_i64().unwrap());
    }
    let r = app.get("/v2/plans?limit=2", &app.north()).await;
    let ids: Vec<i64> = r.ok()["plans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [plans[2], plans[1]]);
    let link = next_link(&r.headers).expect("a next page");
    let next = link
        .split(['<', '>'])
        .nth(1)
        .unwrap()
        .split_once("/v2")
        .unwrap()
        .1
        .to_owned();
    let r = app.get(&format!("/v2{next}"), &app.north()).await;
    assert_eq!(r.ok()["plans"][0]["id"], plans[0]);
    assert_eq!(next_link(&r.headers), None);
    // 2026-11-22T08:02:00Z is the second plan's creation.
    let r = app
        .get(
            "/v2/plans?updated_at_min=2026-11-22%2008:02:00",
            &app.north(),
        )
        .await;
    assert_eq!(r.ok()["plans"].as_array().unwrap().len(), 2);
    app.get("/v2/plans?page_info=garbage", &app.north())
        .await
        .envelope(400, "INVALID_INPUT");
}

#[tokio::test]
async fn routes_list_and_read_are_scoped_and_empty_before_any_optimisation() {
    let app = TestApp::new();
    let r = app.get("/v2/routes", &app.north()).await;
    assert_eq!(r.ok()["routes"], json!([]));
    app.get("/v2/routes/1", &app.north())
        .await
        .envelope(404, "RESOURCE_NOT_FOUND");
    app.get("/v2/routes/x", &app.north())
        .await
        .envelope(400, "INVALID_INPUT");
}
