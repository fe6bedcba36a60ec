//! Order writes: POST /orders (bulk create-or-update by order_number) and PUT /orders/{id}.
//! The whole batch is checked before anything is written; then every order is merged and
//! stored in one transaction, with its `orders.status` events written to the outbox in it.

use batch::Batch;

use super::customers::catalog;
use super::order_events::write_events;
use super::order_geocoding::{apply_geocoding, geocode_end, locate_new_customers, Located};
use super::order_references::check_references;
use super::order_statuses::statuses;
use super::ServiceError;
use crate::error::{ValidationErrors, ValidationIssue};
use crate::model::order::{Order, Side};
use crate::model::order_input::{EndpointFields, OrderInput, OrderWrite};
use crate::model::order_merge::{apply_order_update, OrderContext, OrderMerge};
use crate::model::order_validate::{validate_order, validate_order_batch};
use crate::model::organisation::DepotScope;
use crate::ports::geocoder::Geocoder;
use crate::ports::idempotency::{BeforeCommit, SharedBeforeCommit, CLAIM_LOST};
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::service::Found;
use crate::status::{Status, StatusSet};
use crate::time::Timestamp;

/// One order written by POST /orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenOrder {
    /// Its id.
    pub id: i64,
    /// Its number.
    pub order_number: String,
    /// True when the order was new (not an update or a restore).
    pub is_created: bool,
    /// Whether an address could not be geocoded (the order was saved without coordinates).
    pub geocoding_failed: bool,
}

/// POST /orders: checks the whole batch (400 on any problem, 403 PERMISSION for an order
/// without a customer where the depot requires one), then creates or updates every order by
/// order_number, restoring deleted ones, and links exchange pairs. `last` runs in the write
/// transaction with what was written (an idempotent response); it is shared, so that a batch
/// of new orders may be written on the store's writer thread ([`Store::run_owned_write`]).
pub fn upsert_batch(
    store: &dyn Store,
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    inputs: Vec<OrderInput>,
    now: Timestamp,
    last: SharedBeforeCommit<Vec<WrittenOrder>>,
) -> Result<Vec<WrittenOrder>, ServiceError> {
    // A batch whose checks wait for nothing outside the store, written beside the depot's
    // other writers of orders, is checked in its write transaction, after a first statement
    // that reads the depot with the rest (one round trip fewer than a read before it).
    if store.order_writes_side_by_side() && inputs.iter().all(needs_nothing_first) {
        return in_write::upsert_checked_in_write(store, scope, inputs, now, &*last);
    }
    // One single read (one round trip on PostgreSQL); the write runs in a transaction of its
    // own after it anyway.
    let (depot, custom) =
        store.read_single(|tx| tx.get_depot_with_statuses(scope).found("depot"))?;
    let settings = depot.settings;
    let statuses = StatusSet::new(custom);
    let all = validate_order_batch(inputs, &statuses)?;
    if !settings.allow_orders_without_customer && all.iter().any(|c| c.customer.is_none()) {
        return Err(ServiceError::Permission(
            "this depot does not allow orders without a customer".to_owned(),
        ));
    }
    let mut located = Located::new();
    for (i, changes) in all.iter().enumerate() {
        for (side, end) in [
            (Side::Delivery, &changes.delivery),
            (Side::Pickup, &changes.pickup),
        ] {
            if let Some(result) = geocode_end(geocoder, scope, &end.fields) {
                located.insert((i, side), result);
            }
        }
    }
    let customer_located = locate_new_customers(geocoder, scope, &all, &located);
    let starting = Status::from_stored(settings.starting_status.clone());
    // A batch of orders only (no customer, no exchange pair) is a write of orders by number,
    // which PostgreSQL runs beside the depot's other such writes; one that a concurrent write
    // got in the way of fails with a conflict and runs again (see Store::run_order_write).
    let orders_only = all
        .iter()
        .all(|c| c.customer.is_none() && c.exchange_reference.is_none());
    let side_by_side = orders_only && store.order_writes_side_by_side();
    let mut order: Vec<usize> = (0..all.len()).collect();
    if side_by_side {
        // Writers beside each other lock and insert their orders in one order (by number),
        // so two batches sharing numbers rarely deadlock.
        order.sort_by_key(|&i| all[i].order_number.as_deref());
    }
    let batch = Batch {
        scope,
        all: &all,
        order,
        statuses: &statuses,
        starting: &starting,
        located: &located,
        customer_located: &customer_located,
        now,
        where_new: side_by_side,
    };
    if !side_by_side {
        // Writers of the depot's orders run one at a time: a batch of new orders is merged
        // and made ready before the write transaction, which then only checks and inserts.
        if orders_only {
            if let Some(written) = batch.write_new(store, &last)? {
                return Ok(written);
            }
        }
        return store.transaction_with_in(scope, &*last, |tx| batch.write(tx, true));
    }
    write_side_by_side(store, scope, &*last, &mut |tx, events_allowed| {
        batch.write(tx, events_allowed)
    })
}

