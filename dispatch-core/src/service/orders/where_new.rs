//! A POST /orders batch that looks new, inserted where its numbers are free: on a store whose
//! writers of a depot's orders run side by side, the batch's orders are merged as new ones and
//! inserted by [`OrderRepo::insert_orders_where_new`] without asking first which numbers are
//! stored (a question per number that, for a batch of new orders, finds nothing). The numbers
//! it finds held (stored before, or by a concurrent writer that committed first) are then read,
//! locked, and merged as stored orders, as if they had been found first.
//!
//! [`OrderRepo::insert_orders_where_new`]: crate::ports::store::OrderRepo::insert_orders_where_new

use super::batch::{back_to_posted, text_bytes, Batch, RUN_TEXT_BYTES};
use super::{under, WrittenOrder};
use crate::model::order::Order;
use crate::model::order_fields::Catalog;
use crate::model::order_merge::{merge_posted_order, OrderContext, OrderMerge};
use crate::ports::store::StoreTx;
use crate::service::order_geocoding::apply_geocoding;
use crate::service::order_references::check_references;
use crate::service::ServiceError;

impl Batch<'_> {
    /// Inserts the batch's orders, merged as new ones, where their numbers are free, then
    /// merges and writes those whose numbers are held as stored orders; the written orders in
    /// the posted order. `None` before anything is written when an order does not merge as a
    /// new one alone (a merge fails, or writes an event) or the batch's text is large: the
    /// caller writes the batch the ordinary way, which answers alike, problems in the batch's
    /// order. Without `events_allowed`, a held order whose merge writes an event stops the
    /// write with a [`WRITES_EVENTS`](super::WRITES_EVENTS) conflict.
    pub(super) fn insert_where_new(
        &self,
        tx: &mut dyn StoreTx,
        catalog: &Catalog,
        events_allowed: bool,
    ) -> Result<Option<Vec<WrittenOrder>>, ServiceError> {
        let (scope, order) = (self.scope, &self.order);
        let Some((mut written, orders)) = self.merge_as_new(self.context(catalog)) else {
            return Ok(None);
        };
        for &i in order {
            check_references(tx, scope, &self.all[i]).map_err(|e| under(e, i))?;
        }
        let mut held = Vec::new();
        for (at, id) in tx
            .insert_orders_where_new(scope, &orders)?
            .into_iter()
            .enumerate()
        {
            match id {
                Some(id) => written[at].id = id,
                None => held.push(at),
            }
        }
        drop(orders);
        if !held.is_empty() {
            // The held orders, in the batch's order (by number): read and locked as a batch
            // that found them first reads and locks them, then merged as stored.
            let stored = Batch {
                order: held.iter().map(|&at| order[at]).collect(),
                ..*self
            };
            let numbers = stored.numbers();
            let sizes = tx.stored_order_sizes(scope, &numbers)?;
            let merged = stored.merge_and_write(tx, events_allowed, catalog, &sizes)?;
            for (at, w) in held.into_iter().zip(merged) {
                written[at] = w;
            }
        }
        Ok(Some(back_to_posted(order, written)))
    }

    /// The batch's orders merged as new ones, with what is written of each (ids still 0), in
    /// the batch's order; `None` when an order does not merge as a new one alone (a merge fails,
    /// or writes an event) or the batch's text reaches [`RUN_TEXT_BYTES`]: a large batch is
    /// written in runs, which the ordinary way bounds.
    pub(super) fn merge_as_new(
        &self,
        ctx: OrderContext<'_>,
    ) -> Option<(Vec<WrittenOrder>, Vec<Order>)> {
        let mut written = Vec::with_capacity(self.order.len());
        let mut orders = Vec::with_capacity(self.order.len());
        let mut text = 0;
        for &i in &self.order {
            let OrderMerge {
                order: mut merged,
                events,
                geocode,
            } = merge_posted_order(None, &self.all[i], None, ctx).ok()?;
            text += text_bytes(&merged);
            if !events.is_empty() || text >= RUN_TEXT_BYTES {
                return None;
            }
            let geocoding_failed =
                apply_geocoding(&mut merged, &geocode, |side| self.located.get(&(i, side)));
            written.push(WrittenOrder {
                id: 0,
                order_number: merged.order_number.clone(),
                is_created: true,
                geocoding_failed,
            });
            orders.push(merged);
        }
        Some((written, orders))
    }
}
