//! The documented request bodies against the handlers that read them. Handlers read bodies
//! property by property (per-field errors, absent vs null), not by deserialising the
//! documented types, so this walks every JSON request body of the document and proves, on the
//! real router, that the handler takes exactly what the document says:
//! - a body with every documented property (type-correct values) draws no `invalid_type` and
//!   no `unrecognized_keys` issue: nothing documented is refused;
//! - each documented property sent with a value of another type is refused at its path: the
//!   handler reads it, with the documented type (an ignored property would pass silently);
//! - each property the schema requires (or that a property sent depends on,
//!   `dependentRequired`), when left out, is reported at its path, and any other property never
//!   draws a `required` issue;
//! - an undocumented property is refused at its path where the schema is closed
//!   (`additionalProperties: false`) and never where it is open;
//! - an open object is sent every property name the document knows elsewhere, with values of
//!   the wrong type for any reader: none may be refused, or the handler reads a property its
//!   schema does not list (closed ones take their accepted names from the schema itself).
//!
//! Properties marked `readOnly` are the read-only fields a client may send back unchanged: they
//! are accepted and ignored, whatever their value. The driver API's bodies are walked the same
//! way, with a driver credential, at the path their server gives them (`/driver/...`). The
//! schema helpers are in `schema.rs`.

mod schema;

use axum::http::Method;
use std::collections::BTreeSet;
use std::future::Future;

use serde_json::{json, Value};

use crate::common::{Resp, TestApp};
use schema::{at_mut, closed, flat, needed, objects, pointer, property_names, sample, wrong};

/// A property name no schema has.
const UNDOCUMENTED: &str = "undocumented_property";

fn issues(response: &Value) -> Vec<Value> {
    response["details"]["validationErrors"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

/// The issues at `path` or inside it.
fn issues_at(response: &Value, path: &[Value]) -> Vec<Value> {
    issues(response)
        .into_iter()
        .filter(|i| {
            i["path"]
                .as_array()
                .is_some_and(|p| p.len() >= path.len() && p[..path.len()] == *path)
        })
        .collect()
}

/// An open object ignores unknown properties, so reading one the schema does not list goes
/// unseen by the other checks. Every name documented anywhere else is sent at once, first as
/// a number (refused by a reader of text), then as text (refused by every other reader): an
/// issue at one of them means the handler reads it although this schema does not say so.
async fn undocumented_reads<F, Fut>(
    send: &F,
    name: &str,
    base: &Value,
    at: &[Value],
    schema: &Value,
    candidates: &BTreeSet<String>,
) -> Vec<String>
where
    F: Fn(Value) -> Fut,
    Fut: Future<Output = Resp>,
{
    let documented = |key: &str| schema["properties"].get(key).is_some();
    let undocumented: Vec<&String> = candidates.iter().filter(|c| !documented(c)).collect();
    let mut found = BTreeSet::new();
    // In runs that stay under the cap on issues one answer reports; a refusal as unknown
    // (`unrecognized_keys`) is not a read (the open-schema check above reports it).
    for run in undocumented.chunks(40) {
        for value in [json!(12), json!("text")] {
            let mut body = base.clone();
            let object = at_mut(&mut body, at).as_object_mut().unwrap();
            for candidate in run {
                object.insert((*candidate).clone(), value.clone());
            }
            let r = send(body).await;
            for issue in issues_at(&r.body, at) {
                let key = issue["path"][at.len()]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                if !key.is_empty() && !documented(&key) && issue["code"] != "unrecognized_keys" {
                    found.insert(format!(
                        "{name}: {}/{key} is read but not documented: {issue}",
                        pointer(at)
                    ));
                }
            }
        }
    }
    found.into_iter().collect()
}

struct Operation {
    method: Method,
    path: String,
    uri: String,
    schema: Value,
    /// Called with a driver credential (the driver API), not a depot key.
    driver: bool,
}

/// What the walked requests may name: ids by resource, and a driver credential.
struct Ids {
    ids: Vec<(&'static str, i64)>,
    driver_key: String,
}

/// The first `id` in a response (depth first).
fn first_id(value: &Value) -> Option<i64> {
    match value {
        Value::Object(map) => map
            .get("id")
            // Order ids are strings on the wire.
            .and_then(|id| id.as_i64().or_else(|| id.as_str()?.parse().ok()))
            .or_else(|| map.values().find_map(first_id)),
        Value::Array(items) => items.iter().find_map(first_id),
        _ => None,
    }
}

/// Ids of a vehicle, a customer, an order and the depot the requests may name, and a driver
/// credential of the vehicle.
async fn existing_ids(app: &TestApp) -> Ids {
    let key = app.north();
    let vehicle = app
        .post(
            "/v2/vehicles",
            &key,
            json!({"name": "Van", "availability": "full_day", "start_location": "depot",
                   "end_location": "depot"}),
        )
        .await;
    let customer = app
        .post(
            "/v2/customers",
            &key,
            json!([{"account": "C-1", "name": "Ann", "address": "1 High St", "lat": 51.5,
                    "lng": -0.1}]),
        )
        .await;
    let order = app
        .post(
            "/v2/orders",
            &key,
            json!([{"order_number": "O-1", "type": "delivery", "delivery_address": "1 High St",
                    "delivery_lat": 51.5, "delivery_lng": -0.1}]),
        )
        .await;
    let mut ids = Vec::new();
    for (resource, response) in [
        ("vehicles", &vehicle),
        ("customers", &customer),
        ("orders", &order),
    ] {
        let id = first_id(&response.body).unwrap_or_else(|| panic!("{:#}", response.body));
        ids.push((resource, id));
    }
    ids.push(("depots", app.depot(0, 0)["id"].as_i64().expect("depot id")));
    let credential = app
        .post(
            &format!("/v2/vehicles/{}/driver-credentials", ids[0].1),
            &key,
            json!({}),
        )
        .await;
    let driver_key = credential.body["driver_credential"]["credential"]
        .as_str()
        .unwrap_or_else(|| panic!("{:#}", credential.body))
        .to_owned();
    Ids { ids, driver_key }
}

/// Every operation with a JSON request body, its path (under its server) filled with ids of
/// `ids` (by the resource the id follows; others 1).
fn operations(doc: &Value, ids: &Ids) -> Vec<Operation> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(schema) = op["requestBody"]["content"]["application/json"].get("schema")
            else {
                continue;
            };
            let segments: Vec<&str> = path.split('/').collect();
            let uri = segments
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    if !s.starts_with('{') {
                        return (*s).to_owned();
                    }
                    let resource = segments[i - 1];
                    ids.ids
                        .iter()
                        .find(|(r, _)| *r == resource)
                        .map_or(1, |(_, id)| *id)
                        .to_string()
                })
                .collect::<Vec<_>>()
                .join("/");
            let security = op.get("security").unwrap_or(&doc["security"]);
            out.push(Operation {
                method: method.to_uppercase().parse().unwrap(),
                path: path.clone(),
                uri: format!("{}{uri}", crate::contract::server_base(doc, path)),
                schema: schema.clone(),
                driver: security[0].get("driverCredential").is_some(),
            });
        }
    }
    out
}

