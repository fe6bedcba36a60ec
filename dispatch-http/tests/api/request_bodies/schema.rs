//! Reading the document's request-body schemas for the walk: `$ref`, `Option` (`oneOf [null,
//! T]`) and `allOf` resolved into one object, sample values of the documented types, values of
//! another type, and where the objects of a body lie.

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

/// The schema `$ref` points at, or `schema` itself; `Option<T>` (`oneOf [null, T]`) as `T`.
pub(super) fn resolve<'a>(doc: &'a Value, schema: &'a Value) -> &'a Value {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/components/schemas/");
        return resolve(doc, &doc["components"]["schemas"][name]);
    }
    if let Some(options) = schema["oneOf"].as_array() {
        let not_null: Vec<&Value> = options.iter().filter(|o| o["type"] != "null").collect();
        if not_null.len() == 1 {
            return resolve(doc, not_null[0]);
        }
    }
    schema
}

/// The schema with `$ref`, `oneOf [null, T]` and `allOf` resolved into one object: properties
/// and required lists of the parts merged, closed when any part is closed.
pub(super) fn flat(doc: &Value, schema: &Value) -> Value {
    let schema = resolve(doc, schema);
    let Some(parts) = schema["allOf"].as_array() else {
        return schema.clone();
    };
    let mut out = schema.clone();
    out.as_object_mut().unwrap().remove("allOf");
    for part in parts {
        merge(doc, &mut out, &flat(doc, part));
    }
    out
}

pub(super) fn merge(doc: &Value, into: &mut Value, from: &Value) {
    for (key, value) in from.as_object().into_iter().flatten() {
        match key.as_str() {
            "properties" => {
                for (name, property) in value.as_object().into_iter().flatten() {
                    let merged = match into["properties"].get(name) {
                        Some(existing) => {
                            let mut existing = flat(doc, existing);
                            merge(doc, &mut existing, &flat(doc, property));
                            existing
                        }
                        None => property.clone(),
                    };
                    into["properties"][name] = merged;
                }
            }
            "items" => {
                let mut items = match into.get("items") {
                    Some(existing) => flat(doc, existing),
                    None => json!({}),
                };
                merge(doc, &mut items, &flat(doc, value));
                into["items"] = items;
            }
            "required" => {
                let mut all = into["required"].as_array().cloned().unwrap_or_default();
                all.extend(value.as_array().cloned().unwrap_or_default());
                into["required"] = Value::Array(all);
            }
            "additionalProperties" | "unevaluatedProperties" => {
                if *value == false {
                    into["additionalProperties"] = json!(false);
                }
            }
            _ => {
                if into.get(key).is_none() {
                    into[key] = value.clone();
                }
            }
        }
    }
}

pub(super) fn closed(schema: &Value) -> bool {
    schema["additionalProperties"] == false || schema["unevaluatedProperties"] == false
}

/// The schema's JSON type (`null` aside).
pub(super) fn type_of(schema: &Value) -> &str {
    match &schema["type"] {
        Value::String(t) => t,
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("any"),
        _ if schema["properties"].is_object() => "object",
        _ => "any",
    }
}

/// A value of the documented type; strings shaped by their name where the handler checks a
/// format, so that reading goes on past them.
pub(super) fn sample(doc: &Value, schema: &Value, name: &str) -> Value {
    let schema = &flat(doc, schema);
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    match type_of(schema) {
        "string" if name.contains("date") || name == "from" && schema["format"] == "date" => {
            json!("2026-11-24")
        }
        "string" if name.contains("email") => json!("someone@example.org"),
        "string" => json!("x"),
        "integer" => json!(1),
        "number" => json!(1),
        "boolean" => json!(true),
        "array" => json!([sample(doc, &schema["items"], name)]),
        "object" => {
            let mut out = Map::new();
            for (key, property) in schema["properties"].as_object().into_iter().flatten() {
                out.insert(key.clone(), sample(doc, property, key));
            }
            Value::Object(out)
        }
        _ => Value::Null,
    }
}

/// A value of another type than the documented one (`None` where any value is allowed).
pub(super) fn wrong(doc: &Value, schema: &Value) -> Option<Value> {
    match type_of(&flat(doc, schema)) {
        "string" => Some(json!(12)),
        "integer" => Some(json!(1.5)),
        "number" | "boolean" | "array" | "object" => Some(json!("text")),
        _ => None,
    }
}

/// Every object of the sampled body: its path and its schema (array items at index 0).
pub(super) fn objects(
    doc: &Value,
    schema: &Value,
    at: Vec<Value>,
    out: &mut Vec<(Vec<Value>, Value)>,
) {
    let schema = flat(doc, schema);
    match type_of(&schema) {
        "array" => {
            let mut at = at;
            at.push(json!(0));
            objects(doc, &schema["items"], at, out);
        }
        "object" => {
            for (key, property) in schema["properties"].as_object().into_iter().flatten() {
                let mut inner = at.clone();
                inner.push(json!(key));
                objects(doc, property, inner, out);
            }
            out.push((at, schema.clone()));
        }
        _ => {}
    }
}

pub(super) fn pointer(path: &[Value]) -> String {
    path.iter()
        .map(|s| match s {
            Value::String(k) => format!("/{k}"),
            other => format!("/{other}"),
        })
        .collect()
}

/// The value at `path` (its parent must exist).
pub(super) fn at_mut<'a>(body: &'a mut Value, path: &[Value]) -> &'a mut Value {
    let at = pointer(path);
    body.pointer_mut(&at)
        .unwrap_or_else(|| panic!("{at} is not in the sampled body"))
}

/// Every property name the document knows (request and response schemas).
pub(super) fn property_names(node: &Value, out: &mut BTreeSet<String>) {
    match node {
        Value::Object(map) => {
            if let Some(properties) = map.get("properties").and_then(Value::as_object) {
                out.extend(properties.keys().cloned());
            }
            map.values().for_each(|v| property_names(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| property_names(v, out)),
        _ => {}
    }
}

/// The properties an object of `schema` must carry when sent with every property: those it
/// requires, and those another property depends on (`dependentRequired`, e.g. `lat` and `lng`
/// go together).
pub(super) fn needed(schema: &Value) -> Vec<&str> {
    let mut out: Vec<&str> = schema["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    for (_, names) in schema["dependentRequired"]
        .as_object()
        .into_iter()
        .flatten()
    {
        out.extend(
            names
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str),
        );
    }
    out
}
