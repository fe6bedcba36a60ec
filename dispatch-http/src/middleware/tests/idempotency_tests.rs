use dispatch_store_sqlite::idempotency::SqliteIdempotencyStore;

use super::*;

const IK: &str = "idempotency-key";

#[tokio::test]
async fn same_key_and_body_replays_status_body_and_content_type_without_executing() {
    let t = test_app(true);
    let first = call(
        &t.app,
        "POST",
        "/v2/vehicles",
        &[KEY1, (IK, "k1")],
        r#"{"name":"V","a":[1,2]}"#,
    )
    .await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!(first.header("idempotency-replay"), None);
    // The same JSON document, re-serialised with another key order and spacing.
    let again = call(
        &t.app,
        "POST",
        "/v2/vehicles",
        &[KEY1, (IK, "k1")],
        r#"{ "a": [1, 2], "name": "V" }"#,
    )
    .await;
    assert_eq!(again.status, StatusCode::CREATED);
    assert_eq!(again.header("idempotency-replay"), Some("true"));
    assert_eq!(again.header("content-type"), Some("application/json"));
    assert_eq!(again.body, first.body);
    // `/vehicles/` is the same endpoint.
    let slash = call(
        &t.app,
        "POST",
        "/v2/vehicles/",
        &[KEY1, (IK, "k1")],
        r#"{"name":"V","a":[1,2]}"#,
    )
    .await;
    assert_eq!(slash.header("idempotency-replay"), Some("true"));
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test]
async fn same_key_with_a_different_body_is_422() {
    let t = test_app(true);
    call(
        &t.app,
        "POST",
        "/v2/vehicles",
        &[KEY1, (IK, "k1")],
        r#"{"name":"V"}"#,
    )
    .await;
    let r = call(
        &t.app,
        "POST",
        "/v2/vehicles",
        &[KEY1, (IK, "k1")],
        r#"{"name":"W"}"#,
    )
    .await;
    assert_eq!(r.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        r.json()["name"],
        "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY"
    );
    assert_eq!(r.json()["statusCode"], 422);
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test]
async fn empty_or_over_255_character_keys_are_400() {
    let t = test_app(false);
    let long = "x".repeat(256);
    for key in ["", long.as_str()] {
        let r = call(&t.app, "POST", "/v2/vehicles", &[KEY1, (IK, key)], "{}").await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{}", key.len());
        assert_eq!(r.json()["name"], "IDEMPOTENCY_INVALID_KEY");
    }
    assert_eq!(t.probe.executions(), 0);
    // Characters, not bytes, are counted: 255 two-byte characters are fine.
    let ok = call(
        &t.app,
        "POST",
        "/v2/vehicles",
        &[KEY1, (IK, "é".repeat(255).as_str())],
        "{}",
    )
    .await;
    assert_eq!(ok.status, StatusCode::CREATED);
}

#[tokio::test]
async fn keys_are_scoped_per_access_key_and_endpoint() {
    let t = test_app(false);
    call(&t.app, "POST", "/v2/vehicles", &[KEY1, (IK, "k")], "{}").await;
    let other_key = call(&t.app, "POST", "/v2/vehicles", &[KEY2, (IK, "k")], "{}").await;
    let other_endpoint = call(&t.app, "POST", "/v2/orders", &[KEY1, (IK, "k")], "{}").await;
    for r in [other_key, other_endpoint] {
        assert_eq!(r.status, StatusCode::CREATED);
        assert_eq!(r.header("idempotency-replay"), None);
    }
    assert_eq!(t.probe.executions(), 3);
}

#[tokio::test]
async fn other_posts_and_multipart_uploads_ignore_the_key() {
    let t = test_app(false);
    for _ in 0..2 {
        let r = call(
            &t.app,
            "POST",
            "/v2/routes/1/reverse",
            &[KEY1, (IK, "k")],
            "{}",
        )
        .await;
        assert_eq!(r.header("idempotency-replay"), None);
    }
    assert_eq!(t.probe.executions(), 2);
    for _ in 0..2 {
        let r = call(
            &t.app,
            "POST",
            "/v2/vehicles",
            &[
                KEY1,
                (IK, "m"),
                ("content-type", "multipart/form-data; boundary=x"),
            ],
            "",
        )
        .await;
        assert_eq!(r.header("idempotency-replay"), None);
    }
}

