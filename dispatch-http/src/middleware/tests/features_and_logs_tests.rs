use super::*;

// ---------------------------------------------------------------- feature tokens

#[tokio::test]
async fn applied_tokens_are_echoed_and_absent_when_none_applied() {
    let t = test_app(true);
    let r = t
        .get(
            "/v2/vehicles",
            &[KEY1, ("x-svc-api-features", " unknown ,RATE-limit-429 ")],
        )
        .await;
    assert_eq!(
        r.header("x-svc-api-features-applied"),
        Some("rate-limit-429")
    );
    let r = t
        .get("/v2/vehicles", &[KEY2, ("x-svc-api-features", "unknown")])
        .await;
    assert_eq!(r.header("x-svc-api-features-applied"), None);
}

#[tokio::test]
async fn callers_not_opted_in_get_the_deprecation_headers_during_the_notice_period() {
    let t = test_app(true);
    for r in [
        t.get("/v2/vehicles", &[KEY1]).await,
        // Errors too, including those answered before authentication.
        t.get("/v2/vehicles", &[]).await,
    ] {
        assert_eq!(r.header("sunset"), Some("Wed, 01 Mar 2028 00:00:00 GMT"));
        assert_eq!(r.header("deprecation"), Some("@1818720000"));
        assert_eq!(
            r.header("link"),
            Some(
                "<https://docs.example.org/dispatch/features/rate-limit-429>; rel=\"deprecation\""
            )
        );
    }
    let opted_in = t.get("/v2/vehicles", &[KEY2, OPT_IN]).await;
    opted_in.assert_no_deprecation_headers();
}

#[tokio::test]
async fn the_deprecation_link_follows_the_paging_link_in_one_header() {
    let t = test_app(true);
    let r = t.get("/v2/customers", &[KEY1]).await;
    assert_eq!(r.headers.get_all("link").iter().count(), 1);
    assert_eq!(
        r.header("link"),
        Some("<http://h/v2/customers?page_info=abc&limit=2>; rel=\"next\", <https://docs.example.org/dispatch/features/rate-limit-429>; rel=\"deprecation\"")
    );
    let opted_in = t.get("/v2/customers", &[KEY1, OPT_IN]).await;
    assert_eq!(
        opted_in.header("link"),
        Some("<http://h/v2/customers?page_info=abc&limit=2>; rel=\"next\"")
    );
}

#[tokio::test]
async fn after_the_notice_period_the_token_is_accepted_without_effect_or_warnings() {
    let t = test_app(true);
    t.clock
        .set(Timestamp::parse("2028-03-01T00:00:00.000Z").unwrap());
    let plain = t.get("/v2/vehicles", &[KEY1]).await;
    let opted_in = t.get("/v2/vehicles", &[KEY2, OPT_IN]).await;
    for r in [&plain, &opted_in] {
        assert_eq!(r.status, StatusCode::OK);
        r.assert_no_deprecation_headers();
    }
    assert_eq!(
        opted_in.header("x-svc-api-features-applied"),
        Some("rate-limit-429")
    );
}

// ---------------------------------------------------------------- request ids

#[tokio::test]
async fn request_ids_are_echoed_or_generated() {
    let t = test_app(true);
    let r = t
        .get("/v2/vehicles", &[KEY1, ("x-request-id", "abc-123")])
        .await;
    assert_eq!(r.header("x-request-id"), Some("abc-123"));
    let a = t.get("/v2/nowhere", &[KEY1]).await;
    let b = t.get("/v2/nowhere", &[KEY1]).await;
    let (a, b) = (
        a.header("x-request-id").unwrap(),
        b.header("x-request-id").unwrap(),
    );
    assert!(uuid::Uuid::parse_str(a).is_ok(), "{a}");
    assert_ne!(a, b);
}
