//! Create-or-update of orders as pure functions. POST /orders replaces an order's writable
//! fields (the spec asks clients to send each order complete; omitted fields are reset) while
//! the id, status, creation time and matched line items survive. PUT /orders/{id} changes
//! only what was sent, with its own rules: order_number collisions, type changes that leave
//! a needed end without location, an immutable customer, exchange rename only.

use crate::error::ValidationErrors;
use crate::model::line_item::merge_line_items;
use crate::model::order::{Endpoint, Order, OrderType, Side};
use crate::model::order_fields::{custom, key_path, Catalog, CustomFieldMatch};
use crate::model::order_rejection::OrderRejection;
use crate::model::order_validate::{EndpointChanges, OrderChanges};
use crate::model::order_value::Money;
use crate::status::{
    derive_order_status, transition, OrderEvent, OrderState, OrderStatusChanged, Status, StatusSet,
    PARTIAL_PREFIX,
};
use crate::time::Timestamp;

/// What a merge needs besides the order and the changes.
#[derive(Debug, Clone, Copy)]
pub struct OrderContext<'a> {
    /// The depot's reference data.
    pub catalog: &'a Catalog,
    /// The organisation's statuses.
    pub statuses: &'a StatusSet,
    /// The depot's starting status for new orders.
    pub starting_status: &'a Status,
    /// The time of the write.
    pub now: Timestamp,
}

/// A merged order, the events its status change emits, and the ends to geocode.
#[derive(Debug, Clone, PartialEq)]
pub struct OrderMerge {
    /// The order to store.
    pub order: Order,
    /// `orders.status` events to write to the outbox with it.
    pub events: Vec<OrderStatusChanged>,
    /// Ends with an address or postcode but no coordinates that the write touched.
    pub geocode: Vec<Side>,
}

/// POST /orders for one order of a checked batch: creates it, or replaces the writable fields
/// of `existing` (found by order_number, possibly deleted) keeping its id, status and
/// creation time. `customer_id` is the customer the service resolved from `customer`.
pub fn merge_posted_order(
    existing: Option<&Order>,
    changes: &OrderChanges,
    customer_id: Option<i64>,
    ctx: OrderContext<'_>,
) -> Result<OrderMerge, ValidationErrors> {
    let mut errs = ValidationErrors::default();
    let kind = changes.kind.unwrap_or(OrderType::Delivery);
    let base_status = existing.map_or_else(|| ctx.starting_status.clone(), |o| base(&o.status));
    let stored_items = existing.map(|o| o.line_items.as_slice()).unwrap_or(&[]);
    let line_items = match merge_line_items(
        stored_items,
        changes.line_items.as_deref().unwrap_or(&[]),
        ctx.catalog,
        ctx.statuses,
        &base_status,
    ) {
        Ok(items) => items,
        Err(e) => {
            errs.extend(e.0);
            Vec::new()
        }
    };
    let mut order = Order {
        id: existing.map_or(0, |o| o.id),
        order_number: changes.order_number.clone().unwrap_or_default(),
        kind,
        status: existing.map_or_else(|| ctx.starting_status.clone(), |o| o.status.clone()),
        priority: changes.priority.flatten(),
        customer_id,
        delivery: endpoint(&changes.delivery),
        pickup: endpoint(&changes.pickup),
        delivery_date: changes.delivery_date.flatten(),
        time_windows: changes.time_windows.clone().unwrap_or_default(),
        exchange_reference: changes.exchange_reference.clone(),
        parts: changes.parts.flatten(),
        vehicle_id: changes.vehicle_id.flatten(),
        emails: changes.emails.clone().unwrap_or_default(),
        third_party_id: changes.third_party_id.flatten(),
        tags: Catalog::resolve_names(
            &ctx.catalog.tags,
            changes.tags.as_deref().unwrap_or(&[]),
            false,
        ),
        skills: Catalog::resolve_names(
            &ctx.catalog.skills,
            changes.skills.as_deref().unwrap_or(&[]),
            true,
        ),
        capacities: ctx
            .catalog
            .resolve_capacities(changes.capacities.as_deref().unwrap_or(&[]), true),
        custom_fields: ctx.catalog.resolve_custom_fields(
            changes.custom_fields.as_deref().unwrap_or(&[]),
            CustomFieldMatch::IdOrName,
        ),
        manual_value: changes.order_value.flatten(),
        line_items,
        created: existing.map_or(ctx.now, |o| o.created),
        updated: ctx.now,
    };
    check_values(&mut errs, &mut order, changes.order_value.flatten());
    errs.into_result()?;
    let geocode = [Side::Delivery, Side::Pickup]
        .into_iter()
        .filter(|s| order.endpoint(*s).needs_geocoding())
        .collect();
    let events = match existing {
        Some(before) => settle_status(before, &mut order)?,
        None => {
            let statuses: Vec<Status> = order.line_items.iter().map(|i| i.status.clone()).collect();
            order.status =
                derive_order_status(&statuses).unwrap_or_else(|| ctx.starting_status.clone());
            Vec::new()
        }
    };
    Ok(OrderMerge {
        order,
        events,
        geocode,
    })
}