#[tokio::test]
async fn a_5xx_releases_the_key_so_a_retry_executes() {
    let t = test_app(false);
    let body = r#"{"status":503}"#;
    let first = call(&t.app, "POST", "/v2/orders", &[KEY1, (IK, "k")], body).await;
    assert_eq!(first.status, StatusCode::SERVICE_UNAVAILABLE);
    let retry = call(&t.app, "POST", "/v2/orders", &[KEY1, (IK, "k")], body).await;
    assert_eq!(retry.header("idempotency-replay"), None);
    assert_eq!(t.probe.executions(), 2);
}

#[tokio::test]
async fn a_4xx_is_recorded_and_replayed() {
    let t = test_app(false);
    let body = r#"{"status":400}"#;
    let first = call(&t.app, "POST", "/v2/orders", &[KEY1, (IK, "k")], body).await;
    assert_eq!(first.status, StatusCode::BAD_REQUEST);
    let retry = call(&t.app, "POST", "/v2/orders", &[KEY1, (IK, "k")], body).await;
    assert_eq!(retry.status, StatusCode::BAD_REQUEST);
    assert_eq!(retry.header("idempotency-replay"), Some("true"));
    assert_eq!(retry.body, first.body);
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test]
async fn a_rate_limit_rejection_releases_the_key_and_a_retry_after_the_wait_executes() {
    let t = test_app(true);
    // Strict: 2 per 15 s.
    for k in ["a", "b"] {
        let r = call(
            &t.app,
            "POST",
            "/v2/plans/optimise/orders",
            &[KEY1, (IK, k)],
            "{}",
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED);
    }
    let limited = call(
        &t.app,
        "POST",
        "/v2/plans/optimise/orders",
        &[KEY1, (IK, "c")],
        "{}",
    )
    .await;
    assert_eq!(limited.status, StatusCode::FORBIDDEN);
    let wait = limited.json()["details"]["retry_after_seconds"]
        .as_i64()
        .unwrap();
    t.clock.advance_millis(wait * 1000);
    let retry = call(
        &t.app,
        "POST",
        "/v2/plans/optimise/orders",
        &[KEY1, (IK, "c")],
        "{}",
    )
    .await;
    assert_eq!(retry.status, StatusCode::CREATED);
    assert_eq!(retry.header("idempotency-replay"), None);
    assert_eq!(t.probe.executions(), 3);
}

#[tokio::test]
async fn replays_consume_no_rate_quota() {
    let t = test_app(true);
    call(
        &t.app,
        "POST",
        "/v2/plans/optimise/orders",
        &[KEY1, (IK, "a")],
        "{}",
    )
    .await;
    for _ in 0..10 {
        let r = call(
            &t.app,
            "POST",
            "/v2/plans/optimise/orders",
            &[KEY1, (IK, "a")],
            "{}",
        )
        .await;
        assert_eq!(r.status, StatusCode::CREATED);
        assert_eq!(r.header("idempotency-replay"), Some("true"));
    }
    // The strict burst (2 per 15 s) still has its second slot.
    let fresh = call(
        &t.app,
        "POST",
        "/v2/plans/optimise/orders",
        &[KEY1, (IK, "b")],
        "{}",
    )
    .await;
    assert_eq!(fresh.status, StatusCode::CREATED);
    assert_eq!(fresh.header("idempotency-replay"), None);
}

