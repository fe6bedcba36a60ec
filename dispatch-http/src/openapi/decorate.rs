//! What every operation of the document shares, added once from the tables the middleware
//! itself uses, so the document says what the layers do.

use axum::http::Method;
use serde_json::{json, Map, Value};

use std::collections::BTreeMap;

use super::Mount;
use crate::driver::bodies::LAT_LNG_PAIRED;
use crate::driver::EVENT_SCHEMAS;
use crate::middleware::idempotency::IDEMPOTENT_ENDPOINTS;
use crate::middleware::rate_limit::{tier_of, Tier};
use crate::middleware::RouteKey;
use crate::v2::registry::Alias;
use crate::v2::request_shapes::{close_bodies, close_objects};

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

/// Adds the shared components, the aliases (the trailing-slash spellings the spec names), each operation's headers, tier and error answers,
/// and closes every object schema (`additionalProperties: false`: responses carry exactly the
/// documented properties; the contract test holds the service to it).
pub fn decorate(doc: &mut Value, aliases: &[Alias], mounts: &BTreeMap<String, Mount>) {
    add_components(doc);
    doc["security"] = json!([{ "accessKey": [] }]);
    let paths = doc["paths"].as_object_mut().expect("paths");
    for Alias { alias, path } in aliases {
        let mut item = paths[path].clone();
        for method in METHODS {
            if let Some(id) = item[method]["operationId"].as_str() {
                item[method]["operationId"] = json!(format!("{id}_slash"));
            }
        }
        paths.insert((*alias).to_owned(), item);
    }
    for (path, item) in paths.iter_mut() {
        let mount = mounts.get(path).copied().unwrap_or(Mount::V2);
        if mount != Mount::V2 {
            item["servers"] = json!([{ "url": "/", "description": "this server, beside /v2" }]);
        }
        for method in METHODS {
            if let Some(op) = item.get_mut(method).and_then(Value::as_object_mut) {
                decorate_operation(path, method, op, mount);
            }
        }
    }
    distinguish_methods(paths);
    paths.insert(super::DOCUMENT_PATH.to_owned(), document_operation());
    doc["components"]["schemas"]["ErrorDetails"]["additionalProperties"] = json!(true);
    // Request bodies are closed only where the endpoint refuses unknown properties; the body
    // readers apply the same rules.
    if let Some(schemas) = doc["components"]["schemas"].as_object_mut() {
        close_bodies(schemas);
    }
    // An event stream's content has no schema of its own in OpenAPI 3.1: each event's `data`
    // is named here, and the driver feed tests hold the stream to it.
    doc["paths"]["/driver/events"]["get"]["x-sse-events"] = EVENT_SCHEMAS
        .iter()
        .map(|(event, schema)| {
            (
                (*event).to_owned(),
                json!({ "$ref": format!("#/components/schemas/{schema}") }),
            )
        })
        .collect::<Map<String, Value>>()
        .into();
    for name in LAT_LNG_PAIRED {
        doc["components"]["schemas"][name]["dependentRequired"] =
            json!({ "lat": ["lng"], "lng": ["lat"] });
    }
    close_objects(doc);
}

fn header(description: &str) -> Value {
    json!({ "description": description, "schema": { "type": "string" } })
}

fn error_response(description: &str, headers: &[&str]) -> Value {
    let headers: Map<String, Value> = headers
        .iter()
        .map(|h| {
            (
                (*h).to_owned(),
                json!({ "$ref": format!("#/components/headers/{h}") }),
            )
        })
        .collect();
    json!({
        "description": description,
        "headers": headers,
        "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Envelope" } } },
    })
}

