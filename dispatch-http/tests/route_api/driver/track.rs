//! Position reports: the track, `actual_distance`, ETAs and `orders.on_delivery`.

use dispatch_core::events::DomainEvent;

use super::*;

fn at(app: &TestApp, lat: f64, lng: f64, seconds_ago: i64) -> Value {
    let t = now(app).add_millis(-seconds_ago * 1000);
    json!({"lat": lat, "lng": lng, "time": t.to_string()})
}

/// Haversine metres, as the service documents it.
fn metres(a: (f64, f64), b: (f64, f64)) -> f64 {
    let r = dispatch_core::ports::matrix::EARTH_RADIUS_M;
    let (la1, la2) = (a.0.to_radians(), b.0.to_radians());
    let h = ((la2 - la1) / 2.0).sin().powi(2)
        + la1.cos() * la2.cos() * ((b.1 - a.1).to_radians() / 2.0).sin().powi(2);
    2.0 * r * h.sqrt().asin()
}

#[tokio::test]
async fn actual_distance_is_the_great_circle_length_of_the_track_in_time_order() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "T", 2).await;
    start(&app, &key, route).await;
    let path = format!("/driver/routes/{route}/positions");
    let r = app
        .post(
            &path,
            &key,
            json!({"positions": [at(&app, 51.50, -0.12, 300), at(&app, 51.51, -0.12, 200)]}),
        )
        .await;
    let first = metres((51.50, -0.12), (51.51, -0.12));
    assert_eq!(r.ok()["track"]["positions"], 2);
    assert_eq!(r.ok()["track"]["actual_distance"], first.round() as i64);
    // A late batch from earlier in the day slots in by time, not by arrival.
    let r = app
        .post(
            &path,
            &key,
            json!({"positions": [at(&app, 51.49, -0.12, 400)]}),
        )
        .await;
    let total = metres((51.49, -0.12), (51.50, -0.12)) + first;
    assert_eq!(r.ok()["track"]["actual_distance"], total.round() as i64);
    assert_eq!(
        depot_route(&app, route).await["actual_distance"],
        total.round() as i64
    );
}

/// A route's track is bounded: a report that would take it past the limit is refused at
/// `positions` and stores nothing, so no device can make every later report (and the writers
/// queued behind it) slower without end.
#[tokio::test]
async fn a_report_past_the_tracks_limit_is_refused_and_stores_nothing() {
    use dispatch_core::model::driver_visit::{LatLng, TrackPoint};
    use dispatch_core::service::driver::track::MAX_TRACK_POSITIONS;
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "CAP", 1).await;
    start(&app, &key, route).await;
    let t = now(&app).add_millis(-600_000);
    let filler: Vec<TrackPoint> = (0..MAX_TRACK_POSITIONS - 1)
        .map(|_| TrackPoint {
            at: LatLng {
                lat: 51.5,
                lng: -0.12,
            },
            time: t,
        })
        .collect();
    let scope = north_scope(&app);
    app.write(|tx| tx.insert_track_points(scope, route, &filler, t))
        .unwrap();
    let path = format!("/driver/routes/{route}/positions");
    let r = app
        .post(
            &path,
            &key,
            json!({"positions": [at(&app, 51.51, -0.12, 60)]}),
        )
        .await;
    assert_eq!(r.ok()["track"]["positions"], MAX_TRACK_POSITIONS);
    let r = app
        .post(
            &path,
            &key,
            json!({"positions": [at(&app, 51.52, -0.12, 30)]}),
        )
        .await;
    assert_eq!(r.invalid_paths(), ["positions"]);
    assert_eq!(r.body["details"]["validationErrors"][0]["code"], "too_big");
    let kept = app.read(|tx| tx.track(scope, route)).unwrap();
    assert_eq!(kept.len(), MAX_TRACK_POSITIONS);
}

