use crate::harness::Service;

const DOCS_LINK: &str =
    "<https://docs.dispatch.example.com/v2/features/rate-limit-429>; rel=\"deprecation\"";

#[tokio::test]
async fn applied_tokens_are_echoed_case_insensitively_and_unknown_ones_ignored() {
    let s = Service::start(false);
    let r = s
        .call(
            "GET",
            "/v2/depots",
            &[("x-svc-api-features", "future-thing, Rate-Limit-429 ")],
            None,
        )
        .await;
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("x-svc-api-features-applied"),
        Some("rate-limit-429")
    );
    let none = s
        .call(
            "GET",
            "/v2/depots",
            &[("x-svc-api-features", "future-thing")],
            None,
        )
        .await;
    assert_eq!(none.header("x-svc-api-features-applied"), None);
}

#[tokio::test]
async fn every_response_to_callers_not_opted_in_carries_sunset_deprecation_and_link() {
    let s = Service::start(false);
    let responses = [
        s.call("GET", "/v2/depots", &[], None).await,
        s.call("GET", "/v2/depots", &[("x-access-key", "")], None)
            .await,
        s.call("GET", "/v2/no-such-thing", &[], None).await,
        s.call("GET", "/healthz", &[], None).await,
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
    let opted_in = s
        .call(
            "GET",
            "/v2/depots",
            &[("x-svc-api-features", "rate-limit-429")],
            None,
        )
        .await;
    for h in ["sunset", "deprecation", "link"] {
        assert_eq!(opted_in.header(h), None, "{h}");
    }
}

#[tokio::test]
async fn after_2028_03_01_no_deprecation_headers_and_the_token_is_still_accepted() {
    let s = Service::start(false);
    s.clock
        .set(dispatch_core::time::Timestamp::parse("2028-03-01T00:00:00.000Z").unwrap());
    let plain = s.call("GET", "/v2/depots", &[], None).await;
    let opted_in = s
        .call(
            "GET",
            "/v2/depots",
            &[("x-svc-api-features", "rate-limit-429")],
            None,
        )
        .await;
    for r in [&plain, &opted_in] {
        assert_eq!(r.status, 200);
        for h in ["sunset", "deprecation", "link"] {
            assert_eq!(r.header(h), None, "{h}");
        }
    }
    assert_eq!(
        opted_in.header("x-svc-api-features-applied"),
        Some("rate-limit-429")
    );
}

#[tokio::test]
async fn every_response_has_a_request_id_echoed_or_generated() {
    let s = Service::start(false);
    let echoed = s
        .call("GET", "/v2/depots", &[("x-request-id", "trace-42")], None)
        .await;
    assert_eq!(echoed.header("x-request-id"), Some("trace-42"));
    let a = s.call("GET", "/healthz", &[], None).await;
    let b = s
        .call("GET", "/v2/depots", &[("x-access-key", "")], None)
        .await;
    let (a, b) = (
        a.header("x-request-id").unwrap(),
        b.header("x-request-id").unwrap(),
    );
    assert_eq!(a.len(), 36, "{a}");
    assert_ne!(a, b);
}
