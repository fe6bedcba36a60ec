//! The order's JSON writes: reading POST /orders, POST /depots/{id}/orders and PUT
//! /orders/{id} bodies into the core's [`OrderInput`] (renderings are in `order_render`).

use dispatch_core::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use dispatch_core::model::line_item::LineItemInput;
use dispatch_core::model::order_input::{
    EndpointFields, EndpointInput, OrderCustomerInput, OrderInput,
};
use serde_json::{Map, Value};

use super::order_json::{capacities, custom_fields, list, sent, time_windows, value};
use super::request_shapes::{refuse_undocumented, DepotOrderBody, OrderWriteBody};
use super::wire::{type_name, Reader};

/// Which write an order object belongs to; it decides the accepted properties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OrderBody {
    /// POST /orders: every order field.
    Post,
    /// POST /depots/{id}/orders: the spec's restricted property list.
    DepotPost,
    /// PUT /orders/{id}.
    Put,
}

/// Reads one order object at `prefix` (its index in a batch, or nothing for PUT).
pub fn read_order(
    item: &Value,
    prefix: Vec<PathSegment>,
    body: OrderBody,
    errors: &mut ValidationErrors,
) -> OrderInput {
    let Some(obj) = item.as_object() else {
        errors.push(ValidationIssue::new(
            IssueCode::InvalidType,
            prefix,
            "object",
            type_name(item),
            "an order must be an object",
        ));
        return OrderInput::default();
    };
    // The accepted properties are the documented ones (read-only fields of a read included
    // where the write ignores them).
    match body {
        OrderBody::DepotPost => refuse_undocumented::<DepotOrderBody>(obj, &prefix, errors),
        OrderBody::Post | OrderBody::Put => {
            refuse_undocumented::<OrderWriteBody>(obj, &prefix, errors)
        }
    }
    let customer = read_customer(obj, &prefix, errors);
    let mut r = Reader::new(obj, prefix.clone(), errors);
    let customer_id = sent(r.integer("customer_id"));
    let exchange = match obj.get("order_exchange") {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => Some(
            o.get("reference")
                .and_then(Value::as_str)
                .map(str::to_owned),
        ),
        Some(other) => {
            r.wrong_type("order_exchange", "an object", other);
            None
        }
    };
    let vehicle_id = nested_id(&mut r, obj, "vehicle_assignment", "vehicle_id");
    let third_party_id = nested_id(&mut r, obj, "third_party", "id");
    let mut input = OrderInput {
        order_number: sent(r.string("order_number")),
        kind: sent(r.string("type")),
        priority: sent(r.string("priority")),
        customer_id,
        delivery: read_end(&mut r, "delivery"),
        pickup: read_end(&mut r, "pickup"),
        delivery_date: sent(r.string("delivery_date")),
        time_windows: time_windows(&mut r, "time_windows", true),
        order_exchange: exchange,
        parts: sent(r.number("parts")),
        vehicle_id,
        emails: list(r.objects("emails", |e| value(e.string("email")).unwrap_or_default())),
        third_party_id,
        tags: list(r.strings("tags")),
        skills: list(r.strings("skills")),
        capacities: capacities(&mut r, "capacities"),
        custom_fields: custom_fields(&mut r, "custom_fields"),
        order_value: sent(r.number("order_value")),
        line_items: list(r.objects("line_items", read_line_item)),
        customer,
    };
    if body != OrderBody::Put && input.customer.is_none() {
        // A customer id sent on its own identifies the customer like `customer: {id}`.
        if let Some(Some(id)) = input.customer_id {
            input.customer = Some(OrderCustomerInput {
                id: Some(id),
                ..OrderCustomerInput::default()
            });
        }
    }
    input
}

fn nested_id(
    r: &mut Reader<'_>,
    obj: &Map<String, Value>,
    key: &str,
    id_key: &str,
) -> Option<Option<i64>> {
    match obj.get(key) {
        None => None,
        Some(Value::Null) => Some(None),
        Some(Value::Object(o)) => match o.get(id_key) {
            Some(v) if v.as_i64().is_some() => Some(v.as_i64()),
            Some(Value::Null) | None => Some(None),
            Some(other) => {
                let mut path = r.prefix().to_vec();
                path.extend([key.into(), id_key.into()]);
                r.errors.push(ValidationIssue::new(
                    IssueCode::InvalidType,
                    path,
                    "an integer",
                    type_name(other),
                    format!("{key}.{id_key} must be an integer"),
                ));
                None
            }
        },
        Some(other) => {
            r.wrong_type(key, "an object", other);
            None
        }
    }
}

fn read_customer(
    obj: &Map<String, Value>,
    prefix: &[PathSegment],
    errors: &mut ValidationErrors,
) -> Option<OrderCustomerInput> {
    let mut path = prefix.to_vec();
    path.push("customer".into());
    match obj.get("customer") {
        None | Some(Value::Null) => None,
        Some(Value::Object(o)) => {
            let mut c = Reader::new(o, path, errors);
            Some(OrderCustomerInput {
                id: value(c.integer("id")),
                account: value(c.string("account")),
                name: value(c.string("name")),
                email: value(c.string("email")),
                phone: value(c.string("phone")),
                country_code: value(c.string("country_code")),
                address: value(c.string("address")),
                postcode: value(c.string("postcode")),
                lat: value(c.number("lat")),
                lng: value(c.number("lng")),
            })
        }
        Some(other) => {
            errors.push(ValidationIssue::new(
                IssueCode::InvalidType,
                path,
                "object",
                type_name(other),
                "customer must be an object",
            ));
            None
        }
    }
}

fn read_end(r: &mut Reader<'_>, side: &str) -> EndpointInput {
    let k = |f: &str| format!("{side}_{f}");
    EndpointInput {
        fields: EndpointFields {
            contact_name: sent(r.string(&k("contact_name"))),
            contact_number: sent(r.string(&k("contact_number"))),
            contact_email: sent(r.string(&k("contact_email"))),
            address: sent(r.string(&k("address"))),
            country_code: sent(r.string(&k("country_code"))),
            postcode: sent(r.string(&k("postcode"))),
            lat: sent(r.number(&k("lat"))),
            lng: sent(r.number(&k("lng"))),
            duration: sent(r.number(&k("duration"))),
            notes: sent(r.string(&k("notes"))),
        },
        time_windows: time_windows(r, &k("time_windows"), false),
        available_days: list(r.strings(&k("available_days"))),
    }
}

fn read_line_item(li: &mut Reader<'_>) -> LineItemInput {
    LineItemInput {
        product_code: value(li.string("product_code")),
        product_name: value(li.string("product_name")),
        product_quantity: value(li.number("product_quantity")),
        product_unit_price: sent(li.number("product_unit_price")),
        product_value: sent(li.number("product_value")),
        quantity_outstanding: sent(li.number("quantity_outstanding")),
        status: value(li.string("status")),
        date: sent(li.string("date")),
        capacities: capacities(li, "capacities"),
        custom_fields: custom_fields(li, "custom_fields"),
    }
}
