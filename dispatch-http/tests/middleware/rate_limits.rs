use dispatch_http::middleware::rate_limit::ENDPOINT_TIERS;
use serde_json::json;

use super::harness::{vehicle, Service, OPT_IN};

#[tokio::test]
async fn get_vehicles_is_reference_tier_one_per_second_with_retry_after_equal_to_the_detail() {
    let s = Service::start(true);
    assert_eq!(s.get("/v2/vehicles", &[]).await.status, 200);
    let r = s.get("/v2/vehicles", &[]).await;
    let body = r.assert_error(403, "FORBIDDEN");
    assert_eq!(body["details"]["retry_after_seconds"], 1);
    assert_eq!(r.header("retry-after"), Some("1"));
    s.clock.advance_millis(999);
    s.get("/v2/vehicles", &[])
        .await
        .assert_error(403, "FORBIDDEN");
    s.clock.advance_millis(1);
    assert_eq!(s.get("/v2/vehicles", &[]).await.status, 200);
}

#[tokio::test]
async fn reference_tier_allows_sixty_a_minute_at_one_a_second() {
    let s = Service::start(true);
    for i in 0..60 {
        let r = s.get("/v2/depots", &[]).await;
        assert_eq!(r.status, 200, "request {i}");
        s.advance_secs(1);
    }
}

#[tokio::test]
async fn vehicle_writes_are_standard_tier_five_per_second_and_sixty_per_minute() {
    let s = Service::start(true);
    let id = s.post("/v2/vehicles", &[], &vehicle("V")).await.json()["vehicle"]["id"].clone();
    // Let the create leave every window.
    s.advance_secs(60);
    let path = format!("/v2/vehicles/{id}");
    let rename = json!({"name": "W"});
    // Burst: five at once, the sixth waits a second.
    for i in 0..5 {
        assert_eq!(
            s.call("PATCH", &path, &[], Some(&rename)).await.status,
            200,
            "{i}"
        );
    }
    let r = s.call("PATCH", &path, &[], Some(&rename)).await;
    assert_eq!(
        r.assert_error(403, "FORBIDDEN")["details"]["retry_after_seconds"],
        1
    );
    // Per minute: 60 in twelve seconds, then the 61st waits for the first to leave the minute.
    for second in 1..12 {
        s.advance_secs(1);
        for i in 0..5 {
            let r = s.call("PUT", &path, &[], Some(&rename)).await;
            assert_eq!(r.status, 200, "second {second} request {i}");
        }
    }
    s.advance_secs(1);
    let r = s.call("PATCH", &path, &[], Some(&rename)).await;
    let body = r.assert_error(403, "FORBIDDEN");
    assert_eq!(body["details"]["retry_after_seconds"], 48);
    assert_eq!(r.header("retry-after"), Some("48"));
    s.advance_secs(47);
    s.call("PATCH", &path, &[], Some(&rename))
        .await
        .assert_error(403, "FORBIDDEN");
    s.advance_secs(1);
    assert_eq!(s.call("PATCH", &path, &[], Some(&rename)).await.status, 200);
}

#[tokio::test]
async fn the_429_token_gives_429_with_the_same_description_and_retry_after() {
    let s = Service::start(true);
    s.get("/v2/vehicles", &[]).await;
    let forbidden = s.get("/v2/vehicles", &[]).await;
    let too_many = s.get("/v2/vehicles", &[OPT_IN]).await;
    let f = forbidden.assert_error(403, "FORBIDDEN");
    let t = too_many.assert_error(429, "RATE_LIMIT_EXCEEDED");
    assert_eq!(f["description"], t["description"]);
    assert_eq!(f["details"], t["details"]);
    assert_eq!(
        forbidden.header("retry-after"),
        too_many.header("retry-after")
    );
    assert_eq!(
        too_many.header("x-svc-api-features-applied"),
        Some("rate-limit-429")
    );
}

#[tokio::test]
async fn from_2028_03_01_rate_limited_callers_get_429_without_the_token() {
    let s = Service::start(true);
    s.clock
        .set(dispatch_core::time::Timestamp::parse("2028-03-01T00:00:00.000Z").unwrap());
    s.get("/v2/vehicles", &[]).await;
    s.get("/v2/vehicles", &[])
        .await
        .assert_error(429, "RATE_LIMIT_EXCEEDED");
}

#[tokio::test]
async fn quotas_are_per_access_key_and_shared_by_the_endpoints_of_one_tier() {
    let s = Service::start(true);
    let other = ("x-access-key", s.keys[1].as_str());
    assert_eq!(s.get("/v2/depots", &[]).await.status, 200);
    // GET /vehicles is the same (reference) tier for the same key...
    s.get("/v2/vehicles", &[])
        .await
        .assert_error(403, "FORBIDDEN");
    // ...but another key of the same depot has its own quota, and other tiers are untouched.
    assert_eq!(s.get("/v2/vehicles", &[other]).await.status, 200);
    let r = s.post("/v2/vehicles", &[], &vehicle("V")).await;
    assert!(r.status.is_success(), "{:?}", r.json());
}

#[tokio::test]
async fn rate_limits_off_disables_every_tier() {
    let s = Service::start(false);
    for _ in 0..100 {
        assert_eq!(s.get("/v2/vehicles", &[]).await.status, 200);
    }
}

