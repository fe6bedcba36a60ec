use axum::body::Body;
use axum::extract::Request;
use dispatch_core::error::ValidationErrors;
use serde_json::{json, Value};

use super::typed_batch;
use crate::extract::{typed_json, TypedOrValue};
use crate::v2::order_wire::{read_order, OrderBody};

/// An order with every property the typed form reads, each with a value.
fn full_order() -> Value {
    let end = |side: &str| {
        let mut end = serde_json::Map::new();
        for text in [
            "contact_name",
            "contact_number",
            "contact_email",
            "address",
            "country_code",
            "postcode",
            "notes",
        ] {
            end.insert(format!("{side}_{text}"), json!(format!("{side} {text}")));
        }
        end.insert(format!("{side}_lat"), json!(51.5));
        end.insert(format!("{side}_lng"), json!(-0.25));
        end.insert(format!("{side}_duration"), json!(7));
        end.insert(
            format!("{side}_time_windows"),
            json!([{"from": "08:00", "to": "12:00"}, {"from": "13:00"}]),
        );
        end.insert(format!("{side}_available_days"), json!(["mon", "fri"]));
        end
    };
    let mut order = json!({
        "order_number": "A-1",
        "type": "shipment",
        "priority": "P1",
        "customer": {"id": 4, "account": "ACC", "name": "N", "email": "e@x.org", "phone": "+44",
                     "country_code": "GB", "address": "1 Road", "postcode": "AB1", "lat": 51,
                     "lng": 0.5},
        "customer_id": 4,
        "delivery_date": "2026-12-01",
        "time_windows": [{"from": "09:00", "to": "10:00", "type": "pickup"}],
        "order_exchange": {"reference": "X"},
        "parts": 2,
        "vehicle_assignment": {"vehicle_id": 9},
        "emails": [{"email": "a@x.org"}, {}],
        "third_party": {"id": 3},
        "tags": ["t"],
        "skills": ["s", "u"],
        "capacities": [{"id": 1, "capacity": 2.5}, {"type": "kg", "capacity": 1}],
        "custom_fields": [{"id": 1, "value": "v"}, {"name": "n", "value": "w"}],
        "order_value": 12.34,
        "line_items": [
            {"product_code": "P", "product_name": "Parcel", "product_quantity": 2,
             "product_unit_price": 9.99, "product_value": null, "quantity_outstanding": 1,
             "status": "s", "date": "2026-12-01", "capacities": [{"id": 1, "capacity": 1}],
             "custom_fields": [{"id": 2, "value": "x"}]},
            {"product_code": "Q"}
        ],
    });
    let object = order.as_object_mut().expect("an object");
    object.extend(end("delivery"));
    object.extend(end("pickup"));
    order
}

/// Every value inside `v` with its path of keys and indices.
fn paths(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    out.push(at.clone());
    match v {
        Value::Object(o) => o.iter().for_each(|(k, c)| {
            at.push(json!(k));
            paths(c, at, out);
            at.pop();
        }),
        Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| {
            at.push(json!(i));
            paths(c, at, out);
            at.pop();
        }),
        _ => {}
    }
}

fn at<'a>(v: &'a mut Value, path: &[Value]) -> &'a mut Value {
    path.iter().fold(v, |v, step| match step {
        Value::String(k) => &mut v[k.as_str()],
        Value::Number(i) => &mut v[i.as_u64().expect("an index") as usize],
        _ => unreachable!(),
    })
}

