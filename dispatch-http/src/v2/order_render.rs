//! The order's JSON reads: the full order (GET and PUT /orders/{id}), the list summary and the
//! attachment object.

use dispatch_core::model::attachment::Attachment;
use dispatch_core::model::line_item::LineItem;
use dispatch_core::model::order::{Endpoint, Order, Side};
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::model::order_value::DEFAULT_CURRENCY;
use dispatch_core::ports::store::OrderSummary;
use serde_json::{json, Map, Value};

use super::order_json::{render_capacities, render_custom_fields};
use super::shapes::to_json;
use super::wire::{num, opt_num, ts};

fn end(e: &Endpoint, side: Side, windows: &[Value], m: &mut Map<String, Value>) {
    let s = side.as_str();
    let mut put = |k: &str, v: Value| {
        m.insert(format!("{s}_{k}"), v);
    };
    put("contact_name", json!(e.contact_name));
    put("contact_number", json!(e.contact_number));
    put("contact_email", json!(e.contact_email));
    put("address", json!(e.address));
    put("country_code", json!(e.country_code));
    put("postcode", json!(e.postcode));
    put("lat", opt_num(e.lat));
    put("lng", opt_num(e.lng));
    put("duration", opt_num(e.duration));
    put("notes", json!(e.notes));
    put("time_windows", Value::Array(windows.to_vec()));
    put(
        "available_days",
        json!(e
            .available_days
            .iter()
            .map(|d| d.as_str())
            .collect::<Vec<_>>()),
    );
}

fn line_item(li: &LineItem, catalog: &Catalog) -> Value {
    let value = li.value();
    json!({
        "id": li.id,
        "product_code": li.product_code,
        "product_name": li.product_name,
        "product_quantity": li.quantity,
        "product_unit_price": li.unit_price.map(|p| num(p.to_f64())),
        "product_value": value.map(|v| num(v.0.to_f64())),
        "product_value_source": value.map(|v| v.1.as_str()),
        "quantity_outstanding": opt_num(li.quantity_outstanding),
        "status": li.status.as_str(),
        "date": li.date.map(|d| d.to_string()),
        "capacities": render_capacities(&li.capacities, catalog),
        "custom_fields": render_custom_fields(&li.custom_fields, catalog),
    })
}

/// The full order (GET /orders/{id}, PUT /orders/{id}).
pub fn render_order(o: &Order, attachments: &[Attachment], catalog: &Catalog) -> Value {
    let window = |side: Side, with_type: bool| -> Vec<Value> {
        o.time_windows
            .iter()
            .filter(|w| w.side == side)
            .map(|w| {
                let mut v = json!({"from": w.from.to_string(), "to": w.to.to_string()});
                if with_type {
                    v["type"] = json!(side.as_str());
                }
                v
            })
            .collect()
    };
    let mut m = Map::new();
    m.insert("id".into(), json!(o.id));
    m.insert("order_number".into(), json!(o.order_number));
    m.insert("type".into(), json!(o.kind.as_str()));
    m.insert("status".into(), json!(o.status.as_str()));
    m.insert("priority".into(), json!(o.priority.map(|p| p.as_str())));
    m.insert("customer_id".into(), json!(o.customer_id));
    end(
        &o.delivery,
        Side::Delivery,
        &window(Side::Delivery, false),
        &mut m,
    );
    m.insert(
        "delivery_date".into(),
        json!(o.delivery_date.map(|d| d.to_string())),
    );
    end(
        &o.pickup,
        Side::Pickup,
        &window(Side::Pickup, false),
        &mut m,
    );
    let mut all = window(Side::Delivery, true);
    all.extend(window(Side::Pickup, true));
    m.insert("time_windows".into(), Value::Array(all));
    m.insert(
        "order_exchange".into(),
        o.exchange_reference
            .as_ref()
            .map_or(Value::Null, |r| json!({"reference": r})),
    );
    m.insert("parts".into(), opt_num(o.parts));
    m.insert(
        "vehicle_assignment".into(),
        o.vehicle_id
            .map_or(Value::Null, |v| json!({"vehicle_id": v})),
    );
    m.insert(
        "emails".into(),
        json!(o
            .emails
            .iter()
            .map(|e| json!({"email": e}))
            .collect::<Vec<_>>()),
    );
    m.insert(
        "third_party".into(),
        o.third_party_id.map_or(Value::Null, |t| json!({"id": t})),
    );
    m.insert("tags".into(), json!(o.tags));
    m.insert("skills".into(), json!(o.skills));
    m.insert(
        "capacities".into(),
        to_json(render_capacities(&o.capacities, catalog)),
    );
    m.insert(
        "custom_fields".into(),
        to_json(render_custom_fields(&o.custom_fields, catalog)),
    );
    let value = o.value().ok().flatten();
    m.insert(
        "order_value".into(),
        json!(value.map(|v| num(v.0.to_f64()))),
    );
    m.insert("currency".into(), json!(value.map(|_| DEFAULT_CURRENCY)));
    m.insert("value_source".into(), json!(value.map(|v| v.1.as_str())));
    m.insert(
        "line_items".into(),
        Value::Array(
            o.line_items
                .iter()
                .map(|li| line_item(li, catalog))
                .collect(),
        ),
    );
    m.insert("stops".into(), json!([]));
    m.insert(
        "attachments".into(),
        Value::Array(
            attachments
                .iter()
                .map(|a| json!({"id": a.id, "name": a.name}))
                .collect(),
        ),
    );
    m.insert("created".into(), ts(o.created));
    m.insert("updated".into(), ts(o.updated));
    Value::Object(m)
}

/// The order list view.
pub fn render_summary(o: &OrderSummary) -> Value {
    json!({
        "id": o.id,
        "order_number": o.order_number,
        "status": o.status.as_str(),
        "type": o.kind.as_str(),
        "stops": [],
        "line_items": o.line_item_ids.iter().map(|id| json!({"id": id})).collect::<Vec<_>>(),
        "customer": o.customer.as_ref().map(|(id, account)| json!({"id": id, "account": account})),
        "created": ts(o.created),
        "updated": ts(o.updated),
    })
}

/// An attachment as the upload answers it.
pub fn render_attachment(a: &Attachment) -> Value {
    json!({
        "id": a.id,
        "order_id": a.order_id.to_string(),
        "depot_id": a.depot_id,
        "name": a.name,
        "mime": a.mime,
        "ext": a.ext,
        "size": a.size,
        "is_compressed": a.is_compressed,
        "modified": ts(a.modified),
        "created": ts(a.created),
    })
}
