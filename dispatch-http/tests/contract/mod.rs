//! The contract check of the test harnesses: every JSON response a test receives from a
//! documented path (`/v2`, the driver API, the tracking page) is validated against the schema
//! the OpenAPI document gives for its path, method and status, so the whole HTTP suite holds
//! the service to its document (objects are closed: a property the document does not name
//! fails); a response of another type must be one the document names for that status. Shared
//! by `dispatch-http/tests/*` and the root `tests/` (`#[path]`-included).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use jsonschema::{Draft, Validator};
use serde_json::{json, Map, Value};

/// The path of the server a documented path is served under (`/v2`, or `` for the paths
/// carrying their own server `/`): a path item's `servers` win over the document's.
pub fn server_base<'d>(doc: &'d Value, template: &str) -> &'d str {
    let servers = match &doc["paths"][template]["servers"] {
        Value::Array(servers) => servers,
        _ => doc["servers"].as_array().expect("the document's servers"),
    };
    servers[0]["url"]
        .as_str()
        .expect("a server url")
        .trim_end_matches('/')
}

/// The document's path (its key in `paths`) that the full `path` (no query) matches, under its
/// server: literal segments win over parameters, as in the router.
pub fn template_of<'d>(doc: &'d Value, path: &str) -> Option<&'d str> {
    let segments: Vec<&str> = path.split('/').collect();
    doc["paths"]
        .as_object()?
        .keys()
        .filter_map(|template| {
            let full = format!("{}{template}", server_base(doc, template));
            let parts: Vec<&str> = full.split('/').collect();
            if parts.len() != segments.len() {
                return None;
            }
            let mut literal = 0;
            for (part, segment) in parts.iter().zip(&segments) {
                if part.starts_with('{') && part.ends_with('}') {
                    if segment.is_empty() {
                        return None;
                    }
                } else if part == segment {
                    literal += 1;
                } else {
                    return None;
                }
            }
            Some((literal, template.as_str()))
        })
        .max_by_key(|(literal, _)| *literal)
        .map(|(_, template)| template)
}

fn resolve<'d>(doc: &'d Value, node: &'d Value) -> &'d Value {
    match node["$ref"].as_str() {
        Some(pointer) => resolve(
            doc,
            doc.pointer(pointer.trim_start_matches('#'))
                .unwrap_or(&Value::Null),
        ),
        None => node,
    }
}

/// The response `status` of `method` on `template` as documented (references resolved); `Err`
/// when the document does not document that response at all.
pub fn response<'d>(
    doc: &'d Value,
    template: &str,
    method: &str,
    status: u16,
) -> Result<&'d Value, String> {
    let op = &doc["paths"][template][method.to_lowercase()];
    if op.is_null() {
        return Err(format!("{method} {template} is not in the document"));
    }
    let responses = &op["responses"];
    let response = [
        status.to_string(),
        format!("{}XX", status / 100),
        "default".into(),
    ]
    .iter()
    .find_map(|key| responses.get(key))
    .ok_or_else(|| format!("{method} {template} does not document status {status}"))?;
    Ok(resolve(doc, response))
}

/// The JSON schema of the response `status` of `method` on `template`; `Err` when the
/// document does not document that response at all, `Ok(None)` when it has no JSON body.
pub fn response_schema(
    doc: &Value,
    template: &str,
    method: &str,
    status: u16,
) -> Result<Option<Value>, String> {
    let response = response(doc, template, method, status)?;
    Ok(response["content"]["application/json"]
        .get("schema")
        .cloned())
}

/// The documented path and method a request reached, if its path is documented and the
/// method is one of it (`HEAD` counts as `GET`).
fn operation<'d>(doc: &'d Value, method: &str, uri: &str) -> Option<(&'d str, String)> {
    let path = uri.split('?').next().unwrap_or(uri);
    let template = template_of(doc, path)?;
    let method = if method.eq_ignore_ascii_case("HEAD") {
        "get".to_owned()
    } else {
        method.to_lowercase()
    };
    (!doc["paths"][template][&method].is_null()).then_some((template, method))
}

/// Checks a response that is not JSON (a page, an image, an event stream): the document must
/// name its status with that media type.
pub fn check_media_type(
    doc: &Value,
    method: &str,
    uri: &str,
    status: u16,
    content_type: &str,
) -> Result<(), String> {
    let Some((template, method)) = operation(doc, method, uri) else {
        return Ok(());
    };
    let documented = response(doc, template, &method, status)?;
    let media = content_type.split(';').next().unwrap_or_default().trim();
    if documented["content"].get(media).is_some() {
        Ok(())
    } else {
        Err(format!(
            "{method} {uri} -> {status} answered {media}, which the document does not name \
             ({template}: {})",
            documented["content"]
        ))
    }
}

