//! Routes left behind by a re-optimisation, and plans and routes whose orders are deleted.

use dispatch_core::events::DomainEvent;
use dispatch_core::model::plan::UnservedOrder;
use serde_json::json;

use super::*;

#[tokio::test]
async fn a_superseded_route_refuses_add_remove_and_reverse_with_400_naming_why() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "S", 4).await;
    let first = lay_out(&app, &[(Some(v), vec![o[0], o[1]])]);
    reoptimised(&app, first.plan, &[(Some(v), vec![o[1], o[0]])]);
    let old = first.routes[0];
    let before = stops_of(&app, old).await;
    let calls = [
        ("add-orders", json!({"orders": [{"id": o[2]}]})),
        ("remove-orders", json!({"orders": [{"id": o[0]}]})),
        ("reverse", json!(null)),
    ];
    for (action, body) in calls {
        let r = app
            .post(&format!("/v2/routes/{old}/{action}"), &app.north(), body)
            .await;
        assert_eq!(r.invalid_paths(), vec!["id"], "{action}");
        let issue = &r.body["details"]["validationErrors"][0];
        assert_eq!(
            issue["received"],
            format!("route {old} of an earlier optimisation"),
            "{action}"
        );
        assert!(
            r.body["description"]
                .as_str()
                .unwrap()
                .contains("re-optimisation"),
            "{action}: {:#}",
            r.body
        );
    }
    assert_eq!(stops_of(&app, old).await, before);
    assert_eq!(status_of(&app, o[0]).await, "OPEN");
}

#[tokio::test]
async fn a_route_dispatched_from_an_earlier_solution_still_takes_edits() {
    let app = TestApp::new();
    let v1 = vehicle(&app, "Van 1").await;
    let v2 = vehicle(&app, "Van 2").await;
    let o = orders(&app, "E", 3).await;
    let first = lay_out(&app, &[(Some(v1), vec![o[0]])]);
    dispatch_route(&app, first.routes[0]).await.ok();
    reoptimised(&app, first.plan, &[(Some(v2), vec![o[1]])]);
    let r = app
        .post(
            &format!("/v2/routes/{}/add-orders", first.routes[0]),
            &app.north(),
            json!({"orders": [{"id": o[2]}], "settings": {"allow_dispatched": true}}),
        )
        .await;
    assert_eq!(r.ok()["errors"], json!([]));
    assert_eq!(
        route_orders(&app, first.routes[0]).await,
        vec![vec![o[0]], vec![o[2]]]
    );
}

#[tokio::test]
async fn deleting_an_order_takes_its_stop_off_undispatched_routes_and_leaves_no_empty_stop() {
    let app = TestApp::new();
    let v1 = vehicle(&app, "Van 1").await;
    let v2 = vehicle(&app, "Van 2").await;
    let o = orders(&app, "G", 4).await;
    let first = lay_out(&app, &[(Some(v1), vec![o[0], o[1]])]);
    let second = reoptimised(&app, first.plan, &[(Some(v1), vec![o[1], o[0]])]);
    let other = lay_out(&app, &[(Some(v2), vec![o[2], o[3]])]);
    dispatch_plan(&app, other.plan).await.ok();
    for number in ["G-0", "G-2"] {
        let r = app
            .delete(&format!("/v2/orders/order-number/{number}"), &app.north())
            .await;
        assert_eq!(r.ok()["deleted"]["orders_count"], 1);
    }
    assert_eq!(route_orders(&app, first.routes[0]).await, vec![vec![o[1]]]);
    assert_eq!(route_orders(&app, second.routes[0]).await, vec![vec![o[1]]]);
    // The dispatched route keeps the visit for its driver (docs/driver-api.md), unchanged.
    assert_eq!(
        route_orders(&app, other.routes[0]).await,
        vec![vec![], vec![o[3]]]
    );
    assert_eq!(
        count(
            &app,
            &DomainEvent::RouteEdited {
                id: other.routes[0]
            }
        ),
        0
    );
    // Restored under its id, the order is on no proposal and is planned again from scratch.
    let restored = json!([delivery("G-0", 51.5, -0.12)]);
    app.post("/v2/orders", &app.north(), restored).await.ok();
    assert_eq!(status_of(&app, o[0]).await, "OPEN");
    assert_eq!(route_orders(&app, second.routes[0]).await, vec![vec![o[1]]]);
}

#[tokio::test]
async fn a_deleted_order_leaves_the_unserved_list_of_its_plan() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "U", 3).await;
    let laid = lay_out(&app, &[(Some(v), vec![o[0]])]);
    let scope = north_scope(&app);
    let at = now(&app);
    let unserved: Vec<UnservedOrder> = [o[1], o[2]]
        .iter()
        .map(|id| UnservedOrder {
            order_id: *id,
            reason: "SKILLS".into(),
            description: "no vehicle has the skill".into(),
        })
        .collect();
    app.write(|tx| {
        let solution = tx.insert_solution(scope, laid.plan, "unserved", &unserved, at)?;
        let mut plan = tx.get_plan(scope, laid.plan)?.unwrap();
        plan.active_solution_id = Some(solution.id);
        tx.update_plan(scope, &plan)
    })
    .unwrap();
    let path = format!("/v2/plans/{}", laid.plan);
    let before = app.get(&path, &app.north()).await;
    assert_eq!(before.ok()["plan"]["unserved"].as_array().unwrap().len(), 2);
    app.delete("/v2/orders/order-number/U-1", &app.north())
        .await
        .ok();
    let after = app.get(&path, &app.north()).await;
    let ids: Vec<i64> = after.ok()["plan"]["unserved"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, vec![o[2]]);
}

#[tokio::test]
async fn a_superseded_route_refuses_put_and_keeps_its_flag() {
    let app = TestApp::new();
    let v = vehicle(&app, "Van").await;
    let o = orders(&app, "L", 2).await;
    let first = lay_out(&app, &[(Some(v), o.clone())]);
    let current = reoptimised(&app, first.plan, &[(Some(v), vec![o[1], o[0]])]);
    let old = first.routes[0];
    let r = app
        .put(
            &format!("/v2/routes/{old}"),
            &app.north(),
            json!({"is_locked": true}),
        )
        .await;
    assert_eq!(r.invalid_paths(), vec!["id"]);
    assert_eq!(
        r.body["details"]["validationErrors"][0]["received"],
        format!("route {old} of an earlier optimisation")
    );
    let read = app.get(&format!("/v2/routes/{old}"), &app.north()).await;
    assert_eq!(read.ok()["route"]["is_locked"], false);
    let path = format!("/v2/routes/{}", current.routes[0]);
    let r = app
        .put(&path, &app.north(), json!({"is_locked": true}))
        .await;
    assert_eq!(
        r.ok()["route"]["is_locked"],
        true,
        "the current route takes it"
    );
}
