//! Order writes: POST /orders (bulk create-or-update by order_number) and PUT /orders/{id}.
//! The whole batch is checked before anything is written; then every order is merged and
//! stored in one transaction, with its `orders.status` events written to the outbox in it.

use std::collections::HashMap;

use super::customers::catalog;
use super::order_events::write_events;
use super::order_geocoding::{apply_geocoding, geocode_end, locate_new_customers, Located};
use super::order_references::{check_references, resolve_customer};
use super::order_statuses::statuses;
use super::ServiceError;
use crate::error::{ValidationErrors, ValidationIssue};
use crate::model::location::Coordinates;
use crate::model::order::{Endpoint, Order, Side};
use crate::model::order_fields::{Catalog, CustomFieldValue};
use crate::model::order_input::{EndpointFields, OrderChanges, OrderInput, OrderWrite};
use crate::model::order_merge::{apply_order_update, merge_posted_order, OrderContext, OrderMerge};
use crate::model::order_validate::{validate_order, validate_order_batch};
use crate::model::organisation::DepotScope;
use crate::ports::geocoder::Geocoder;
use crate::ports::idempotency::{BeforeCommit, SharedBeforeCommit, CLAIM_LOST};
use crate::ports::store::{Store, StoreError, StoreTx, StoredSizes};
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

/// The stored text a batch reads in one question: the stored orders it updates are read in
/// runs whose text stays within this (a run holds at least one order), small beside the
/// posted batch, so a batch that updates large stored orders never holds them all at once,
/// and a batch of ordinary ones is one question.
const STORED_RUN_BYTES: usize = 1 << 20;

/// What an order whose size the store does not tell counts against [`STORED_RUN_BYTES`]:
/// sixteen of them to a run.
const UNSIZED_ORDER_BYTES: usize = STORED_RUN_BYTES / 16;

/// The next run of stored orders to read: the stored ones among `numbers` (the batch's from
/// the current order on, in the order it writes them), from the first, while their text fits
/// in [`STORED_RUN_BYTES`]; at least one.
fn stored_run<'a>(numbers: &[&'a str], stored: &StoredSizes) -> Vec<&'a str> {
    let (mut run, mut bytes) = (Vec::new(), 0);
    for &number in numbers {
        let Some(size) = stored.get(number) else {
            continue;
        };
        let size = size.unwrap_or(UNSIZED_ORDER_BYTES);
        if !run.is_empty() && bytes + size > STORED_RUN_BYTES {
            break;
        }
        run.push(number);
        bytes += size;
    }
    run
}

/// The text of the new orders a run of a batch holds before they are written: a batch of
/// ordinary orders goes in with one statement per table on PostgreSQL (each is a round trip),
/// one of large orders a few at a time, as the stored ones are read.
const RUN_TEXT_BYTES: usize = 1 << 20;

/// About how many bytes of text an order holds (its strings; numbers and ids aside).
fn text_bytes(o: &Order) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    let end = |e: &Endpoint| {
        [
            &e.contact_name,
            &e.contact_number,
            &e.contact_email,
            &e.address,
            &e.country_code,
            &e.postcode,
            &e.notes,
        ]
        .into_iter()
        .map(opt)
        .sum::<usize>()
    };
    let list = |l: &[String]| l.iter().map(String::len).sum::<usize>();
    let fields = |f: &[CustomFieldValue]| f.iter().map(|f| f.value.len()).sum::<usize>();
    o.order_number.len()
        + end(&o.delivery)
        + end(&o.pickup)
        + opt(&o.exchange_reference)
        + list(&o.emails)
        + list(&o.tags)
        + list(&o.skills)
        + fields(&o.custom_fields)
        + o.line_items
            .iter()
            .map(|li| li.product_code.len() + li.product_name.len() + fields(&li.custom_fields))
            .sum::<usize>()
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