#[tokio::test]
async fn unauthenticated_requests_are_401_and_consume_no_quota() {
    let s = Service::start(true);
    for _ in 0..5 {
        s.get("/v2/vehicles", &[("x-access-key", "nope")])
            .await
            .assert_error(401, "UNAUTHORIZED");
    }
    assert_eq!(s.get("/v2/vehicles", &[]).await.status, 200);
}

/// Walks the one tier table: every endpoint the router already serves must be limited by the
/// burst of the tier the table gives it (a route the table misses, or matches under another
/// spelling, would fall back to the standard tier and fail here unless it is standard).
#[tokio::test]
async fn every_served_endpoint_is_limited_by_the_burst_of_its_table_tier() {
    let s = Service::start(true);
    let mut served = Vec::new();
    for (method, template, tier) in ENDPOINT_TIERS {
        s.advance_secs(61);
        let path = format!(
            "/v2{}",
            template
                .split('/')
                .map(|seg| if seg.starts_with('{') { "1" } else { seg })
                .collect::<Vec<_>>()
                .join("/")
        );
        let body = (*method != "GET").then(|| json!({}));
        let [_, burst] = tier.windows();
        let first = s.call(method, &path, &[], body.as_ref()).await;
        let description = first.json()["description"]
            .as_str()
            .unwrap_or("")
            .to_owned();
        // Not served yet: an unknown path, or a method not served on a path that is.
        if (first.status == 404 && description.starts_with("no endpoint")) || first.status == 405 {
            continue;
        }
        for _ in 1..burst.limit {
            s.call(method, &path, &[], body.as_ref()).await;
        }
        let over = s.call(method, &path, &[], body.as_ref()).await;
        assert_eq!(
            over.status,
            403,
            "{method} {path} ({tier}): {:?}",
            over.json()
        );
        assert_eq!(
            over.header("retry-after"),
            Some(((burst.period_ms + 999) / 1000).to_string().as_str()),
            "{method} {path} ({tier})"
        );
        served.push(format!("{method} {template}"));
    }
    assert!(served.len() >= 25, "only {served:?}");
}

#[tokio::test]
async fn driver_endpoints_are_standard_tier_per_driver_credential() {
    let s = Service::start(true);
    let id = s.post("/v2/vehicles", &[], &vehicle("V")).await.json()["vehicle"]["id"].clone();
    let credential = |r: super::harness::Resp| {
        r.json()["driver_credential"]["credential"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let path = format!("/v2/vehicles/{id}/driver-credentials");
    let one = credential(s.post(&path, &[], &json!({})).await);
    let two = credential(s.post(&path, &[], &json!({})).await);
    s.advance_secs(60);
    for i in 0..5 {
        let r = s.get("/driver/me", &[("x-access-key", &one)]).await;
        assert_eq!(r.status, 200, "{i}");
    }
    let r = s.get("/driver/me", &[("x-access-key", &one)]).await;
    assert_eq!(
        r.assert_error(403, "FORBIDDEN")["details"]["retry_after_seconds"],
        1
    );
    let r = s.get("/driver/me", &[("x-access-key", &one), OPT_IN]).await;
    r.assert_error(429, "RATE_LIMIT_EXCEEDED");
    // Another credential, and the depot's key, have windows of their own.
    assert_eq!(
        s.get("/driver/me", &[("x-access-key", &two)]).await.status,
        200
    );
    assert_eq!(s.get(&format!("/v2/vehicles/{id}"), &[]).await.status, 200);
    s.advance_secs(1);
    assert_eq!(
        s.get("/driver/me", &[("x-access-key", &one)]).await.status,
        200
    );
}

#[tokio::test]
async fn driver_image_uploads_are_upload_tier_per_driver_credential() {
    let s = Service::start(true);
    let id = s.post("/v2/vehicles", &[], &vehicle("V")).await.json()["vehicle"]["id"].clone();
    let path = format!("/v2/vehicles/{id}/driver-credentials");
    let one = s.post(&path, &[], &json!({})).await.json()["driver_credential"]["credential"]
        .as_str()
        .unwrap()
        .to_owned();
    s.advance_secs(60);
    let key = [("x-access-key", one.as_str())];
    for upload in [
        "/driver/questionnaire-submissions",
        "/driver/stops/1/signature",
        "/driver/stops/1/photos",
    ] {
        // The first of the second is served (and refused for its body); the next waits.
        let first = s.post(upload, &key, &json!({})).await;
        assert_eq!(first.status, 400, "{upload}: {:?}", first.json());
        let second = s.post(upload, &key, &json!({})).await;
        assert_eq!(
            second.assert_error(403, "FORBIDDEN")["details"]["retry_after_seconds"],
            1,
            "{upload}"
        );
        // Other driver endpoints keep their Standard windows meanwhile.
        assert_eq!(s.get("/driver/me", &key).await.status, 200);
        s.advance_secs(1);
    }
    // 15 a minute: the 16th upload within a minute waits.
    for i in 3..15 {
        let r = s
            .post("/driver/questionnaire-submissions", &key, &json!({}))
            .await;
        assert_eq!(r.status, 400, "{i}");
        s.advance_secs(1);
    }
    s.post("/driver/questionnaire-submissions", &key, &json!({}))
        .await
        .assert_error(403, "FORBIDDEN");
}