#[tokio::test]
async fn etas_follow_the_latest_position_and_on_delivery_fires_once_per_stop_with_contact() {
    let app = TestApp::new();
    morning(&app);
    on_delivery_notifications(&app, Some(15));
    let mut list = vec![
        delivery("ETA-1", 51.505, -0.12),
        delivery("ETA-2", 51.60, -0.12),
        delivery("ETA-3", 51.506, -0.12),
    ];
    // ETA-3 has nobody to tell.
    list[2]
        .as_object_mut()
        .unwrap()
        .remove("delivery_contact_number");
    let o = post_orders(&app, list).await;
    let (_, key, route) = drive(&app, "Van ETA", &o).await;
    start(&app, &key, route).await;
    let stops = stop_ids(&app, &key, route).await;
    let path = format!("/driver/routes/{route}/positions");
    let r = app
        .post(
            &path,
            &key,
            json!({"positions": [at(&app, 51.50, -0.12, 0)]}),
        )
        .await;
    let etas = r.ok()["etas"].as_array().unwrap().clone();
    assert_eq!(etas.len(), 3);
    assert_eq!(etas[0]["stop_id"], stops[0]);
    let eta0 = dispatch_core::time::Timestamp::parse(etas[0]["eta"].as_str().unwrap()).unwrap();
    assert!(eta0 > now(&app));
    let on_delivery = |app: &TestApp| {
        events(app)
            .into_iter()
            .filter(|e| matches!(e, DomainEvent::OrderOnDelivery { .. }))
            .collect::<Vec<_>>()
    };
    // ETA-1 is 500 m away: within the 15-minute window. ETA-2 is 10 km further (and ETA-3
    // has no contact details), so only one event.
    let fired = on_delivery(&app);
    assert_eq!(fired.len(), 1, "{fired:?}");
    match &fired[0] {
        DomainEvent::OrderOnDelivery {
            order_id,
            order_number,
            route_id,
            eta,
            time_to_arrival,
        } => {
            assert_eq!(
                (*order_id, order_number.as_str(), *route_id),
                (o[0], "ETA-1", route)
            );
            assert_eq!(eta, &eta0.to_string()[11..16]);
            let minutes = (eta0.millis() - now(&app).millis() + 59_999) / 60_000;
            assert_eq!(*time_to_arrival, minutes);
        }
        other => panic!("{other:?}"),
    }
    // The depot's on-delivery notification was scheduled for that order.
    let tasks = app.get("/v2/notification-tasks", &app.north()).await;
    let tasks = tasks.ok()["notification_tasks"].as_array().unwrap().clone();
    assert_eq!(tasks.len(), 1, "{tasks:#?}");
    assert_eq!(tasks[0]["order"]["id"], o[0]);
    // The stop shows its ETA on the depot's reads.
    let depot = depot_route(&app, route).await;
    assert_eq!(depot["stops"][0]["eta"], etas[0]["eta"]);
    assert_eq!(
        depot["stops"][0]["estimated_arrival_time"],
        json!(&eta0.to_string()[11..16])
    );
    // Later reports keep the ETAs current but never fire twice for a stop.
    app.clock.advance_millis(60_000);
    app.post(
        &path,
        &key,
        json!({"positions": [at(&app, 51.501, -0.12, 0)]}),
    )
    .await
    .ok();
    assert_eq!(on_delivery(&app).len(), 1);
    // Closer to ETA-3 (no contact): still nothing for it.
    on_stop(&app, &key, stops[0], "complete", json!({}))
        .await
        .ok();
    app.clock.advance_millis(60_000);
    let r = app
        .post(
            &path,
            &key,
            json!({"positions": [at(&app, 51.599, -0.12, 0)]}),
        )
        .await;
    assert_eq!(r.ok()["etas"].as_array().unwrap().len(), 2);
    let fired = on_delivery(&app);
    assert_eq!(fired.len(), 2, "{fired:?}");
    assert!(
        matches!(&fired[1], DomainEvent::OrderOnDelivery { order_id, .. } if *order_id == o[1])
    );
}

#[tokio::test]
async fn without_on_delivery_notifications_nothing_fires() {
    let app = TestApp::new();
    morning(&app);
    let (_, key, route, _) = driven_route(&app, "Q", 1).await;
    start(&app, &key, route).await;
    let r = on_route(
        &app,
        &key,
        route,
        "positions",
        json!({"positions": [at(&app, 51.50, -0.12, 0)]}),
    )
    .await;
    assert_eq!(r.ok()["etas"].as_array().unwrap().len(), 1);
    assert!(!events(&app)
        .iter()
        .any(|e| matches!(e, DomainEvent::OrderOnDelivery { .. })));
}

/// Reports the position (51.50, -0.12) as of `seconds_ago`; the first stop's fresh estimate.
async fn report_at_depot(app: &TestApp, key: &str, route: i64, seconds_ago: i64) -> Value {
    let r = on_route(
        app,
        key,
        route,
        "positions",
        json!({"positions": [at(app, 51.50, -0.12, seconds_ago)]}),
    )
    .await;
    r.ok()["etas"][0]["eta"].clone()
}

#[tokio::test]
async fn stored_etas_change_only_when_a_report_moves_them_by_30_seconds() {
    let app = TestApp::new();
    morning(&app);
    let o = post_orders(&app, vec![delivery("W-1", 51.52, -0.12)]).await;
    let (_, key, route) = drive(&app, "Van W", &o).await;
    start(&app, &key, route).await;
    let first = report_at_depot(&app, &key, route, 100).await;
    assert_eq!(depot_route(&app, route).await["stops"][0]["eta"], first);
    // Standing still 10 s later: the estimate moves 10 s, the stored ETA stays.
    let second = report_at_depot(&app, &key, route, 90).await;
    assert_ne!(second, first);
    assert_eq!(depot_route(&app, route).await["stops"][0]["eta"], first);
    // 50 s after the first: moved 50 s, rewritten.
    let third = report_at_depot(&app, &key, route, 50).await;
    assert_eq!(depot_route(&app, route).await["stops"][0]["eta"], third);
}
