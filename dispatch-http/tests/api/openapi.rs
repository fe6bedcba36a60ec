//! The OpenAPI document (`GET /v2/openapi.json`), the `/docs` page, and the contract check the
//! harnesses run on every response.

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use axum::body::Body;
use axum::http::{Method, Request};
use jsonschema::{Draft, Registry, Resource};
use serde_json::{json, Value};

use crate::common::TestApp;
use crate::contract;

fn data(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/oas-3.1")
        .join(name);
    serde_json::from_str(&fs::read_to_string(&path).expect("vendored schema")).expect("JSON")
}

async fn served_document(app: &TestApp) -> Value {
    let r = app.call(Method::GET, "/v2/openapi.json", None, None).await;
    assert_eq!(r.status, 200, "{:#}", r.body);
    r.body
}

#[tokio::test]
async fn the_document_is_served_without_a_key_and_is_openapi_3_1() {
    let app = TestApp::new();
    let doc = served_document(&app).await;
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["info"]["version"], "2.0.0");
    assert_eq!(&doc, dispatch_http::openapi::document());
    // No rate limit applies: far more calls than any tier allows in a second all succeed.
    for _ in 0..20 {
        let r = app.call(Method::GET, "/v2/openapi.json", None, None).await;
        assert_eq!(r.status, 200);
    }
}