fn add_components(doc: &mut Value) {
    let components = &mut doc["components"];
    components["securitySchemes"] = json!({
        "accessKey": {
            "type": "apiKey", "in": "header", "name": "x-access-key",
            "description": "A depot's access key (`dispatch seed` or `dispatch keys create` \
                prints it). Missing or unknown: 401 UNAUTHORIZED; a `read` key on a write: \
                403 PERMISSION.",
        },
        "driverCredential": {
            "type": "apiKey", "in": "header", "name": "x-access-key",
            "description": "A driver credential (`drv_` and 64 hex digits), created for a \
                vehicle with `POST /v2/vehicles/{id}/driver-credentials` and shown once. \
                Missing, unknown or revoked: 401 UNAUTHORIZED; a depot access key: 403 \
                PERMISSION.",
        }
    });
    components["parameters"] = json!({
        "Features": {
            "name": "x-svc-api-features", "in": "header", "required": false,
            "description": "Opt-in feature tokens, comma-separated, case-insensitive; unknown \
                tokens are ignored. `rate-limit-429`: rate-limit exhaustion answers 429 \
                RATE_LIMIT_EXCEEDED instead of 403 FORBIDDEN.",
            "schema": { "type": "string" },
            "example": "rate-limit-429",
        },
        "IdempotencyKey": {
            "name": "idempotency-key", "in": "header", "required": false,
            "description": "1 to 255 characters, scoped per access key and endpoint, kept 24 \
                hours. A retry with the same key and body answers the original status and body \
                with `idempotency-replay: true`; another body: 422; while the first runs: 409.",
            "schema": { "type": "string", "minLength": 1, "maxLength": 255 },
        },
    });
    components["headers"] = json!({
        "RetryAfter": {
            "description": "Seconds to wait before retrying.",
            "schema": { "type": "integer", "minimum": 0 },
        },
        "FeaturesApplied": header("`x-svc-api-features-applied`: the feature tokens applied to \
            this request, comma-separated; absent when none applied."),
        "RequestId": header("`x-request-id`: this request's id (also in the server's log line)."),
        "Sunset": header("While a feature token is in its notice period, to callers not using \
            it (RFC 8594), e.g. `Wed, 01 Mar 2028 00:00:00 GMT`."),
        "Deprecation": header("While a feature token is in its notice period, to callers not \
            using it (RFC 9745), e.g. `@1818720000`."),
        "Link": header("`rel=\"next\"`: the next page of a list (its URL carries `page_info`, \
            `limit` and the filters; absent on the last page); `rel=\"deprecation\"`: the \
            feature documentation, during a token's notice period."),
        "IdempotencyReplay": header("`true` on a replayed response."),
    });
    let responses = json!({
        "Unauthorized": error_response("UNAUTHORIZED: missing or unknown `x-access-key`.", &[]),
        "DriverUnauthorized": error_response(
            "UNAUTHORIZED: a missing, unknown or revoked driver credential.",
            &[],
        ),
        "DriverForbidden": error_response(
            "FORBIDDEN: the rate limit of the endpoint's tier was hit for this credential (with \
             `Retry-After` and `details.retry_after_seconds`); or PERMISSION: a depot access \
             key was sent instead of a driver credential.",
            &["RetryAfter"],
        ),
        "Forbidden": error_response(
            "FORBIDDEN: the rate limit of the endpoint's tier was hit (with `Retry-After` and \
             `details.retry_after_seconds`); or PERMISSION: the key may not do this (a `read` \
             key on a write).",
            &["RetryAfter"],
        ),
        "TooManyRequests": error_response(
            "RATE_LIMIT_EXCEEDED: the rate limit was hit and the `rate-limit-429` feature token \
             was sent.",
            &["RetryAfter"],
        ),
        "IdempotencyInProgress": error_response(
            "IDEMPOTENCY_REQUEST_IN_PROGRESS: a request with this `idempotency-key` is still \
             running; or another conflict named by the endpoint.",
            &["RetryAfter"],
        ),
        "IdempotencyReused": error_response(
            "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_BODY.",
            &[],
        ),
        "Error": error_response(
            "Any other error: 400 INVALID_INPUT (malformed JSON, wrong content type, an \
             oversized body, a non-numeric id), 404 RESOURCE_NOT_FOUND, 405, 500, 503.",
            &[],
        ),
    });
    components["responses"] = responses;
}

fn tier_text(tier: Tier) -> String {
    let [minute, burst] = tier.windows();
    let burst_period = match burst.period_ms {
        1_000 => "per second".to_owned(),
        ms => format!("per {} s", ms / 1_000),
    };
    format!(
        "Rate tier: **{tier}** ({} per minute, at most {} {burst_period}).",
        minute.limit, burst.limit
    )
}

/// Operation ids must be unique in a document (client generators name methods after them,
/// Swagger UI its elements); utoipa takes the handler's name, which repeats across modules
/// (`list`, `read`), so it is prefixed with the operation's tag.
fn qualify_operation_id(op: &mut Map<String, Value>) {
    let tag = op["tags"][0]
        .as_str()
        .unwrap_or("v2")
        .replace([' ', '-'], "_");
    if let Some(id) = op.get("operationId").and_then(Value::as_str) {
        if !id.starts_with(&format!("{tag}_")) {
            let id = format!("{tag}_{id}");
            op.insert("operationId".into(), json!(id));
        }
    }
}

