//! One log line per request, on the real router. This test has a process of its own: its
//! capturing subscriber is then the only one, so no test running beside it on another thread
//! can race tracing's process-wide callsite-interest cache (which left the capture empty).

#[allow(dead_code)]
#[path = "contract/mod.rs"]
mod contract;
#[allow(dead_code)]
#[path = "middleware/harness.rs"]
mod harness;

use std::sync::{Arc, Mutex};

use harness::Service;

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

#[tokio::test(flavor = "current_thread")]
async fn one_log_line_per_request_with_method_route_status_latency_and_depot() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_ansi(false)
        .with_writer(move || writer.clone())
        .finish();
    let _default = tracing::subscriber::set_default(subscriber);
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