/// What one operation's handler does differently from its documented body, in words.
async fn mismatches(
    app: &TestApp,
    ids: &Ids,
    doc: &Value,
    op: &Operation,
    candidates: &BTreeSet<String>,
) -> Vec<String> {
    let key = if op.driver {
        ids.driver_key.clone()
    } else {
        app.north()
    };
    let send = |body: Value| app.call(op.method.clone(), &op.uri, Some(&key), Some(body));
    let name = format!("{} {}", op.method, op.path);
    let base = sample(doc, &op.schema, "");
    let mut found = Vec::new();
    let r = send(base.clone()).await;
    if r.status == 500 {
        found.push(format!("{name}: 500 on the documented body {base}"));
    }
    for issue in issues(&r.body) {
        if issue["code"] == "invalid_type" || issue["code"] == "unrecognized_keys" {
            found.push(format!("{name}: the documented body is refused: {issue}"));
        }
    }
    let mut places = Vec::new();
    objects(doc, &op.schema, vec![], &mut places);
    for (at, schema) in places {
        let required = needed(&schema);
        for (property, property_schema) in schema["properties"].as_object().into_iter().flatten() {
            let mut path = at.clone();
            path.push(json!(property));
            let read_only = flat(doc, property_schema)["readOnly"] == true;
            if let Some(value) = wrong(doc, property_schema) {
                let mut body = base.clone();
                *at_mut(&mut body, &path) = value.clone();
                let r = send(body).await;
                let refused = !issues_at(&r.body, &path).is_empty();
                if read_only && refused {
                    found.push(format!("{name}: read-only {} refused", pointer(&path)));
                }
                if !read_only && !refused {
                    found.push(format!(
                        "{name}: {} = {value} is not refused ({}): the handler does not read it as documented",
                        pointer(&path),
                        r.status
                    ));
                }
            }
            let mut body = base.clone();
            at_mut(&mut body, &at)
                .as_object_mut()
                .unwrap()
                .remove(property);
            let r = send(body).await;
            let missing = issues_at(&r.body, &path);
            if required.contains(&property.as_str()) && missing.is_empty() {
                found.push(format!(
                    "{name}: required {} may be left out",
                    pointer(&path)
                ));
            }
            if !required.contains(&property.as_str()) && !missing.is_empty() {
                found.push(format!(
                    "{name}: leaving out {} is refused though not documented as required: {}",
                    pointer(&path),
                    Value::Array(missing)
                ));
            }
        }
        if !closed(&schema) {
            found.extend(undocumented_reads(&send, &name, &base, &at, &schema, candidates).await);
        }
        let mut path = at.clone();
        path.push(json!(UNDOCUMENTED));
        let mut body = base.clone();
        at_mut(&mut body, &at)
            .as_object_mut()
            .unwrap()
            .insert(UNDOCUMENTED.into(), json!("x"));
        let r = send(body).await;
        let refused = !issues_at(&r.body, &path).is_empty();
        let closed = closed(&schema);
        if closed && !refused {
            found.push(format!(
                "{name}: {} is documented as refused but accepted",
                pointer(&path)
            ));
        }
        if !closed && refused {
            found.push(format!(
                "{name}: {} is refused but the schema is open",
                pointer(&path)
            ));
        }
    }
    found
}