#[tokio::test]
async fn the_document_validates_against_the_openapi_3_1_schema() {
    let app = TestApp::new();
    let doc = served_document(&app).await;
    // schema-base: the OpenAPI 3.1 structure, and every schema object checked against the
    // OpenAPI dialect of JSON Schema 2020-12 (the official files, vendored).
    let base = data("schema-base.json");
    let registry = Registry::new()
        .add(
            "https://spec.openapis.org/oas/3.1/dialect/base",
            Resource::from_contents(data("dialect/base.schema.json")),
        )
        .and_then(|r| {
            r.add(
                "https://spec.openapis.org/oas/3.1/meta/base",
                Resource::from_contents(data("meta/base.schema.json")),
            )
        })
        .and_then(|r| {
            r.add(
                "https://spec.openapis.org/oas/3.1/schema/2021-04-15",
                Resource::from_contents(data("schema.json")),
            )
        })
        .and_then(|r| r.prepare())
        .expect("registry");
    let validator = jsonschema::options()
        .with_draft(Draft::Draft202012)
        .with_registry(&registry)
        .build(&base)
        .expect("the OpenAPI 3.1 schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .take(20)
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // And the check can fail: a document with a malformed operation does not validate.
    let mut broken = doc.clone();
    broken["paths"]["/depots"]["get"]["responses"] = json!("none");
    assert!(!validator.is_valid(&broken));
}

/// The operations of a path item (its other members, such as `servers`, aside).
fn operations_of(item: &Value) -> impl Iterator<Item = (&String, &Value)> {
    item.as_object()
        .unwrap()
        .iter()
        .filter(|(key, _)| ["get", "put", "post", "delete", "patch"].contains(&key.as_str()))
}

/// Every path the router serves through the documented groups (`/v2`, the driver API, the
/// tracking page, `/healthz` and `/metrics`, the console's depot read), in full: the
/// registrations it is built from (`openapi::groups()`; a route can join them only through
/// `ApiRoutes`, which takes handlers with their `#[utoipa::path]`), not a hand-written list.
fn served_paths() -> BTreeSet<String> {
    dispatch_http::openapi::served_paths().into_iter().collect()
}

/// The document's paths in full: each under its server (`/v2`, or `/` for the driver and
/// tracking paths), as "Try it out" and client generators call them.
fn documented_paths(doc: &Value) -> BTreeSet<String> {
    doc["paths"]
        .as_object()
        .unwrap()
        .keys()
        .map(|key| format!("{}{key}", contract::server_base(doc, key)))
        .collect()
}

#[tokio::test]
async fn every_route_the_router_serves_is_documented_and_nothing_else() {
    let app = TestApp::new();
    let doc = served_document(&app).await;
    let documented = documented_paths(&doc);
    let served = served_paths();
    assert!(served.len() > 60, "{served:?}");
    for expected in [
        "/driver/me",
        "/track/{token}",
        "/healthz",
        "/metrics",
        "/console/depot",
    ] {
        assert!(served.contains(expected), "{expected}");
    }
    assert_eq!(served, documented, "paths served vs documented");
    // The rest of the router is pages (`/docs`, `/console` and their embedded files): none is
    // an API path, and each serves a page or a file, not JSON.
    let pages = dispatch_http::openapi::pages();
    assert!(pages.len() >= 7, "{pages:?}");
    for page in &pages {
        assert!(
            !documented.contains(page),
            "{page} is a page and documented"
        );
        let uri = page.replace("{*path}", "console.css");
        let request = Request::builder()
            .uri(uri.as_str())
            .body(Body::empty())
            .unwrap();
        let response = tower::ServiceExt::oneshot(app.router.clone(), request)
            .await
            .unwrap();
        let status = response.status().as_u16();
        assert!(status == 200 || status == 308, "{page}: {status}");
        if status == 200 {
            let kind = response.headers()["content-type"].to_str().unwrap();
            assert!(!kind.starts_with("application/json"), "{page}: {kind}");
        }
    }
    // Methods: a documented one reaches the route (401 without a key or credential, 200 for
    // the document, the tracking page's 404 for an unknown token), an undocumented one gets
    // the router's 405.
    for key in doc["paths"].as_object().unwrap().keys() {
        let path = format!("{}{key}", contract::server_base(&doc, key));
        let concrete = path
            .replace("{status}", "RETURNED")
            .replace("{order_number}", "A-1");
        let concrete = concrete
            .split('/')
            .map(|s| if s.starts_with('{') { "1" } else { s })
            .collect::<Vec<_>>()
            .join("/");
        for method in ["get", "put", "post", "delete", "patch"] {
            let mut request = Request::builder()
                .method(method.to_uppercase().as_str())
                .uri(concrete.as_str());
            // The console's read checks the key before the method: with the key it answers
            // 200, and 405 for the other methods.
            let keyed = path == "/console/depot";
            if keyed {
                request = request.header("x-access-key", app.north());
            }
            let request = request.body(Body::empty()).unwrap();
            // Not through `app.send`: the tracking page answers HTML.
            let status = tower::ServiceExt::oneshot(app.router.clone(), request)
                .await
                .unwrap()
                .status()
                .as_u16();
            let documented = doc["paths"][key].get(method).is_some();
            if documented {
                let public = ((keyed
                    || ["/v2/openapi.json", "/healthz", "/metrics"].contains(&path.as_str()))
                    && status == 200)
                    || (path == "/track/{token}" && status == 404);
                assert!(
                    status == 401 || (public && method == "get"),
                    "{method} {path}: {status}"
                );
            } else {
                assert_eq!(status, 405, "{method} {path} is served but not documented");
            }
        }
    }
}

/// "Try it out" and generated clients call a path at its server: the paths outside `/v2`
/// (driver API, tracking page, `/healthz`, `/metrics`, `/console/depot`) carry their own
/// (`/`), so they are not sent under `/v2`; the `/v2` ones use the document's.
#[tokio::test]
async fn paths_outside_v2_carry_the_server_they_are_served_at() {
    let app = TestApp::new();
    let doc = served_document(&app).await;
    assert_eq!(doc["servers"][0]["url"], "/v2");
    let mut under_v2 = dispatch_http::v2::api().served_paths();
    under_v2.push(dispatch_http::openapi::DOCUMENT_PATH.to_owned());
    for (key, item) in doc["paths"].as_object().unwrap() {
        let own = item["servers"][0]["url"].as_str();
        if under_v2.contains(key) {
            assert_eq!(own, None, "{key}");
        } else {
            assert_eq!(own, Some("/"), "{key}");
        }
    }
    // Served where documented: the driver API answers its own 401 at /driver/me, and nothing
    // is served at /v2/driver/me.
    let r = app.call(Method::GET, "/driver/me", None, None).await;
    assert_eq!(r.status, 401, "{:#}", r.body);
    let r = app.call(Method::GET, "/v2/driver/me", None, None).await;
    assert_eq!(r.status, 404, "{:#}", r.body);
}

#[tokio::test]
async fn every_operation_names_its_errors_headers_and_tier() {
    let app = TestApp::new();
    let doc = served_document(&app).await;
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in operations_of(item) {
            operations += 1;
            let params = op["parameters"].to_string();
            assert!(
                params.contains("#/components/parameters/Features"),
                "{method} {path}"
            );
            if path == "/track/{token}" {
                // HTML whatever the outcome.
                for response in op["responses"].as_object().unwrap().values() {
                    assert!(response["content"]["text/html"].is_object(), "{response}");
                }
            }
            if ["/track/{token}", "/healthz", "/metrics"].contains(&path.as_str()) {
                // Public, outside the API's layers: no key, no tier.
                assert_eq!(op["security"], json!([]), "{method} {path}");
                assert!(op.get("x-rate-limit-tier").is_none(), "{method} {path}");
                continue;
            }
            assert!(op["responses"]["default"].is_object(), "{method} {path}");
            if path == "/openapi.json" {
                assert_eq!(op["security"], json!([]));
                continue;
            }
            assert!(op["responses"]["401"].is_object(), "{method} {path}");
            // The console's depot read is behind the key only, not rate-limited.
            assert_eq!(
                op["x-rate-limit-tier"].is_string(),
                path != "/console/depot",
                "{method} {path}"
            );
            let driver = path.starts_with("/driver/");
            let scheme = if driver {
                "driverCredential"
            } else {
                "accessKey"
            };
            let security = if driver {
                &op["security"]
            } else {
                &doc["security"]
            };
            assert_eq!(security, &json!([{ scheme: [] }]), "{method} {path}");
            assert!(
                driver || op.get("security").is_none(),
                "{method} {path} overrides the key"
            );
            let idempotent = dispatch_http::middleware::idempotency::IDEMPOTENT_ENDPOINTS
                .contains(&path.trim_end_matches('/'))
                && method == "post";
            assert_eq!(
                params.contains("IdempotencyKey"),
                idempotent,
                "{method} {path}"
            );
        }
    }
    assert!(operations > 70, "{operations}");
    let mut ids = BTreeSet::new();
    for item in doc["paths"].as_object().unwrap().values() {
        for (_, op) in operations_of(item) {
            let id = op["operationId"].as_str().expect("an operationId");
            assert!(ids.insert(id.to_owned()), "operationId {id} is not unique");
        }
    }
    for scheme in ["accessKey", "driverCredential"] {
        assert_eq!(
            doc["components"]["securitySchemes"][scheme]["name"],
            "x-access-key"
        );
    }
    let envelope = &doc["components"]["schemas"]["Envelope"];
    assert_eq!(
        envelope["required"],
        json!(["name", "statusCode", "description", "details"])
    );
}

