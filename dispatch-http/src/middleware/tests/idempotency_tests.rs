use dispatch_store_sqlite::idempotency::SqliteIdempotencyStore;

use super::*;

const VEHICLES: &str = "/v2/vehicles";
/// Strict tier: 2 per 15 s.
const OPTIMISE: &str = "/v2/plans/optimise/orders";
/// Waits for `Probe::gate`.
const SLOW: &str = "/v2/plans/optimise/orders-for-ids";

#[tokio::test]
async fn same_key_and_body_replays_status_body_and_content_type_without_executing() {
    let t = test_app(true);
    let first = t.send(VEHICLES, "k1", r#"{"name":"V","a":[1,2]}"#).await;
    assert_eq!(first.status, StatusCode::CREATED);
    first.assert_not_replayed();
    // The same JSON document, re-serialised with another key order and spacing.
    let again = t
        .send(VEHICLES, "k1", r#"{ "a": [1, 2], "name": "V" }"#)
        .await;
    assert_eq!(again.status, StatusCode::CREATED);
    again.assert_replayed();
    assert_eq!(again.header("content-type"), Some("application/json"));
    assert_eq!(again.body, first.body);
    // `/vehicles/` is the same endpoint.
    t.send("/v2/vehicles/", "k1", r#"{"name":"V","a":[1,2]}"#)
        .await
        .assert_replayed();
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test]
async fn same_key_with_a_different_body_is_422() {
    let t = test_app(true);
    t.send(VEHICLES, "k1", r#"{"name":"V"}"#).await;
    t.send(VEHICLES, "k1", r#"{"name":"W"}"#)
        .await
        .assert_error(
            StatusCode::UNPROCESSABLE_ENTITY,
            "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY",
        );
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test]
async fn empty_or_over_255_character_keys_are_400() {
    let t = test_app(false);
    let long = "x".repeat(256);
    for key in ["", long.as_str()] {
        let r = t.send(VEHICLES, key, "{}").await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", key.len());
        assert_eq!(r.json()["name"], "IDEMPOTENCY_INVALID_KEY");
    }
    assert_eq!(t.probe.executions(), 0);
    // Characters, not bytes, are counted: 255 two-byte characters are fine.
    let ok = t.send(VEHICLES, &"é".repeat(255), "{}").await;
    assert_eq!(ok.status, StatusCode::CREATED);
}

#[tokio::test]
async fn keys_are_scoped_per_access_key_and_endpoint() {
    let t = test_app(false);
    t.send(VEHICLES, "k", "{}").await;
    let other_key = t.post(VEHICLES, &[KEY2, (IK, "k")], "{}").await;
    let other_endpoint = t.send("/v2/orders", "k", "{}").await;
    for r in [other_key, other_endpoint] {
        assert_eq!(r.status, StatusCode::CREATED);
        r.assert_not_replayed();
    }
    assert_eq!(t.probe.executions(), 3);
}

#[tokio::test]
async fn other_posts_and_multipart_uploads_ignore_the_key() {
    let t = test_app(false);
    for _ in 0..2 {
        t.send("/v2/routes/1/reverse", "k", "{}")
            .await
            .assert_not_replayed();
    }
    assert_eq!(t.probe.executions(), 2);
    let multipart = ("content-type", "multipart/form-data; boundary=x");
    for _ in 0..2 {
        t.post(VEHICLES, &[KEY1, (IK, "m"), multipart], "")
            .await
            .assert_not_replayed();
    }
}

#[tokio::test]
async fn a_5xx_releases_the_key_so_a_retry_executes() {
    let t = test_app(false);
    let body = r#"{"status":503}"#;
    let first = t.send("/v2/orders", "k", body).await;
    assert_eq!(first.status, StatusCode::SERVICE_UNAVAILABLE);
    t.send("/v2/orders", "k", body).await.assert_not_replayed();
    assert_eq!(t.probe.executions(), 2);
}

#[tokio::test]
async fn a_4xx_is_recorded_and_replayed() {
    let t = test_app(false);
    let body = r#"{"status":400}"#;
    let first = t.send("/v2/orders", "k", body).await;
    assert_eq!(first.status, StatusCode::BAD_REQUEST);
    let retry = t.send("/v2/orders", "k", body).await;
    assert_eq!(retry.status, StatusCode::BAD_REQUEST);
    retry.assert_replayed();
    assert_eq!(retry.body, first.body);
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test]
async fn a_rate_limit_rejection_releases_the_key_and_a_retry_after_the_wait_executes() {
    let t = test_app(true);
    for k in ["a", "b"] {
        assert_eq!(t.send(OPTIMISE, k, "{}").await.status, StatusCode::CREATED);
    }
    let limited = t.send(OPTIMISE, "c", "{}").await;
    assert_eq!(limited.status, StatusCode::FORBIDDEN);
    let wait = limited.json()["details"]["retry_after_seconds"]
        .as_i64()
        .unwrap();
    t.clock.advance_millis(wait * 1000);
    let retry = t.send(OPTIMISE, "c", "{}").await;
    assert_eq!(retry.status, StatusCode::CREATED);
    retry.assert_not_replayed();
    assert_eq!(t.probe.executions(), 3);
}

#[tokio::test]
async fn replays_consume_no_rate_quota() {
    let t = test_app(true);
    t.send(OPTIMISE, "a", "{}").await;
    for _ in 0..10 {
        let r = t.send(OPTIMISE, "a", "{}").await;
        assert_eq!(r.status, StatusCode::CREATED);
        r.assert_replayed();
    }
    // The strict burst still has its second slot.
    let fresh = t.send(OPTIMISE, "b", "{}").await;
    assert_eq!(fresh.status, StatusCode::CREATED);
    fresh.assert_not_replayed();
}

#[tokio::test]
async fn customers_replays_have_the_original_status_and_an_empty_body() {
    let t = test_app(false);
    let first = t.send("/v2/customers", "k", "[]").await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert!(!first.body.is_empty());
    let replay = t.send("/v2/customers", "k", "[]").await;
    assert_eq!(replay.status, StatusCode::CREATED);
    replay.assert_replayed();
    assert!(replay.body.is_empty());
    assert_eq!(replay.header("content-type"), None);
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test]
async fn keys_are_forgotten_24_hours_after_the_original_request() {
    let t = test_app(false);
    t.send(VEHICLES, "k", "{}").await;
    t.clock.advance_millis(24 * 3600 * 1000 - 1);
    t.send(VEHICLES, "k", "{}").await.assert_replayed();
    t.clock.advance_millis(1);
    t.send(VEHICLES, "k", "{}").await.assert_not_replayed();
    assert_eq!(t.probe.executions(), 2);
}

async fn wait_until_entered(probe: &Probe, n: usize) {
    for _ in 0..500 {
        if probe.entered.load(Ordering::SeqCst) >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    panic!("the slow endpoint was not entered");
}

/// Sends `key` to the slow endpoint in a task of its own.
fn spawn_slow(t: &TestApp, key: &'static str) -> tokio::task::JoinHandle<Reply> {
    let t = t.clone();
    tokio::spawn(async move { t.send(SLOW, key, "{}").await })
}

#[tokio::test]
async fn a_request_whose_original_is_still_running_gets_409_with_retry_after() {
    let t = test_app(true);
    let first = spawn_slow(&t, "k");
    wait_until_entered(&t.probe, 1).await;
    let r = t.send(SLOW, "k", "{}").await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["name"], "IDEMPOTENCY_REQUEST_IN_PROGRESS");
    assert_eq!(r.header("retry-after"), Some("1"));
    t.probe.gate.add_permits(1);
    let first = first.await.unwrap();
    assert_eq!(first.status, StatusCode::OK);
    let after = t.send(SLOW, "k", "{}").await;
    after.assert_replayed();
    assert_eq!(after.body, first.body);
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_requests_with_one_key_execute_exactly_once() {
    let t = test_app(false);
    let tasks: Vec<_> = (0..12).map(|_| spawn_slow(&t, "same")).collect();
    wait_until_entered(&t.probe, 1).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    t.probe.gate.add_permits(100);
    let mut executed = 0;
    for task in tasks {
        let r = task.await.unwrap();
        match (r.status, r.header("idempotency-replay")) {
            (StatusCode::OK, None) => executed += 1,
            (StatusCode::OK, Some("true")) | (StatusCode::CONFLICT, None) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(executed, 1);
    assert_eq!(t.probe.executions(), 1);
    assert_eq!(t.probe.entered.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn recorded_keys_survive_a_restart_over_the_same_sqlite_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("dispatch.db");
    let clock = Arc::new(ManualClock::new(T0));
    let probe = Probe::new();
    let start = || {
        let store = Arc::new(SqliteIdempotencyStore::open(&path).unwrap());
        test_app_with(true, clock.clone(), store, probe.clone())
    };
    let first = start().send(VEHICLES, "k", r#"{"name":"V"}"#).await;
    let t = start();
    let replay = t.send(VEHICLES, "k", r#"{"name":"V"}"#).await;
    replay.assert_replayed();
    assert_eq!(replay.status, first.status);
    assert_eq!(replay.body, first.body);
    let mismatch = t.send(VEHICLES, "k", r#"{"name":"W"}"#).await;
    assert_eq!(mismatch.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(probe.executions(), 1);
}

#[tokio::test]
async fn an_oversized_body_is_400_and_claims_nothing() {
    let t = test_app(false);
    let big = format!("\"{}\"", "x".repeat(crate::MAX_BODY_BYTES));
    t.send(VEHICLES, "k", &big)
        .await
        .assert_error(StatusCode::BAD_REQUEST, "INVALID_INPUT");
    let ok = t.send(VEHICLES, "k", "{}").await;
    assert_eq!(ok.status, StatusCode::CREATED);
    ok.assert_not_replayed();
    assert_eq!(t.probe.executions(), 1);
}