#[tokio::test]
async fn every_documented_request_body_is_exactly_what_its_handler_reads() {
    let app = TestApp::new();
    let doc = dispatch_http::openapi::document();
    let ids = existing_ids(&app).await;
    let operations = operations(doc, &ids);
    assert!(operations.len() > 30, "{}", operations.len());
    let driver = operations.iter().filter(|op| op.driver).count();
    assert_eq!(driver, 9, "every JSON body of the driver API is walked");
    let mut candidates = BTreeSet::new();
    property_names(doc, &mut candidates);
    let mut found = Vec::new();
    for op in &operations {
        found.extend(mismatches(&app, &ids, doc, op, &candidates).await);
    }
    assert!(
        found.is_empty(),
        "{} mismatches:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// The walk catches a document that says something else than the handler does: a property
/// of another type, a documented property the handler refuses, a refusal the document calls
/// open, a requirement it does not state, and a property an open body reads but does not list.
#[tokio::test]
async fn the_walk_catches_a_document_that_drifted_from_its_handler() {
    let app = TestApp::new();
    let ids = existing_ids(&app).await;
    let mut doc = dispatch_http::openapi::document().clone();
    let schemas = &mut doc["components"]["schemas"];
    schemas["RouteLockBody"]["properties"]["is_locked"] = json!({"type": "string"});
    schemas["CapacityBody"]["properties"]["nickname"] = json!({"type": ["string", "null"]});
    schemas["CredentialBody"]["additionalProperties"] = json!(true);
    schemas["OrderStatusBody"]["required"] = json!([]);
    // Every served body is closed: an open one that reads what it does not list is made here.
    schemas["CapacityBody"]["additionalProperties"] = json!(true);
    schemas["CapacityBody"]["properties"]
        .as_object_mut()
        .unwrap()
        .remove("id");
    // The driver API's bodies: a pairing the document no longer states, a wrong type.
    schemas["FailStopBody"]
        .as_object_mut()
        .unwrap()
        .remove("dependentRequired");
    schemas["NotesBody"]["properties"]["notes"] = json!({"type": "integer"});
    let mut candidates = BTreeSet::new();
    property_names(&doc, &mut candidates);
    let mut found = Vec::new();
    for op in operations(&doc, &ids) {
        if [
            "/routes/{id}",
            "/vehicles/{id}",
            "/vehicles/{id}/driver-credentials",
            "/order-statuses",
            "/zone-groups/{id}/bounds/contains",
            "/driver/stops/{id}/fail",
            "/driver/stops/{id}/notes",
        ]
        .contains(&op.path.as_str())
        {
            found.extend(mismatches(&app, &ids, &doc, &op, &candidates).await);
        }
    }
    let text = found.join("\n");
    for expected in [
        "PUT /routes/{id}: the documented body is refused",
        "PUT /vehicles/{id}: the documented body is refused: {\"code\":\"unrecognized_keys\",\"expected\":\"a known property\",\"received\":\"nickname\"",
        "POST /vehicles/{id}/driver-credentials: /undocumented_property is refused but the schema is open",
        "POST /order-statuses: leaving out /status is refused though not documented as required",
        "PUT /vehicles/{id}: /capacities/0/id is read but not documented",
        "POST /driver/stops/{id}/fail: leaving out /lat is refused though not documented as required",
        "PUT /driver/stops/{id}/notes: the documented body is refused",
    ] {
        assert!(text.contains(expected), "{expected:?} not found in:\n{text}");
    }
}