/// One handler serving two methods (PUT and PATCH) has one name: the method tells them apart.
fn distinguish_methods(paths: &mut Map<String, Value>) {
    let mut seen = std::collections::BTreeMap::<String, usize>::new();
    for item in paths.values() {
        for method in METHODS {
            if let Some(id) = item[method]["operationId"].as_str() {
                *seen.entry(id.to_owned()).or_default() += 1;
            }
        }
    }
    for item in paths.values_mut() {
        for method in METHODS {
            if let Some(id) = item[method]["operationId"].as_str() {
                if seen[id] > 1 {
                    item[method]["operationId"] = json!(format!("{id}_{method}"));
                }
            }
        }
    }
}

fn decorate_operation(path: &str, method: &str, op: &mut Map<String, Value>, mount: Mount) {
    let verb = Method::from_bytes(method.to_uppercase().as_bytes()).expect("a method");
    let idempotent = mount == Mount::V2
        && verb == Method::POST
        && IDEMPOTENT_ENDPOINTS.contains(&path.trim_end_matches('/'));
    qualify_operation_id(op);
    match mount {
        Mount::V2 | Mount::Keyed => {}
        Mount::Driver => {
            op.insert("security".into(), json!([{ "driverCredential": [] }]));
        }
        Mount::Public => {
            op.insert("security".into(), json!([]));
        }
    }
    let parameters = op.entry("parameters").or_insert_with(|| json!([]));
    let parameters = parameters.as_array_mut().expect("parameters");
    parameters.push(json!({ "$ref": "#/components/parameters/Features" }));
    if idempotent {
        parameters.push(json!({ "$ref": "#/components/parameters/IdempotencyKey" }));
    }
    if let Some(tier) = tier_of(&RouteKey::new(verb, path)) {
        let text = tier_text(tier);
        let description = match op.get("description").and_then(Value::as_str) {
            Some(d) => format!("{d}\n\n{text}"),
            None => text,
        };
        op.insert("description".into(), json!(description));
        op.insert("x-rate-limit-tier".into(), json!(tier.to_string()));
    }
    let responses = op
        .entry("responses")
        .or_insert_with(|| json!({}))
        .as_object_mut()
        .expect("responses");
    for (status, response) in responses.iter_mut() {
        let headers = response
            .as_object_mut()
            .expect("a response")
            .entry("headers")
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .expect("headers");
        for (wire, name) in [
            ("x-svc-api-features-applied", "FeaturesApplied"),
            ("x-request-id", "RequestId"),
            ("sunset", "Sunset"),
            ("deprecation", "Deprecation"),
            ("link", "Link"),
        ] {
            headers
                .entry(wire)
                .or_insert_with(|| json!({ "$ref": format!("#/components/headers/{name}") }));
        }
        if idempotent && status.starts_with('2') {
            headers.insert(
                "idempotency-replay".into(),
                json!({ "$ref": "#/components/headers/IdempotencyReplay" }),
            );
        }
    }
    let shared: &[(&str, &str)] = match mount {
        Mount::V2 => &[
            ("401", "Unauthorized"),
            ("403", "Forbidden"),
            ("429", "TooManyRequests"),
            ("default", "Error"),
        ],
        Mount::Driver => &[
            ("401", "DriverUnauthorized"),
            ("403", "DriverForbidden"),
            ("429", "TooManyRequests"),
            ("default", "Error"),
        ],
        // Outside the API's layers: each answer is documented by its handler.
        Mount::Public => &[],
        // Behind the access-key layer only (no rate limit).
        Mount::Keyed => &[("401", "Unauthorized"), ("default", "Error")],
    };
    for &(status, name) in shared {
        responses
            .entry(status)
            .or_insert_with(|| json!({ "$ref": format!("#/components/responses/{name}") }));
    }
    if idempotent {
        for (status, name) in [
            ("409", "IdempotencyInProgress"),
            ("422", "IdempotencyReused"),
        ] {
            responses
                .entry(status)
                .or_insert_with(|| json!({ "$ref": format!("#/components/responses/{name}") }));
        }
    }
}

/// `GET /openapi.json` itself: no key, no rate limit.
fn document_operation() -> Value {
    json!({
        "get": {
            "tags": ["documentation"],
            "operationId": "openapi_document",
            "summary": "This document (OpenAPI 3.1).",
            "description": "Served without an access key and outside the rate limits.",
            "security": [],
            "parameters": [{ "$ref": "#/components/parameters/Features" }],
            "responses": {
                "default": { "$ref": "#/components/responses/Error" },
                "200": {
                    "description": "The OpenAPI 3.1 document of the v2 API.",
                    "content": { "application/json": { "schema": { "type": "object" } } },
                },
            },
        }
    })
}
