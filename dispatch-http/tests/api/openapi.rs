//! The OpenAPI document (`GET /v2/openapi.json`): served without a key, valid OpenAPI 3.1, every
//! operation decorated alike, every body typed, and the contract check the harnesses run on
//! every response (its paths against the router: `openapi_paths`).

use std::collections::BTreeSet;
use std::fs;
use std::path::PathBuf;

use axum::http::Method;
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

pub async fn served_document(app: &TestApp) -> Value {
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
    // OpenAPI dialect of JSON Schema 2020-12 (the official files, vendored: tests/data/oas-3.1).
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
                "https://spec.openapis.org/oas/3.1/schema/2022-10-07",
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
    // And the check can fail: a document with a malformed operation does not validate, nor
    // one whose schema objects break JSON Schema, in components or inline in an operation.
    let mut broken = doc.clone();
    broken["paths"]["/depots"]["get"]["responses"] = json!("none");
    assert!(!validator.is_valid(&broken));
    let mut broken = doc.clone();
    broken["components"]["schemas"]["Envelope"]["required"] = json!("name");
    assert!(
        !validator.is_valid(&broken),
        "a component schema is checked"
    );
    let mut broken = doc.clone();
    broken["paths"]["/depots"]["get"]["responses"]["200"]["content"]["application/json"]
        ["schema"] = json!({"type": "strin"});
    assert!(!validator.is_valid(&broken), "an inline schema is checked");
}

/// The operations of a path item (its other members, such as `servers`, aside).
pub fn operations_of(item: &Value) -> impl Iterator<Item = (&String, &Value)> {
    item.as_object()
        .unwrap()
        .iter()
        .filter(|(key, _)| ["get", "put", "post", "delete", "patch"].contains(&key.as_str()))
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
            // The console's reads are behind the key only, not rate-limited.
            assert_eq!(
                op["x-rate-limit-tier"].is_string(),
                !path.starts_with("/console/"),
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
