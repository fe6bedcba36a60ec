//! The order's JSON reads (shapes in `order_shapes`): the full order (GET and PUT
//! /orders/{id}), the list summary and the attachment object.

use dispatch_core::model::attachment::Attachment;
use dispatch_core::model::line_item::LineItem;
use dispatch_core::model::order::{Order, Side};
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::model::order_value::DEFAULT_CURRENCY;
use dispatch_core::ports::store::OrderSummary;

use super::order_json::{render_capacities, render_custom_fields};
use super::order_shapes::{
    AttachmentRef, AttachmentWire, CustomerRef, ExchangeWire, LineItemWire, OrderSummaryWire,
    OrderWire, TimeWindowWire, TypedTimeWindow,
};
use super::plan_shapes::{EmailEntry, VehicleAssignment};
use super::shapes::{IdRef, Num};
use super::wire::ts_text;

fn line_item(li: &LineItem, catalog: &Catalog) -> LineItemWire {
    let value = li.value();
    LineItemWire {
        id: li.id,
        product_code: li.product_code.clone(),
        product_name: li.product_name.clone(),
        product_quantity: li.quantity,
        product_unit_price: li.unit_price.map(|p| Num(p.to_f64())),
        product_value: value.map(|v| Num(v.0.to_f64())),
        product_value_source: value.map(|v| v.1.as_str()),
        quantity_outstanding: li.quantity_outstanding.map(Num),
        status: li.status.as_str().to_owned(),
        date: li.date.map(|d| d.to_string()),
        capacities: render_capacities(&li.capacities, catalog),
        custom_fields: render_custom_fields(&li.custom_fields, catalog),
    }
}

/// The full order (GET /orders/{id}, PUT /orders/{id}) without its stops, which the caller
/// adds.
pub fn render_order(o: &Order, attachments: &[Attachment], catalog: &Catalog) -> OrderWire {
    let windows = |side: Side| {
        o.time_windows
            .iter()
            .filter(move |w| w.side == side)
            .map(|w| (w.from.to_string(), w.to.to_string()))
    };
    let plain = |side: Side| {
        windows(side)
            .map(|(from, to)| TimeWindowWire { from, to })
            .collect::<Vec<_>>()
    };
    let typed = [Side::Delivery, Side::Pickup]
        .into_iter()
        .flat_map(|side| {
            windows(side).map(move |(from, to)| TypedTimeWindow {
                from,
                to,
                side: side.as_str(),
            })
        })
        .collect();
    let days = |side: Side| -> Vec<&'static str> {
        o.endpoint(side)
            .available_days
            .iter()
            .map(|d| d.as_str())
            .collect()
    };
    let (d, p) = (&o.delivery, &o.pickup);
    let value = o.value().ok().flatten();
    OrderWire {
        id: o.id,
        order_number: o.order_number.clone(),
        kind: o.kind.as_str(),
        status: o.status.as_str().to_owned(),
        priority: o.priority.map(|p| p.as_str()),
        customer_id: o.customer_id,
        delivery_contact_name: d.contact_name.clone(),
        delivery_contact_number: d.contact_number.clone(),
        delivery_contact_email: d.contact_email.clone(),
        delivery_address: d.address.clone(),
        delivery_country_code: d.country_code.clone(),
        delivery_postcode: d.postcode.clone(),
        delivery_lat: d.lat.map(Num),
        delivery_lng: d.lng.map(Num),
        delivery_duration: d.duration.map(Num),
        delivery_notes: d.notes.clone(),
        delivery_time_windows: plain(Side::Delivery),
        delivery_available_days: days(Side::Delivery),
        delivery_date: o.delivery_date.map(|d| d.to_string()),
        pickup_contact_name: p.contact_name.clone(),
        pickup_contact_number: p.contact_number.clone(),
        pickup_contact_email: p.contact_email.clone(),
        pickup_address: p.address.clone(),
        pickup_country_code: p.country_code.clone(),
        pickup_postcode: p.postcode.clone(),
        pickup_lat: p.lat.map(Num),
        pickup_lng: p.lng.map(Num),
        pickup_duration: p.duration.map(Num),
        pickup_notes: p.notes.clone(),
        pickup_time_windows: plain(Side::Pickup),
        pickup_available_days: days(Side::Pickup),
        time_windows: typed,
        order_exchange: o
            .exchange_reference
            .clone()
            .map(|reference| ExchangeWire { reference }),
        parts: o.parts.map(Num),
        vehicle_assignment: o
            .vehicle_id
            .map(|vehicle_id| VehicleAssignment { vehicle_id }),
        emails: o
            .emails
            .iter()
            .map(|e| EmailEntry { email: e.clone() })
            .collect(),
        third_party: o.third_party_id.map(|id| IdRef { id }),
        tags: o.tags.clone(),
        skills: o.skills.clone(),
        capacities: render_capacities(&o.capacities, catalog),
        custom_fields: render_custom_fields(&o.custom_fields, catalog),
        order_value: value.map(|v| Num(v.0.to_f64())),
        currency: value.map(|_| DEFAULT_CURRENCY),
        value_source: value.map(|v| v.1.as_str()),
        line_items: o
            .line_items
            .iter()
            .map(|li| line_item(li, catalog))
            .collect(),
        stops: Vec::new(),
        attachments: attachments
            .iter()
            .map(|a| AttachmentRef {
                id: a.id,
                name: a.name.clone(),
            })
            .collect(),
        created: ts_text(o.created),
        updated: ts_text(o.updated),
    }
}

/// The order list view, without its stops, which the caller adds.
pub fn render_summary(o: &OrderSummary) -> OrderSummaryWire {
    OrderSummaryWire {
        id: o.id,
        order_number: o.order_number.clone(),
        status: o.status.as_str().to_owned(),
        kind: o.kind.as_str(),
        stops: Vec::new(),
        line_items: o.line_item_ids.iter().map(|&id| IdRef { id }).collect(),
        customer: o.customer.as_ref().map(|(id, account)| CustomerRef {
            id: *id,
            account: account.clone(),
        }),
        created: ts_text(o.created),
        updated: ts_text(o.updated),
    }
}

/// An attachment as the upload answers it.
pub fn render_attachment(a: &Attachment) -> AttachmentWire {
    AttachmentWire {
        id: a.id,
        order_id: a.order_id.to_string(),
        depot_id: a.depot_id,
        name: a.name.clone(),
        mime: a.mime.clone(),
        ext: a.ext.clone(),
        size: a.size,
        is_compressed: a.is_compressed,
        modified: ts_text(a.modified),
        created: ts_text(a.created),
    }
}