#[tokio::test]
async fn customers_replays_have_the_original_status_and_an_empty_body() {
    let t = test_app(false);
    let first = call(&t.app, "POST", "/v2/customers", &[KEY1, (IK, "k")], "[]").await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert!(!first.body.is_empty());
    let replay = call(&t.app, "POST", "/v2/customers", &[KEY1, (IK, "k")], "[]").await;
    assert_eq!(replay.status, StatusCode::CREATED);
    assert_eq!(replay.header("idempotency-replay"), Some("true"));
    assert!(replay.body.is_empty());
    assert_eq!(replay.header("content-type"), None);
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test]
async fn keys_are_forgotten_24_hours_after_the_original_request() {
    let t = test_app(false);
    call(&t.app, "POST", "/v2/vehicles", &[KEY1, (IK, "k")], "{}").await;
    t.clock.advance_millis(24 * 3600 * 1000 - 1);
    let within = call(&t.app, "POST", "/v2/vehicles", &[KEY1, (IK, "k")], "{}").await;
    assert_eq!(within.header("idempotency-replay"), Some("true"));
    t.clock.advance_millis(1);
    let after = call(&t.app, "POST", "/v2/vehicles", &[KEY1, (IK, "k")], "{}").await;
    assert_eq!(after.header("idempotency-replay"), None);
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

#[tokio::test]
async fn a_request_whose_original_is_still_running_gets_409_with_retry_after() {
    let t = test_app(true);
    let app = t.app.clone();
    let first = tokio::spawn(async move {
        call(
            &app,
            "POST",
            "/v2/plans/optimise/orders-for-ids",
            &[KEY1, (IK, "k")],
            "{}",
        )
        .await
    });
    wait_until_entered(&t.probe, 1).await;
    let r = call(
        &t.app,
        "POST",
        "/v2/plans/optimise/orders-for-ids",
        &[KEY1, (IK, "k")],
        "{}",
    )
    .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
    assert_eq!(r.json()["name"], "IDEMPOTENCY_REQUEST_IN_PROGRESS");
    assert_eq!(r.header("retry-after"), Some("1"));
    t.probe.gate.add_permits(1);
    let first = first.await.unwrap();
    assert_eq!(first.status, StatusCode::OK);
    let after = call(
        &t.app,
        "POST",
        "/v2/plans/optimise/orders-for-ids",
        &[KEY1, (IK, "k")],
        "{}",
    )
    .await;
    assert_eq!(after.header("idempotency-replay"), Some("true"));
    assert_eq!(after.body, first.body);
    assert_eq!(t.probe.executions(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_requests_with_one_key_execute_exactly_once() {
    let t = test_app(false);
    let tasks: Vec<_> = (0..12)
        .map(|_| {
            let app = t.app.clone();
            tokio::spawn(async move {
                call(
                    &app,
                    "POST",
                    "/v2/plans/optimise/orders-for-ids",
                    &[KEY1, (IK, "same")],
                    "{}",
                )
                .await
            })
        })
        .collect();
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
    let open = || Arc::new(SqliteIdempotencyStore::open(&path).unwrap());
    let first = {
        let t = test_app_with(true, clock.clone(), open(), probe.clone());
        call(
            &t.app,
            "POST",
            "/v2/vehicles",
            &[KEY1, (IK, "k")],
            r#"{"name":"V"}"#,
        )
        .await
    };
    let t = test_app_with(true, clock.clone(), open(), probe.clone());
    let replay = call(
        &t.app,
        "POST",
        "/v2/vehicles",
        &[KEY1, (IK, "k")],
        r#"{"name":"V"}"#,
    )
    .await;
    assert_eq!(replay.header("idempotency-replay"), Some("true"));
    assert_eq!(replay.status, first.status);
    assert_eq!(replay.body, first.body);
    let mismatch = call(
        &t.app,
        "POST",
        "/v2/vehicles",
        &[KEY1, (IK, "k")],
        r#"{"name":"W"}"#,
    )
    .await;
    assert_eq!(mismatch.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(probe.executions(), 1);
}

#[tokio::test]
async fn an_oversized_body_is_413_and_claims_nothing() {
    let t = test_app(false);
    let big = format!("\"{}\"", "x".repeat(crate::MAX_BODY_BYTES));
    let r = call(&t.app, "POST", "/v2/vehicles", &[KEY1, (IK, "k")], &big).await;
    assert_eq!(r.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(r.json()["name"], "INVALID_INPUT");
    assert_eq!(r.json()["statusCode"], 413);
    let ok = call(&t.app, "POST", "/v2/vehicles", &[KEY1, (IK, "k")], "{}").await;
    assert_eq!(ok.status, StatusCode::CREATED);
    assert_eq!(ok.header("idempotency-replay"), None);
    assert_eq!(t.probe.executions(), 1);
}