/// The full order with the value at each path replaced by each of a set of values, removed,
/// or (objects) given an unknown property.
fn variants() -> Vec<Value> {
    let full = full_order();
    let mut all = Vec::new();
    paths(&full, &mut Vec::new(), &mut all);
    let replacements = [
        json!(null),
        json!(7),
        json!(-1.5),
        json!(u64::MAX),
        json!("text"),
        json!(true),
        json!([]),
        json!(["a", 1]),
        json!({}),
        json!([{}]),
        json!({"id": 1}),
    ];
    let mut out = vec![full.clone(), json!({})];
    for path in all {
        for r in &replacements {
            let mut v = full.clone();
            *at(&mut v, &path) = r.clone();
            out.push(v);
        }
        if let Some((last, parent)) = path.split_last() {
            let mut v = full.clone();
            match (at(&mut v, parent), last) {
                (Value::Object(o), Value::String(k)) => {
                    o.remove(k.as_str());
                }
                (Value::Array(a), Value::Number(i)) => {
                    a.remove(i.as_u64().expect("an index") as usize);
                }
                _ => unreachable!(),
            }
            out.push(v);
        }
        let mut v = full.clone();
        if let Value::Object(o) = at(&mut v, &path) {
            o.insert("unknown".into(), json!(1));
            out.push(v);
        }
    }
    out
}

/// What the property-by-property reader makes of a batch.
fn read(
    body: &Value,
) -> (
    Vec<dispatch_core::model::order_input::OrderInput>,
    ValidationErrors,
) {
    let mut errors = ValidationErrors::default();
    let inputs = body
        .as_array()
        .expect("a batch")
        .iter()
        .enumerate()
        .map(|(i, item)| read_order(item, vec![i.into()], OrderBody::Post, &mut errors))
        .collect();
    (inputs, errors)
}

#[test]
fn the_typed_batch_accepts_only_what_the_reader_accepts_and_reads_the_same_orders() {
    let mut typed = 0;
    let variants = variants();
    for order in &variants {
        let body = json!([order, {"order_number": "B", "type": "delivery"}]);
        let (inputs, errors) = read(&body);
        // A body left to the reader may be one it accepts: a read-only property sent back,
        // or an exchange whose reference is no string (read as none).
        if let Some(fast) = typed_batch(body.to_string().as_bytes()) {
            typed += 1;
            assert!(errors.0.is_empty(), "typed, but the reader refuses: {body}");
            assert_eq!(fast, inputs, "{body}");
        }
    }
    assert!(typed > 100, "{typed} of {} read typed", variants.len());
    for order in [full_order(), json!({})] {
        let body = json!([order]);
        assert_eq!(
            typed_batch(body.to_string().as_bytes()),
            Some(read(&body).0),
            "{body}"
        );
    }
}

#[test]
fn the_typed_batch_refuses_what_a_value_reads_differently() {
    for text in [
        r#"[{"order_number": "A", "order_number": "B"}]"#,
        r#"[["A", "delivery"]]"#,
        r#"[{"customer": ["A"]}]"#,
        r#"{"order_number": "A"}"#,
        r#"[{"id": 1}]"#,
        r#"[{"line_items": [{"product_code": "P", "id": 3}]}]"#,
        r#"[{"type": "delivery", "kind": "delivery"}]"#,
        r#"[{"customer_id": 1.0}]"#,
        r#"[] x"#,
        "",
    ] {
        assert!(typed_batch(text.as_bytes()).is_none(), "{text}");
    }
    let batch = |n: usize| format!("[{}]", vec!["{}"; n].join(","));
    assert_eq!(
        typed_batch(batch(100).as_bytes()).map(|b| b.len()),
        Some(100)
    );
    assert!(typed_batch(batch(101).as_bytes()).is_none());
}

#[tokio::test]
async fn a_body_with_an_escaped_nul_or_over_the_typed_size_is_read_as_a_value() {
    let take = |text: String| async move {
        let req = Request::post("/v2/orders")
            .header("content-type", "application/json")
            .body(Body::from(text))
            .expect("a request");
        typed_json(req, typed_batch).await
    };
    let typed = take(r#"[{"order_number": "A"}]"#.into()).await;
    assert!(matches!(typed, Ok(TypedOrValue::Typed(_))));
    let nul = take(r#"[{"order_number": "A\u0000"}]"#.into()).await;
    assert!(nul.is_err(), "refused as NUL, as a value would be");
    let long = format!(r#"[{{"order_number": "{}"}}]"#, "A".repeat(100_000));
    assert!(matches!(take(long).await, Ok(TypedOrValue::Value(_))));
}
