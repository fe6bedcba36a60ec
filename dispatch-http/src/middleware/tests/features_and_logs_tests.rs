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
            Some("<https://docs.dispatch.example.com/v2/features/rate-limit-429>; rel=\"deprecation\"")
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
        Some("<http://h/v2/customers?page_info=abc&limit=2>; rel=\"next\", <https://docs.dispatch.example.com/v2/features/rate-limit-429>; rel=\"deprecation\"")
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

/// Log output of the requests made while it is the default subscriber.
#[derive(Clone, Default)]
struct Captured(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn one_log_line_per_request_with_method_path_status_latency_and_depot() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _default = tracing::subscriber::set_default(subscriber);
    let t = test_app(true);
    t.get("/v2/vehicles", &[KEY1, ("x-request-id", "r-1")])
        .await;
    t.get("/v2/vehicles", &[("x-request-id", "r-2")]).await;
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("dispatch::request"))
        .collect();
    assert_eq!(lines.len(), 2, "{log}");
    for (line, status) in lines.iter().zip(["200", "401"]) {
        assert!(line.contains("method=GET"), "{line}");
        assert!(line.contains("path=\"/v2/vehicles\""), "{line}");
        assert!(line.contains(&format!("status={status}")), "{line}");
        assert!(line.contains("latency_ms="), "{line}");
    }
    assert!(lines[0].contains("request_id=\"r-1\"") && lines[0].contains("depot_id=101"));
    assert!(lines[1].contains("request_id=\"r-2\"") && !lines[1].contains("depot_id"));
}
