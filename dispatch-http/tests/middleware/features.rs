use super::harness::{Service, DOCS_LINK, OPT_IN};

#[tokio::test]
async fn applied_tokens_are_echoed_case_insensitively_and_unknown_ones_ignored() {
    let s = Service::start(false);
    let r = s
        .get(
            "/v2/depots",
            &[("x-svc-api-features", "future-thing, Rate-Limit-429 ")],
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("x-svc-api-features-applied"),
        Some("rate-limit-429")
    );
    let none = s
        .get("/v2/depots", &[("x-svc-api-features", "future-thing")])
        .await;
    assert_eq!(none.header("x-svc-api-features-applied"), None);
}

#[tokio::test]
async fn every_response_to_callers_not_opted_in_carries_sunset_deprecation_and_link() {
    let s = Service::start(false);
    let responses = [
        s.get("/v2/depots", &[]).await,
        s.get("/v2/depots", &[("x-access-key", "")]).await,
        s.get("/v2/no-such-thing", &[]).await,
        s.get("/healthz", &[]).await,
    ];
    for r in &responses {
        assert_eq!(
            r.header("sunset"),
            Some("Wed, 01 Mar 2028 00:00:00 GMT"),
            "{}",
            r.status
        );
        assert_eq!(r.header("deprecation"), Some("@1818720000"), "{}", r.status);
        assert_eq!(r.header("link"), Some(DOCS_LINK), "{}", r.status);
    }
    let opted_in = s.get("/v2/depots", &[OPT_IN]).await;
    opted_in.assert_no_deprecation_headers();
}

#[tokio::test]
async fn after_2028_03_01_no_deprecation_headers_and_the_token_is_still_accepted() {
    let s = Service::start(false);
    s.clock
        .set(dispatch_core::time::Timestamp::parse("2028-03-01T00:00:00.000Z").unwrap());
    let plain = s.get("/v2/depots", &[]).await;
    let opted_in = s.get("/v2/depots", &[OPT_IN]).await;
    for r in [&plain, &opted_in] {
        assert_eq!(r.status, 200);
        r.assert_no_deprecation_headers();
    }
    assert_eq!(
        opted_in.header("x-svc-api-features-applied"),
        Some("rate-limit-429")
    );
}

#[tokio::test]
async fn every_response_has_a_request_id_echoed_or_generated() {
    let s = Service::start(false);
    let echoed = s.get("/v2/depots", &[("x-request-id", "trace-42")]).await;
    assert_eq!(echoed.header("x-request-id"), Some("trace-42"));
    let a = s.get("/healthz", &[]).await;
    let b = s.get("/v2/depots", &[("x-access-key", "")]).await;
    let (a, b) = (
        a.header("x-request-id").unwrap(),
        b.header("x-request-id").unwrap(),
    );
    assert_eq!(a.len(), 36, "{a}");
    assert_ne!(a, b);
}