/// A checked POST /orders batch with what was looked up for it before its transaction.
struct Batch<'a> {
    scope: DepotScope,
    all: &'a [OrderChanges],
    /// The places in `all` in the order they are written.
    order: Vec<usize>,
    statuses: &'a StatusSet,
    starting: &'a Status,
    located: &'a Located,
    customer_located: &'a HashMap<usize, Coordinates>,
    now: Timestamp,
    /// Whether its new orders are inserted where their numbers are free, without asking
    /// first which are stored ([`Batch::insert_where_new`]): a batch of orders only, written
    /// beside the depot's other writers of orders.
    where_new: bool,
}

impl Batch<'_> {
    /// The batch's order numbers in the order they are written.
    fn numbers(&self) -> Vec<&str> {
        self.order
            .iter()
            .map(|&i| self.all[i].order_number.as_deref().unwrap_or_default())
            .collect()
    }

    /// The context orders of the batch merge in, with the depot's `catalog`.
    fn context<'c>(&'c self, catalog: &'c Catalog) -> OrderContext<'c> {
        OrderContext {
            catalog,
            statuses: self.statuses,
            starting_status: self.starting,
            now: self.now,
        }
    }

    /// Merges and writes every order of the batch in `tx`; without `events_allowed`, stops with a
    /// [`WRITES_EVENTS`] conflict before writing an event.
    fn write(
        &self,
        tx: &mut dyn StoreTx,
        events_allowed: bool,
    ) -> Result<Vec<WrittenOrder>, ServiceError> {
        let (scope, numbers) = (self.scope, self.numbers());
        // A batch inserted where its numbers are free asks which are stored only when its
        // first number is: one that looks new is inserted without a question per number.
        let (catalog, stored) =
            match tx.catalog_with_stored_order_sizes(scope, &numbers, self.where_new)? {
                Some(both) => both,
                None => (catalog(tx, scope)?, tx.stored_order_sizes(scope, &numbers)?),
            };
        self.write_from(tx, events_allowed, &catalog, stored)
    }

    /// [`Batch::write`] after its first statement: the depot's `catalog`, and the `stored`
    /// orders among the batch's numbers as
    /// [`OrderRepo::catalog_with_stored_order_sizes`](crate::ports::store::OrderRepo::catalog_with_stored_order_sizes)
    /// tells them with `unless_first_new` set to `where_new`.
    fn write_from(
        &self,
        tx: &mut dyn StoreTx,
        events_allowed: bool,
        catalog: &Catalog,
        stored: StoredSizes,
    ) -> Result<Vec<WrittenOrder>, ServiceError> {
        let stored = match self.where_new && stored.is_empty() {
            true => {
                if let Some(written) = self.insert_where_new(tx, catalog, events_allowed)? {
                    return Ok(written);
                }
                // Not every order merges as a new one alone: which are stored, asked for each.
                tx.stored_order_sizes(self.scope, &self.numbers())?
            }
            false => stored,
        };
        let written = self.merge_and_write(tx, events_allowed, catalog, &stored)?;
        Ok(back_to_posted(&self.order, written))
    }

    /// Merges every order of the batch with its stored one (`stored_numbers`: which are
    /// stored, with their sizes) and writes them in `tx`, in the batch's order; without
    /// `events_allowed`, stops with a [`WRITES_EVENTS`] conflict before writing an event.
    fn merge_and_write(
        &self,
        tx: &mut dyn StoreTx,
        events_allowed: bool,
        catalog: &Catalog,
        stored_numbers: &StoredSizes,
    ) -> Result<Vec<WrittenOrder>, ServiceError> {
        let Batch {
            scope,
            all,
            ref order,
            located,
            customer_located,
            now,
            ..
        } = *self;
        let numbers = self.numbers();
        let ctx = self.context(catalog);
        let mut written: Vec<WrittenOrder> = Vec::with_capacity(all.len());
        let mut references: Vec<(usize, &str)> = Vec::new();
        // The orders of the current run, written together when it ends (one statement per
        // table where the store allows): new ones with their places in `written`, and
        // updated or restored ones. Which orders are stored is asked once for the batch;
        // the stored ones are read in runs of STORED_RUN_BYTES, a run ending before each read, and
        // new ones end a run when their text reaches RUN_TEXT_BYTES: runs are written and
        // dropped as they end, so a batch never holds its text twice (a batch that updates
        // large stored orders would otherwise hold them all beside the posted ones).
        let mut run = Run::default();
        let mut stored = HashMap::new();
        let mut new_text = 0;
        for (at, &i) in order.iter().enumerate() {
            let changes = &all[i];
            if stored_numbers.contains_key(numbers[at]) && !stored.contains_key(numbers[at]) {
                run.write(tx, scope, &mut written)?;
                new_text = 0;
                let next = stored_run(&numbers[at..], stored_numbers);
                stored = tx.find_orders_by_numbers(scope, &next)?;
            }
            let customer_id = match &changes.customer {
                Some(c) => {
                    let geocoded = customer_located.get(&i).copied();
                    Some(
                        resolve_customer(tx, scope, c, changes, geocoded, now)
                            .map_err(|e| under(e, i))?,
                    )
                }
                None => None,
            };
            check_references(tx, scope, changes).map_err(|e| under(e, i))?;
            let existing = stored.remove(numbers[at]);
            let merged = merge_posted_order(
                existing.as_ref().map(|n| &n.order),
                changes,
                customer_id,
                ctx,
            )
            .map_err(|e| under(e.into(), i))?;
            let OrderMerge {
                mut order,
                events,
                geocode,
            } = merged;
            let geocoding_failed =
                apply_geocoding(&mut order, &geocode, |side| located.get(&(i, side)));
            if !events_allowed && !events.is_empty() {
                return Err(StoreError::Conflict(WRITES_EVENTS.to_owned()).into());
            }
            write_events(tx, scope, &events, now)?;
            if let Some(reference) = &changes.exchange_reference {
                references.push((written.len(), reference));
            }
            written.push(WrittenOrder {
                id: order.id,
                order_number: order.order_number.clone(),
                is_created: existing.is_none(),
                geocoding_failed,
            });
            match &existing {
                Some(_) => run.updated.push(order),
                None => {
                    new_text += text_bytes(&order);
                    run.new.push((written.len() - 1, order));
                    if new_text >= RUN_TEXT_BYTES {
                        run.write(tx, scope, &mut written)?;
                        new_text = 0;
                    }
                }
            }
        }
        run.write(tx, scope, &mut written)?;
        let mut pairs: HashMap<&str, Vec<i64>> = HashMap::new();
        for (at, reference) in references {
            pairs.entry(reference).or_default().push(written[at].id);
        }
        for (reference, ids) in pairs {
            if let [a, b] = ids[..] {
                tx.link_exchange(scope, [a, b], reference)?;
            }
        }
        Ok(written)
    }
}