#[test]
fn the_contract_check_catches_an_undocumented_field() {
    let doc = dispatch_http::openapi::document();
    let depots = json!({"depots": [{"id": 1, "name": "North", "created": "2026-11-22T08:00:00.000Z", "updated": "2026-11-22T08:00:00.000Z"}]});
    contract::check_against(doc, "GET", "/v2/depots", 200, &depots).expect("as documented");
    let mut extra = depots.clone();
    extra["depots"][0]["secret"] = json!("x");
    let error = contract::check_against(doc, "GET", "/v2/depots", 200, &extra).unwrap_err();
    assert!(error.contains("secret"), "{error}");
    let mut missing = depots.clone();
    missing["depots"][0].as_object_mut().unwrap().remove("name");
    assert!(contract::check_against(doc, "GET", "/v2/depots", 200, &missing).is_err());
    let wrong_type =
        json!({"depots": [{"id": "1", "name": "North", "created": "x", "updated": "x"}]});
    assert!(contract::check_against(doc, "GET", "/v2/depots", 200, &wrong_type).is_err());
    // Errors are held to the envelope, on every path.
    let bare = json!({"error": "nope"});
    assert!(contract::check_against(doc, "GET", "/v2/depots", 404, &bare).is_err());
    assert!(contract::check_against(doc, "GET", "/v2/nowhere", 404, &bare).is_err());
}

#[tokio::test]
async fn every_body_is_typed_except_the_solver_problem() {
    let app = TestApp::new();
    let doc = served_document(&app).await;
    let typed = |schema: &Value| schema.get("$ref").is_some() || schema.get("type").is_some();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in operations_of(item) {
            if let Some(body) = op.get("requestBody") {
                for (kind, content) in body["content"].as_object().unwrap() {
                    assert!(typed(&content["schema"]), "{method} {path} request {kind}");
                }
            }
            for (status, response) in op["responses"].as_object().unwrap() {
                let schema = &response["content"]["application/json"]["schema"];
                let untyped_on_purpose =
                    path == "/plans/optimise/{id}/problem" || path == "/openapi.json";
                if status.starts_with('2') && !schema.is_null() && !untyped_on_purpose {
                    assert!(typed(schema), "{method} {path} {status}: {schema}");
                }
            }
        }
    }
}
