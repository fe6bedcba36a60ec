//! A checked POST /orders batch and how it is written in a transaction: every order merged
//! with its stored one (read in runs of bounded text, [`stored_run`]) and written in runs
//! ([`Run`]: one store call per kind and run), new ones a run of their own when their text
//! grows large ([`RUN_TEXT_BYTES`]).

use std::collections::HashMap;

use super::{under, WrittenOrder, WRITES_EVENTS};
use crate::model::location::Coordinates;
use crate::model::order::{Endpoint, Order};
use crate::model::order_fields::{Catalog, CustomFieldValue};
use crate::model::order_input::OrderChanges;
use crate::model::order_merge::{merge_posted_order, OrderContext, OrderMerge};
use crate::model::organisation::DepotScope;
use crate::ports::store::{StoreError, StoreTx, StoredSizes};
use crate::service::customers::catalog;
use crate::service::order_events::write_events;
use crate::service::order_geocoding::{apply_geocoding, Located};
use crate::service::order_references::{check_references, resolve_customer};
use crate::service::ServiceError;
use crate::status::{Status, StatusSet};
use crate::time::Timestamp;

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
pub(super) fn stored_run<'a>(numbers: &[&'a str], stored: &StoredSizes) -> Vec<&'a str> {
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
pub(super) const RUN_TEXT_BYTES: usize = 1 << 20;

/// About how many bytes of text an order holds (its strings; numbers and ids aside).
pub(super) fn text_bytes(o: &Order) -> usize {
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

/// A checked POST /orders batch with what was looked up for it before its transaction.
pub(super) struct Batch<'a> {
    pub(super) scope: DepotScope,
    pub(super) all: &'a [OrderChanges],
    /// The places in `all` in the order they are written.
    pub(super) order: Vec<usize>,
    pub(super) statuses: &'a StatusSet,
    pub(super) starting: &'a Status,
    pub(super) located: &'a Located,
    pub(super) customer_located: &'a HashMap<usize, Coordinates>,
    pub(super) now: Timestamp,
    /// Whether its new orders are inserted where their numbers are free, without asking
    /// first which are stored ([`Batch::insert_where_new`]): a batch of orders only, written
    /// beside the depot's other writers of orders.
    pub(super) where_new: bool,
}

impl Batch<'_> {
    /// The batch's order numbers in the order they are written.
    pub(super) fn numbers(&self) -> Vec<&str> {
        self.order
            .iter()
            .map(|&i| self.all[i].order_number.as_deref().unwrap_or_default())
            .collect()
    }

    /// The context orders of the batch merge in, with the depot's `catalog`.
    pub(super) fn context<'c>(&'c self, catalog: &'c Catalog) -> OrderContext<'c> {
        OrderContext {
            catalog,
            statuses: self.statuses,
            starting_status: self.starting,
            now: self.now,
        }
    }

    /// Merges and writes every order of the batch in `tx`; without `events_allowed`, stops with a
    /// [`WRITES_EVENTS`] conflict before writing an event.
    pub(super) fn write(
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
    pub(super) fn write_from(
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
    pub(super) fn merge_and_write(
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
pub(super) fn back_to_posted(order: &[usize], written: Vec<WrittenOrder>) -> Vec<WrittenOrder> {
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

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