/// Whether [`merge_posted_order`] of these changes reads the catalog: only the reference data
/// they name (tags, skills, capacities and custom fields of the order or of a line item) is
/// looked up in it, so changes naming none merge alike whatever the depot's catalog holds.
pub fn merge_reads_catalog(changes: &OrderChanges) -> bool {
    fn named<T>(list: &Option<Vec<T>>) -> bool {
        list.as_ref().is_some_and(|l| !l.is_empty())
    }
    named(&changes.tags)
        || named(&changes.skills)
        || named(&changes.capacities)
        || named(&changes.custom_fields)
        || changes
            .line_items
            .iter()
            .flatten()
            .any(|item| named(&item.capacities) || named(&item.custom_fields))
}

/// PUT /orders/{id}: only sent fields change. `order_number_taken` says whether a changed
/// order_number already belongs to another order of the depot.
pub fn apply_order_update(
    existing: &Order,
    changes: &OrderChanges,
    order_number_taken: bool,
    ctx: OrderContext<'_>,
) -> Result<OrderMerge, ValidationErrors> {
    let mut errs = ValidationErrors::default();
    let mut order = existing.clone();
    if let Some(number) = &changes.order_number {
        if *number != existing.order_number && order_number_taken {
            errs.push(OrderRejection::OrderNumberTaken(number.clone()).issue());
        }
        order.order_number = number.clone();
    }
    let sent_customer = changes
        .customer_id
        .or_else(|| changes.customer.as_ref().map(|c| c.id));
    if let Some(id) = sent_customer {
        if id != existing.customer_id {
            errs.push(OrderRejection::CustomerImmutable { sent: id }.issue());
        }
    }
    if let Some(kind) = changes.kind {
        order.kind = kind;
    }
    if let Some(p) = changes.priority {
        order.priority = p;
    }
    let mut geocode = Vec::new();
    for (side, ch) in [
        (Side::Delivery, &changes.delivery),
        (Side::Pickup, &changes.pickup),
    ] {
        let end = match side {
            Side::Delivery => &mut order.delivery,
            Side::Pickup => &mut order.pickup,
        };
        let before = (end.address.clone(), end.postcode.clone());
        ch.apply_to(end);
        if ch.fields.relocated_without_coordinates()
            && before != (end.address.clone(), end.postcode.clone())
        {
            // A moved end must not keep the coordinates of its old address.
            end.lat = None;
            end.lng = None;
        }
        if ch.fields.relocated_without_coordinates() && end.needs_geocoding() {
            geocode.push(side);
        }
    }
    for side in order.missing_locations() {
        let type_changed = changes.kind.is_some_and(|k| k != existing.kind);
        errs.push(
            OrderRejection::MissingLocation {
                kind: order.kind,
                side,
                type_changed,
            }
            .issue(),
        );
    }
    if let Some(d) = changes.delivery_date {
        order.delivery_date = d;
    }
    if let Some(windows) = &changes.time_windows {
        order.time_windows = windows.clone();
    }
    if let Some(reference) = &changes.exchange_reference {
        if existing.exchange_reference.is_none() {
            errs.push(OrderRejection::NotInExchange(reference.clone()).issue());
        }
        order.exchange_reference = Some(reference.clone());
    }
    set(&mut order.parts, changes.parts);
    set(&mut order.vehicle_id, changes.vehicle_id);
    set(&mut order.third_party_id, changes.third_party_id);
    if let Some(emails) = &changes.emails {
        order.emails = emails.clone();
    }
    if let Some(tags) = &changes.tags {
        order.tags = Catalog::resolve_names(&ctx.catalog.tags, tags, false);
    }
    if let Some(skills) = &changes.skills {
        order.skills = Catalog::resolve_names(&ctx.catalog.skills, skills, true);
    }
    if let Some(caps) = &changes.capacities {
        order.capacities = ctx.catalog.resolve_capacities(caps, true);
    }
    if let Some(fields) = &changes.custom_fields {
        order.custom_fields = ctx
            .catalog
            .resolve_custom_fields(fields, CustomFieldMatch::IdOrName);
    }
    if let Some(items) = &changes.line_items {
        match merge_line_items(
            &existing.line_items,
            items,
            ctx.catalog,
            ctx.statuses,
            &base(&existing.status),
        ) {
            Ok(items) => order.line_items = items,
            Err(e) => errs.extend(e.0),
        }
    }
    let kept = order.manual_value;
    if let Some(v) = changes.order_value {
        order.manual_value = v;
    }
    if check_values(&mut errs, &mut order, changes.order_value.flatten()) {
        order.manual_value = kept;
    }
    order.updated = ctx.now;
    errs.into_result()?;
    let events = settle_status(existing, &mut order)?;
    Ok(OrderMerge {
        order,
        events,
        geocode,
    })
}

