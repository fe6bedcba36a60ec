//! An order's status through its transition function: one event for a live order inside the
//! caller's transaction, with the `orders.status` events written to the outbox in it.

use super::ServiceError;
use crate::events::DomainEvent;
use crate::model::order::Order;
use crate::model::organisation::DepotScope;
use crate::ports::store::{StoreError, StoreTx};
use crate::service::Found;
use crate::status::{transition, OrderEvent, OrderState, OrderStatusChanged};
use crate::time::Timestamp;

/// Runs one status event (route or plan dispatch, removal from a route, plan deletion, a
/// driver's outcome ...) for a live order inside the caller's transaction: the transition
/// function decides, the new order and line-item statuses are stored, and the `orders.status`
/// events go to the outbox in the same transaction. Returns the events written; a refused
/// transition is 400 INVALID_INPUT at path `status` (callers that skip such orders match on it).
pub fn apply_status_event(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order_id: i64,
    event: OrderEvent,
    now: Timestamp,
) -> Result<Vec<OrderStatusChanged>, ServiceError> {
    let order = tx.get_order(scope, order_id).found("order")?;
    apply_status_event_to(tx, scope, order, event, now)
}

/// [`apply_status_event`] for an order the caller has just read in the same transaction.
pub fn apply_status_event_to(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    mut order: Order,
    event: OrderEvent,
    now: Timestamp,
) -> Result<Vec<OrderStatusChanged>, ServiceError> {
    let state = OrderState {
        order_id: order.id,
        order_number: order.order_number.clone(),
        status: order.status.clone(),
        line_items: order.line_items.iter().map(|i| i.status.clone()).collect(),
    };
    let t = transition(&state, event).map_err(|e| {
        ServiceError::invalid(
            vec!["status".into()],
            "a status change this order allows",
            order.status.as_str(),
            &e.to_string(),
        )
    })?;
    if t.events.is_empty() {
        return Ok(Vec::new());
    }
    order.status = t.state.status;
    for (item, status) in order.line_items.iter_mut().zip(t.state.line_items) {
        item.status = status;
    }
    order.updated = now;
    tx.update_order(scope, &order)?;
    write_events(tx, scope, &t.events, now)?;
    Ok(t.events)
}

/// Writes `orders.status` events to the outbox.
pub(super) fn write_events(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    events: &[OrderStatusChanged],
    now: Timestamp,
) -> Result<(), StoreError> {
    for e in events {
        tx.append_event(scope, &DomainEvent::from(e), now)?;
    }
    Ok(())
}
