//! Which object schemas are closed (refuse properties they do not name): the rules the served
//! document states and the body readers apply, written once so the two cannot differ.

use serde_json::{json, Map, Value};

use super::CLOSED;

/// Closes the request bodies named in [`CLOSED`] and opens every other `*Body` (the service
/// ignores unknown properties there). A body built on another (`allOf`) is closed over all
/// its parts' properties by `unevaluatedProperties`.
pub(crate) fn close_bodies(schemas: &mut Map<String, Value>) {
    for (name, schema) in schemas.iter_mut() {
        if name.ends_with("Body") {
            let open = json!(!CLOSED.contains(&name.as_str()));
            if schema.get("allOf").is_some() {
                schema["unevaluatedProperties"] = open;
            } else {
                schema["additionalProperties"] = open;
            }
        }
    }
}

/// Sets `additionalProperties: false` on every object schema with `properties` that does not
/// say otherwise, and `unevaluatedProperties: false` where properties come from `allOf` parts
/// (whose own `additionalProperties` would refuse each other's properties).
pub(crate) fn close_objects(node: &mut Value) {
    match node {
        Value::Object(map) => {
            let composed = map.contains_key("allOf");
            if composed {
                if let Some(parts) = map.get_mut("allOf").and_then(Value::as_array_mut) {
                    for part in parts {
                        close_children(part);
                    }
                }
                map.entry("unevaluatedProperties").or_insert(json!(false));
            } else if map.get("properties").is_some_and(Value::is_object) {
                map.entry("additionalProperties").or_insert(json!(false));
            }
            for (key, value) in map.iter_mut() {
                if !matches!(key.as_str(), "allOf" | "example" | "examples" | "default") {
                    close_objects(value);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// Closes what lies below an `allOf` part, leaving the part itself open.
fn close_children(part: &mut Value) {
    if let Value::Object(map) = part {
        for value in map.values_mut() {
            close_objects(value);
        }
    }
}