fn set<T>(field: &mut Option<T>, change: Option<Option<T>>) {
    if let Some(v) = change {
        *field = v;
    }
}

fn endpoint(changes: &EndpointChanges) -> Endpoint {
    let mut end = Endpoint::default();
    changes.apply_to(&mut end);
    end
}

/// The status a new line item starts with on an existing order: the order's own status, or
/// OPEN when the order is partially done (a new item has not been worked on).
fn base(status: &Status) -> Status {
    if status.as_str().starts_with(PARTIAL_PREFIX) {
        Status::open()
    } else {
        status.clone()
    }
}

/// Refuses an `order_value` sent for an order whose line items carry values, unless it is
/// the value those line items give (a read sent back unchanged): then it changes nothing, and
/// the answer is true (the caller keeps the manual value it had).
fn check_values(errs: &mut ValidationErrors, order: &mut Order, sent: Option<Money>) -> bool {
    let mut echoed = false;
    if let Some(sent) = sent {
        if order.has_valued_line_items() {
            echoed = matches!(order.value(), Ok(Some((total, _))) if total == sent);
            if echoed {
                order.manual_value = None;
            } else {
                errs.push(OrderRejection::ValueWithValuedLineItems.issue());
            }
        }
    }
    if order.value().is_err() {
        errs.push(OrderRejection::ValueTooLarge.issue());
    }
    echoed
}

/// Runs the line-item statuses of `order` through the transition function from `before`.
fn settle_status(
    before: &Order,
    order: &mut Order,
) -> Result<Vec<OrderStatusChanged>, ValidationErrors> {
    let state = OrderState {
        order_id: before.id,
        order_number: order.order_number.clone(),
        status: before.status.clone(),
        line_items: before.line_items.iter().map(|i| i.status.clone()).collect(),
    };
    let items: Vec<Status> = order.line_items.iter().map(|i| i.status.clone()).collect();
    let mut events = if items == state.line_items {
        order.status = before.status.clone();
        Vec::new()
    } else {
        let t = transition(&state, OrderEvent::LineItemsReplaced(items)).map_err(|e| {
            ValidationErrors(vec![custom(
                key_path(&["line_items"]),
                "settable statuses",
                "",
                e.to_string(),
            )])
        })?;
        // Adding or removing line items is not a status change; a kept item's new status or a
        // new order status is.
        let kept_item_changed = order.line_items.iter().any(|after| {
            after.id != 0
                && before
                    .line_items
                    .iter()
                    .any(|b| b.id == after.id && b.status != after.status)
        });
        let changed = t.state.status != before.status || kept_item_changed;
        order.status = t.state.status;
        if changed {
            t.events
        } else {
            Vec::new()
        }
    };
    if order.delivery_date != before.delivery_date && order.delivery_date.is_some() {
        let now = OrderState {
            order_id: before.id,
            order_number: order.order_number.clone(),
            status: order.status.clone(),
            line_items: order.line_items.iter().map(|i| i.status.clone()).collect(),
        };
        let t = transition(&now, OrderEvent::Redated).expect("a re-date is always accepted");
        if !t.events.is_empty() {
            order.status = t.state.status;
            for (item, status) in order.line_items.iter_mut().zip(t.state.line_items) {
                item.status = status;
            }
            // One write, one status change: the event carries the status it ends with.
            let unchanged = order.status == before.status
                && order.line_items.iter().all(|i| {
                    before
                        .line_items
                        .iter()
                        .any(|b| b.id == i.id && b.status == i.status)
                });
            events = if unchanged { Vec::new() } else { t.events };
        }
    }
    Ok(events)
}

#[cfg(test)]
#[path = "order_tests.rs"]
mod tests;
