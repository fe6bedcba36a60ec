//! One log line per request, on the real router. These tests have a process of their own: their
//! capturing subscribers (alike) are then the only ones, so no test running beside them on
//! another thread can race tracing's process-wide callsite-interest cache (which left the
//! capture empty).

#[allow(dead_code)]
#[path = "contract/mod.rs"]
mod contract;
#[path = "shared/exchange.rs"]
mod exchange;
#[allow(dead_code)]
#[path = "middleware/harness.rs"]
mod harness;
#[path = "shared/test_db.rs"]
mod test_db;

use std::sync::{Arc, Mutex};

use dispatch_core::model::organisation::DepotScope;
use dispatch_core::time::Timestamp;
use harness::{Service, START};
use serde_json::json;

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Log lines of this thread (the tests run their service on a current-thread runtime) until the
/// guard is dropped.
fn capture() -> (Captured, tracing::subscriber::DefaultGuard) {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    (captured, tracing::subscriber::set_default(subscriber))
}

#[tokio::test(flavor = "current_thread")]
async fn one_log_line_per_request_with_method_route_status_latency_and_depot() {
    let (captured, _default) = capture();
    let service = Service::start(false);
    let key = service.keys[0].clone();
    service
        .get(
            "/v2/vehicles",
            &[("x-access-key", &key), ("x-request-id", "r-1")],
        )
        .await;
    service
        .get(
            "/v2/vehicles",
            &[("x-access-key", "unknown"), ("x-request-id", "r-2")],
        )
        .await;
    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let lines: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("dispatch::request"))
        .collect();
    assert_eq!(lines.len(), 2, "{log}");
    for (line, status) in lines.iter().zip(["200", "401"]) {
        assert!(line.contains("method=GET"), "{line}");
        assert!(line.contains("route=\"/v2/vehicles\""), "{line}");
        assert!(line.contains(&format!("status={status}")), "{line}");
        assert!(line.contains("latency_ms="), "{line}");
    }
    assert!(lines[0].contains("request_id=\"r-1\"") && lines[0].contains("depot_id="));
    assert!(lines[1].contains("request_id=\"r-2\"") && !lines[1].contains("depot_id"));
}

/// The depot of a request authenticated by a driver credential or a tracking link is logged
/// like that of an access key.
#[tokio::test(flavor = "current_thread")]
async fn driver_api_and_tracking_page_lines_name_the_depot() {
    let (captured, _default) = capture();
    let service = Service::start(false);
    let depot = service.get("/v2/depots", &[]).await.json()["depots"][0]["id"]
        .as_i64()
        .unwrap();
    let vehicle = service
        .call(
            "POST",
            "/v2/vehicles",
            &[],
            Some(&json!({"name": "Van", "availability": "full_day",
                          "start_location": "depot", "end_location": "depot"})),
        )
        .await
        .json()["vehicle"]["id"]
        .as_i64()
        .unwrap();
    let credential = service
        .call(
            "POST",
            &format!("/v2/vehicles/{vehicle}/driver-credentials"),
            &[],
            Some(&json!({})),
        )
        .await
        .json()["driver_credential"]["credential"]
        .as_str()
        .unwrap()
        .to_owned();
    let order = service
        .call(
            "POST",
            "/v2/orders",
            &[],
            Some(&json!([{"order_number": "T-1", "type": "delivery",
                           "delivery_address": "1 High St", "delivery_lat": 51.5,
                           "delivery_lng": -0.12}])),
        )
        .await
        .json()["orders"][0]["id"]
        .as_str()
        .unwrap()
        .parse::<i64>()
        .unwrap();
    let store = test_db::open_store(service.path());
    let scope = DepotScope {
        organisation_id: 1,
        depot_id: depot,
    };
    let token = test_db::off_runtime(|| {
        store.transaction(|tx| {
            tx.ensure_tracking_token(scope, order, "trk-log-test", Timestamp::from_millis(START))
        })
    })
    .unwrap();
    captured.0.lock().unwrap().clear();

    let me = service
        .get(
            "/driver/me",
            &[("x-access-key", &credential), ("x-request-id", "d-1")],
        )
        .await;
    assert_eq!(me.status, 200);
    let page = service
        .get(&format!("/track/{token}"), &[("x-request-id", "t-1")])
        .await;
    assert_eq!(page.status, 200);
    let unknown = service
        .get("/track/no-such-token", &[("x-request-id", "t-2")])
        .await;
    assert_eq!(unknown.status, 404);

    let log = String::from_utf8(captured.0.lock().unwrap().clone()).unwrap();
    let line = |id: &str| {
        log.lines()
            .find(|l| {
                l.contains("dispatch::request") && l.contains(&format!("request_id=\"{id}\""))
            })
            .unwrap_or_else(|| panic!("{id} in {log}"))
            .to_owned()
    };
    assert!(line("d-1").contains(&format!("depot_id={depot}")), "{log}");
    assert!(line("t-1").contains(&format!("depot_id={depot}")), "{log}");
    assert!(!line("t-2").contains("depot_id"), "{log}");
    assert!(
        !log.contains("trk-log-test"),
        "the token is never logged: {log}"
    );
}
