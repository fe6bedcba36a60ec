use std::path::PathBuf;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use axum::Router;
use dispatch_adapters::images::Codec;
use dispatch_core::ports::clock::{Clock, ManualClock};
use dispatch_core::service::seed;
use dispatch_core::time::Timestamp;
use dispatch_http::keys::DerivedKeys;
use dispatch_http::{app, AppState};
use serde_json::{json, Value};

/// 2026-11-22T08:00:00.000Z
pub const START: i64 = 1_795_334_400_000;

pub const IK: &str = "idempotency-key";
pub const OPT_IN: (&str, &str) = ("x-svc-api-features", "rate-limit-429");
/// The default documentation URL is the service's own `/docs` under its public URL.
pub const DOCS_LINK: &str =
    "<http://dispatch.test/docs/features/rate-limit-429>; rel=\"deprecation\"";

// The crate root provides the shared test database and exchange modules (once per test binary).
use crate::test_db;

/// A running service: its database (a SQLite file, or PostgreSQL with `DISPATCH_TEST_DB`), its
/// clock and its keys.
pub struct Service {
    pub router: Router,
    pub clock: Arc<ManualClock>,
    path: PathBuf,
    rate_limits: bool,
    /// Two `all` keys of depot North and one `read` key.
    pub keys: [String; 3],
    _dir: tempfile::TempDir,
}

fn router(path: &std::path::Path, clock: Arc<ManualClock>, rate_limits: bool) -> Router {
    let service = test_db::open_service(path, Arc::new(|| {}));
    let state = AppState {
        rate_limits_enabled: rate_limits,
        public_url: dispatch_http::public_url::PublicUrl::parse("http://dispatch.test").unwrap(),
        ..AppState::new(
            service.store,
            clock,
            service.geocoder,
            service.idempotency,
            Arc::new(Codec),
        )
    };
    app(state)
}

impl Service {
    pub fn start(rate_limits: bool) -> Service {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("dispatch.db");
        let clock = Arc::new(ManualClock::new(Timestamp::from_millis(START)));
        let seed = json!({"organisations": [{"name": "Acme", "depots": [{
            "name": "North",
            "access_keys": [
                {"name": "a", "permission": "all"},
                {"name": "b", "permission": "all"},
                {"name": "r", "permission": "read"}
            ]
        }]}]});
        let out = {
            let store = test_db::open_store(&path);
            let seed = seed::parse(&seed.to_string()).expect("seed parses");
            test_db::off_runtime(|| seed::apply(&*store, &DerivedKeys, &seed, clock.now()))
                .expect("seed applies")
        };
        let key = |i: usize| {
            out["organisations"][0]["depots"][0]["access_keys"][i]["key"]
                .as_str()
                .expect("key")
                .to_owned()
        };
        Service {
            router: router(&path, clock.clone(), rate_limits),
            clock,
            keys: [key(0), key(1), key(2)],
            path,
            rate_limits,
            _dir: dir,
        }
    }

    /// The database file (for tests that lay data out through the store).
    #[allow(dead_code)] // Not every test binary including the harness does.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// The same database file and clock behind a freshly built application, as after a restart.
    pub fn restart(&mut self) {
        self.router = router(&self.path, self.clock.clone(), self.rate_limits);
    }

    pub fn advance_secs(&self, secs: i64) {
        self.clock.advance_millis(secs * 1000);
    }

    /// Sends `method path` with the first key, `headers` and a JSON body (if any).
    pub async fn call(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Option<&Value>,
    ) -> Resp {
        let mut b = Request::builder()
            .method(method)
            .uri(path)
            .header("host", "dispatch.test");
        if !headers.iter().any(|(k, _)| *k == "x-access-key") {
            b = b.header("x-access-key", &self.keys[0]);
        }
        for (k, v) in headers {
            b = b.header(*k, *v);
        }
        let request = match body {
            Some(body) => b
                .header("content-type", "application/json")
                .body(Body::from(body.to_string())),
            None => b.body(Body::empty()),
        };
        let (status, headers, bytes) =
            crate::exchange::exchange(&self.router, request.expect("request")).await;
        Resp {
            status,
            headers,
            raw: bytes.to_vec(),
        }
    }
}

impl Service {
    /// `GET path` with the first key and `headers`.
    pub async fn get(&self, path: &str, headers: &[(&str, &str)]) -> Resp {
        self.call("GET", path, headers, None).await
    }

    /// `POST path` of `body` with the first key and `headers`.
    pub async fn post(&self, path: &str, headers: &[(&str, &str)], body: &Value) -> Resp {
        self.call("POST", path, headers, Some(body)).await
    }

    /// `POST path` of `body` with the first key and idempotency key `key`.
    pub async fn send(&self, path: &str, key: &str, body: &Value) -> Resp {
        self.post(path, &[(IK, key)], body).await
    }
}

/// A response as received.
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub raw: Vec<u8>,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.raw).unwrap_or(Value::Null)
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .get(name)
            .map(|v| v.to_str().expect("ASCII header"))
    }

    #[track_caller]
    pub fn assert_replayed(&self) {
        assert_eq!(self.header("idempotency-replay"), Some("true"));
    }

    #[track_caller]
    pub fn assert_not_replayed(&self) {
        assert_eq!(self.header("idempotency-replay"), None);
    }

    #[track_caller]
    pub fn assert_no_deprecation_headers(&self) {
        for h in ["sunset", "deprecation", "link"] {
            assert_eq!(self.header(h), None, "{h}");
        }
    }

    /// Asserts the envelope with `status` and `name`.
    #[track_caller]
    pub fn assert_error(&self, status: u16, name: &str) -> Value {
        let body = self.json();
        assert_eq!(self.status.as_u16(), status, "{body:#}");
        assert_eq!(body["name"], name, "{body:#}");
        assert_eq!(body["statusCode"], status, "{body:#}");
        assert!(body["details"].is_object(), "{body:#}");
        body
    }
}

/// A valid vehicle write named `name`.
pub fn vehicle(name: &str) -> Value {
    json!({
        "name": name,
        "availability": "always",
        "start_location": "depot",
        "end_location": "depot"
    })
}