/// A validator of `schema` whose `#/components/...` references resolve in `doc`.
pub fn validator(doc: &Value, schema: &Value) -> Validator {
    let mut root: Map<String, Value> = match schema {
        Value::Object(map) => map.clone(),
        other => {
            return jsonschema::options()
                .with_draft(Draft::Draft202012)
                .build(other)
                .expect("schema")
        }
    };
    root.insert("components".into(), doc["components"].clone());
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .build(&Value::Object(root))
        .expect("a documented schema compiles")
}

/// Checks one response against `doc`; `Err` says what does not match.
pub fn check_against(
    doc: &Value,
    method: &str,
    uri: &str,
    status: u16,
    body: &Value,
) -> Result<(), String> {
    static CACHE: OnceLock<Mutex<HashMap<String, Arc<Validator>>>> = OnceLock::new();
    let Some((template, method)) = operation(doc, method, uri) else {
        // Unknown paths and methods answer the 404 and 405 envelopes.
        let path = uri.split('?').next().unwrap_or(uri);
        return if path.starts_with("/v2/") || path.starts_with("/driver/") {
            check_envelope(status, body)
        } else {
            Ok(())
        };
    };
    let method = method.as_str();
    let Some(schema) = response_schema(doc, template, method, status)? else {
        return Ok(());
    };
    let key = format!(
        "{}|{template}|{method}|{status}|{schema}",
        doc as *const Value as usize
    );
    let validator = {
        let mut cache = CACHE.get_or_init(Default::default).lock().unwrap();
        cache
            .entry(key)
            .or_insert_with(|| Arc::new(validator(doc, &schema)))
            .clone()
    };
    validate(&validator, body, || {
        format!("{method} {uri} -> {status} does not match the OpenAPI document ({template})")
    })
}

/// `Err` listing every place `value` breaks the schema of `validator`, after `what`.
fn validate(
    validator: &Validator,
    value: &Value,
    what: impl FnOnce() -> String,
) -> Result<(), String> {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("at {}: {e}", e.instance_path()))
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(format!("{}:\n  {}", what(), errors.join("\n  ")))
    }
}

fn check_envelope(status: u16, body: &Value) -> Result<(), String> {
    let ok = body["statusCode"] == json!(status)
        && body["name"].is_string()
        && body["description"].is_string()
        && body["details"].is_object();
    if ok || (200..300).contains(&status) {
        Ok(())
    } else {
        Err(format!("not an error envelope ({status}): {body}"))
    }
}

/// Checks the `data` of one event of the event stream `GET uri` against the schema the
/// document names for that event (`x-sse-events`); an event it does not name fails.
pub fn check_event(doc: &Value, uri: &str, event: &str, data: &Value) -> Result<(), String> {
    let (template, method) =
        operation(doc, "GET", uri).ok_or_else(|| format!("GET {uri} is not in the document"))?;
    let schema = doc["paths"][template][&method]["x-sse-events"]
        .get(event)
        .ok_or_else(|| format!("GET {uri}: the document names no event {event:?}"))?;
    validate(&validator(doc, schema), data, || {
        format!("GET {uri}: event {event} does not match the OpenAPI document")
    })
}

/// Checks one response from the service against the served document; panics with what does not
/// match.
#[track_caller]
pub fn check(method: &str, uri: &str, status: u16, body: &Value) {
    if let Err(e) = check_against(
        dispatch_http::openapi::document(),
        method,
        uri,
        status,
        body,
    ) {
        panic!("{e}");
    }
}

/// [`check`] for a response as received: a JSON body against its schema, another body by its
/// media type (empty bodies have nothing to hold).
#[track_caller]
pub fn check_bytes(method: &str, uri: &str, status: u16, content_type: Option<&str>, body: &[u8]) {
    if body.is_empty() {
        return;
    }
    if let Some(other) = content_type.filter(|c| !c.starts_with("application/json")) {
        let doc = dispatch_http::openapi::document();
        if let Err(e) = check_media_type(doc, method, uri, status, other) {
            panic!("{e}");
        }
        return;
    }
    if content_type.is_none() {
        return;
    }
    let Ok(body) = serde_json::from_slice::<Value>(body) else {
        panic!("{method} {uri} -> {status}: a JSON content type with a body that is not JSON");
    };
    check(method, uri, status, &body);
}
