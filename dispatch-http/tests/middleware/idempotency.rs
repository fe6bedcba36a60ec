use serde_json::json;

use super::harness::{vehicle, Service, IK};

async fn vehicle_count(s: &Service) -> usize {
    let r = s.get("/v2/vehicles", &[]).await;
    assert_eq!(r.status, 200);
    r.json()["vehicles"].as_array().expect("vehicles").len()
}

#[tokio::test]
async fn a_repeated_post_vehicles_is_replayed_not_executed() {
    let s = Service::start(false);
    let first = s.send("/v2/vehicles", "k1", &vehicle("Van")).await;
    assert!(first.status.is_success(), "{:?}", first.json());
    first.assert_not_replayed();
    let again = s.send("/v2/vehicles/", "k1", &vehicle("Van")).await;
    assert_eq!(again.status, first.status);
    assert_eq!(again.raw, first.raw);
    again.assert_replayed();
    assert_eq!(again.header("content-type"), first.header("content-type"));
    assert_eq!(vehicle_count(&s).await, 1);
}

#[tokio::test]
async fn the_same_key_with_another_body_is_422() {
    let s = Service::start(false);
    s.send("/v2/vehicles", "k1", &vehicle("Van")).await;
    let r = s.send("/v2/vehicles", "k1", &vehicle("Truck")).await;
    r.assert_error(422, "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY");
    assert_eq!(vehicle_count(&s).await, 1);
}

#[tokio::test]
async fn empty_and_overlong_keys_are_400_and_nothing_executes() {
    let s = Service::start(false);
    let long = "k".repeat(256);
    for key in ["", long.as_str()] {
        s.send("/v2/vehicles", key, &vehicle("Van"))
            .await
            .assert_error(400, "IDEMPOTENCY_INVALID_KEY");
    }
    assert_eq!(vehicle_count(&s).await, 0);
    let longest = "k".repeat(255);
    let ok = s
        .send("/v2/vehicles", longest.as_str(), &vehicle("Van"))
        .await;
    assert!(ok.status.is_success());
}

#[tokio::test]
async fn a_4xx_is_replayed() {
    let s = Service::start(false);
    let bad = json!({"name": "Van"});
    let first = s.send("/v2/vehicles", "k", &bad).await;
    first.assert_error(400, "INVALID_INPUT");
    let again = s.send("/v2/vehicles", "k", &bad).await;
    assert_eq!(again.status, 400);
    assert_eq!(again.raw, first.raw);
    again.assert_replayed();
}

#[tokio::test]
async fn keys_are_scoped_per_access_key() {
    let s = Service::start(false);
    s.send("/v2/vehicles", "k", &vehicle("Van")).await;
    let other = ("x-access-key", s.keys[1].as_str());
    let r = s
        .post("/v2/vehicles", &[other, (IK, "k")], &vehicle("Van"))
        .await;
    r.assert_not_replayed();
    assert_eq!(vehicle_count(&s).await, 2);
}

#[tokio::test]
async fn posts_not_listed_ignore_the_key() {
    let s = Service::start(false);
    let body = json!({"location": {"lat": 51.5, "lng": -0.12}});
    for _ in 0..2 {
        let r = s
            .send("/v2/zone-groups/999/bounds/contains", "k", &body)
            .await;
        r.assert_error(404, "RESOURCE_NOT_FOUND");
        r.assert_not_replayed();
    }
}

#[tokio::test]
async fn recorded_keys_survive_a_restart_on_the_same_database_file() {
    let mut s = Service::start(false);
    let first = s.send("/v2/vehicles", "k", &vehicle("Van")).await;
    s.restart();
    let again = s.send("/v2/vehicles", "k", &vehicle("Van")).await;
    again.assert_replayed();
    assert_eq!(again.raw, first.raw);
    assert_eq!(vehicle_count(&s).await, 1);
}

#[tokio::test]
async fn keys_expire_24_hours_after_the_original_request() {
    let s = Service::start(false);
    s.send("/v2/vehicles", "k", &vehicle("Van")).await;
    s.clock.advance_millis(24 * 3600 * 1000 - 1);
    let within = s.send("/v2/vehicles", "k", &vehicle("Van")).await;
    within.assert_replayed();
    s.clock.advance_millis(1);
    let after = s.send("/v2/vehicles", "k", &vehicle("Van")).await;
    after.assert_not_replayed();
    assert_eq!(vehicle_count(&s).await, 2);
}

#[tokio::test]
async fn replays_do_not_consume_rate_quota_and_rate_limited_keys_are_released() {
    let s = Service::start(true);
    // POST /vehicles is standard tier: 5 per second.
    s.send("/v2/vehicles", "a", &vehicle("A")).await;
    for _ in 0..10 {
        let r = s.send("/v2/vehicles", "a", &vehicle("A")).await;
        r.assert_replayed();
    }
    for k in ["b", "c", "d", "e"] {
        let r = s.send("/v2/vehicles", k, &vehicle(k)).await;
        assert!(r.status.is_success(), "{k}: {:?}", r.json());
    }
    let limited = s.send("/v2/vehicles", "f", &vehicle("F")).await;
    let wait = limited.assert_error(403, "FORBIDDEN")["details"]["retry_after_seconds"]
        .as_i64()
        .unwrap();
    s.advance_secs(wait);
    let retry = s.send("/v2/vehicles", "f", &vehicle("F")).await;
    assert!(retry.status.is_success(), "{:?}", retry.json());
    retry.assert_not_replayed();
    assert_eq!(vehicle_count(&s).await, 6);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_posts_with_one_key_create_one_vehicle() {
    let s = std::sync::Arc::new(Service::start(false));
    let tasks: Vec<_> = (0..10)
        .map(|_| {
            let s = s.clone();
            tokio::spawn(async move { s.send("/v2/vehicles", "same", &vehicle("Van")).await })
        })
        .collect();
    let mut originals = 0;
    for task in tasks {
        let r = task.await.unwrap();
        match (r.status.as_u16(), r.header("idempotency-replay")) {
            (409, None) => {
                r.assert_error(409, "IDEMPOTENCY_REQUEST_IN_PROGRESS");
                assert_eq!(r.header("retry-after"), Some("1"));
            }
            (_, Some("true")) => {}
            (status, None) if status < 300 => originals += 1,
            other => panic!("unexpected {other:?}: {:?}", r.json()),
        }
    }
    assert_eq!(originals, 1);
    assert_eq!(vehicle_count(&s).await, 1);
}
