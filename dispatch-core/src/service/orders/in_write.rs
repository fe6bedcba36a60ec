//! A POST /orders batch checked in its write transaction: on a store whose writers of a
//! depot's orders run side by side, a batch that needs nothing done before its transaction (no
//! customer, no exchange pair, nothing to geocode) reads the depot with its statuses in the
//! transaction's first statement, together with the catalog and which numbers are stored
//! ([`OrderRepo::order_batch_start`]), and is checked after it: one round trip and one
//! statement fewer than reading the depot before the transaction.
//!
//! [`OrderRepo::order_batch_start`]: crate::ports::store::OrderRepo::order_batch_start

use std::collections::HashMap;

use super::batch::Batch;
use super::{write_side_by_side, WrittenOrder};
use crate::model::order_input::{OrderChanges, OrderInput};
use crate::model::order_validate::validate_order_batch;
use crate::model::organisation::DepotScope;
use crate::ports::idempotency::BeforeCommit;
use crate::ports::store::{BatchStart, Store, StoreTx};
use crate::service::customers::catalog;
use crate::service::order_geocoding::Located;
use crate::service::ServiceError;
use crate::status::{Status, StatusSet};
use crate::time::Timestamp;

/// The batch as checked by the first run of its write: its orders' changes, the statuses they
/// were checked against, and the depot's starting status.
type Checked = (Vec<OrderChanges>, StatusSet, Status);

/// [`super::upsert_batch`] for a batch of `inputs` that needs nothing done before its write
/// transaction, on a store whose writers of orders run side by side. The batch is checked once,
/// by the first run of its write (a run after a conflict reuses the checks); problems answer
/// as [`super::upsert_batch`] answers them, after the transaction rolls back.
pub(super) fn upsert_checked_in_write(
    store: &dyn Store,
    scope: DepotScope,
    inputs: Vec<OrderInput>,
    now: Timestamp,
    last: &dyn BeforeCommit<Vec<WrittenOrder>>,
) -> Result<Vec<WrittenOrder>, ServiceError> {
    // The numbers as sent, in the order the batch writes them (by number): checks keep an
    // order's number as sent, so these are the checked batch's.
    let mut numbers: Vec<String> = inputs
        .iter()
        .map(|o| o.order_number.clone().flatten().unwrap_or_default())
        .collect();
    numbers.sort();
    let numbers: Vec<&str> = numbers.iter().map(String::as_str).collect();
    let mut inputs = inputs;
    let mut checked: Option<Checked> = None;
    let (located, customer_located) = (Located::new(), HashMap::new());
    write_side_by_side(store, scope, last, &mut |tx, events_allowed| {
        let start = first_statement(tx, scope, &numbers)?;
        let (depot, custom) = start.depot.ok_or(ServiceError::NotFound("depot"))?;
        let (all, statuses, starting) = match &mut checked {
            Some(checked) => checked,
            None => {
                let statuses = StatusSet::new(custom);
                let all = validate_order_batch(std::mem::take(&mut inputs), &statuses)?;
                let starting = Status::from_stored(depot.settings.starting_status.clone());
                checked.insert((all, statuses, starting))
            }
        };
        let (all, statuses, starting) = (&*all, &*statuses, &*starting);
        if !depot.settings.allow_orders_without_customer && all.iter().any(|c| c.customer.is_none())
        {
            return Err(ServiceError::Permission(
                "this depot does not allow orders without a customer".to_owned(),
            ));
        }
        let mut order: Vec<usize> = (0..all.len()).collect();
        order.sort_by_key(|&i| all[i].order_number.as_deref());
        let batch = Batch {
            scope,
            all,
            order,
            statuses,
            starting,
            located: &located,
            customer_located: &customer_located,
            now,
            where_new: true,
        };
        batch.write_from(tx, events_allowed, &start.catalog, start.stored)
    })
}

/// The batch's first statement where the store asks it as one, else its questions one by one.
fn first_statement(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    numbers: &[&str],
) -> Result<BatchStart, ServiceError> {
    if let Some(start) = tx.order_batch_start(scope, numbers, true)? {
        return Ok(start);
    }
    Ok(BatchStart {
        depot: tx.get_depot_with_statuses(scope)?,
        catalog: catalog(tx, scope)?,
        stored: tx.stored_order_sizes(scope, numbers)?,
    })
}