/// `written` (in `order`'s order) back in the posted order.
fn back_to_posted(order: &[usize], written: Vec<WrittenOrder>) -> Vec<WrittenOrder> {
    let mut posted: Vec<(usize, WrittenOrder)> = order.iter().copied().zip(written).collect();
    posted.sort_by_key(|(i, _)| *i);
    posted.into_iter().map(|(_, w)| w).collect()
}

/// The merged orders of one run of [`upsert_batch`], not yet written.
#[derive(Default)]
struct Run {
    /// New orders with their places in the batch's `written`.
    new: Vec<(usize, Order)>,
    /// Stored orders, updated or restored.
    updated: Vec<Order>,
}

impl Run {
    /// Writes the run with one store call for its new orders and one for its updated ones,
    /// fills in the new orders' ids, and leaves the run empty.
    fn write(
        &mut self,
        tx: &mut dyn StoreTx,
        scope: DepotScope,
        written: &mut [WrittenOrder],
    ) -> Result<(), StoreError> {
        if !self.updated.is_empty() {
            tx.update_orders(scope, &self.updated)?;
            self.updated.clear();
        }
        if self.new.is_empty() {
            return Ok(());
        }
        let (places, orders): (Vec<usize>, Vec<Order>) = self.new.drain(..).unzip();
        let ids = tx.insert_orders(scope, &orders)?;
        for (place, id) in places.into_iter().zip(ids) {
            written[place].id = id;
        }
        Ok(())
    }
}

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

mod in_write;
mod new_orders;
mod where_new;

#[cfg(test)]
#[path = "orders_tests.rs"]
mod tests;