/// Whether a posted order needs nothing done before its batch's write transaction: no
/// customer (found or created, and geocoded, first), no exchange pair, and no end to geocode
/// (one with an address or postcode but not both coordinates, as [`geocode_end`] decides).
fn needs_nothing_first(o: &OrderInput) -> bool {
    let located = |e: &EndpointFields| {
        (!matches!(e.address, Some(Some(_))) && !matches!(e.postcode, Some(Some(_))))
            || (e.lat.flatten().is_some() && e.lng.flatten().is_some())
    };
    o.customer.is_none()
        && o.order_exchange.is_none()
        && located(&o.delivery.fields)
        && located(&o.pickup.fields)
}

/// A batch's write in a transaction, told whether it may write events.
type BatchWrite<'a> =
    dyn FnMut(&mut dyn StoreTx, bool) -> Result<Vec<WrittenOrder>, ServiceError> + 'a;

/// Runs `write` as a write of orders by number beside the depot's other such writes, again
/// when a concurrent write got in its way, and at last alone in the depot.
fn write_side_by_side(
    store: &dyn Store,
    scope: DepotScope,
    last: &dyn BeforeCommit<Vec<WrittenOrder>>,
    write: &mut BatchWrite<'_>,
) -> Result<Vec<WrittenOrder>, ServiceError> {
    for _ in 0..ORDER_WRITE_ATTEMPTS {
        match store.order_transaction_with_in(scope, last, |tx| write(tx, false)) {
            // A status change writes an event: the depot's events are appended one writer at
            // a time, so their ids grow in commit order (webhooks read them by id).
            Err(ServiceError::Store(StoreError::Conflict(message))) if message == WRITES_EVENTS => {
                break;
            }
            Err(ServiceError::Store(StoreError::Conflict(message))) if message != CLAIM_LOST => {}
            result => return result,
        }
    }
    // Alone in the depot (its lock held exclusively), nothing gets in the way.
    store.transaction_with_in(scope, last, |tx| write(tx, true))
}

/// How many times a write of orders by number runs beside others when concurrent writes of
/// the same numbers get in its way (each run after the first sees the others' commits)
/// before it runs as a write of the depot.
const ORDER_WRITE_ATTEMPTS: u32 = 3;

/// Why a write of orders by number stopped: an order's status changed, which writes an event.
const WRITES_EVENTS: &str = "a status change writes an event: a write of the depot";

/// The outcome of PUT /orders/{id}.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdatedOrder {
    /// The order as stored.
    pub order: Order,
    /// Whether a changed address could not be geocoded (saved without coordinates).
    pub geocoding_failed: bool,
}

/// PUT /orders/{id}: a partial update with the spec's rules; unknown order 404.
pub fn update(
    store: &dyn Store,
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    id: i64,
    input: OrderInput,
    now: Timestamp,
) -> Result<UpdatedOrder, ServiceError> {
    let statuses = store.read(|tx| statuses(tx, scope))?;
    let changes = validate_order(input, OrderWrite::Update, &statuses)?;
    let mut located = Located::new();
    for (side, end) in [
        (Side::Delivery, &changes.delivery),
        (Side::Pickup, &changes.pickup),
    ] {
        if end.fields.relocated_without_coordinates() {
            if let Some(result) = geocode_end(geocoder, scope, &end.fields) {
                located.insert((0, side), result);
            }
        }
    }
    store.transaction_in(scope, |tx| {
        let existing = tx.get_order(scope, id).found("order")?;
        let taken = match &changes.order_number {
            Some(n) if *n != existing.order_number => tx.find_order_by_number(scope, n)?.is_some(),
            _ => false,
        };
        check_references(tx, scope, &changes)?;
        let catalog = catalog(tx, scope)?;
        let depot = tx.get_depot(scope).found("depot")?;
        let starting = Status::from_stored(depot.settings.starting_status);
        let ctx = OrderContext {
            catalog: &catalog,
            statuses: &statuses,
            starting_status: &starting,
            now,
        };
        let OrderMerge {
            mut order,
            events,
            geocode,
        } = apply_order_update(&existing, &changes, taken, ctx)?;
        let geocoding_failed =
            apply_geocoding(&mut order, &geocode, |side| located.get(&(0, side)));
        tx.update_order(scope, &order)?;
        write_events(tx, scope, &events, now)?;
        if changes.exchange_reference.is_some()
            && order.exchange_reference != existing.exchange_reference
        {
            if let Some(partner) = tx.exchange_partner(scope, id)? {
                if let Some(mut p) = tx.get_order(scope, partner)? {
                    p.exchange_reference = order.exchange_reference.clone();
                    p.updated = now;
                    tx.update_order(scope, &p)?;
                }
            }
        }
        let order = tx.get_order(scope, id).found("order")?;
        Ok(UpdatedOrder {
            order,
            geocoding_failed,
        })
    })
}

fn under(e: ServiceError, i: usize) -> ServiceError {
    match e {
        ServiceError::Invalid(v) => ServiceError::Invalid(ValidationErrors(
            v.0.into_iter()
                .map(|x: ValidationIssue| x.under(i))
                .collect(),
        )),
        other => other,
    }
}

mod batch;
mod in_write;
mod new_orders;
mod where_new;

#[cfg(test)]
#[path = "orders_tests.rs"]
mod tests;
