//! Orders of a whole POST /orders batch at once: their stored state found in one question per
//! table, new ones inserted with their line items' ids reserved in one move of the allocator.

use std::collections::HashMap;

use crate::sql::{params_from_iter, Connection, Dialect, Statement, Val};
use dispatch_core::model::line_item::LineItem;
use dispatch_core::model::order::Order;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{NumberedOrder, StoreError};

use super::order_rows::{
    decode, decode_item, item_row, order_row, OrderRow, COLUMNS, ITEM_COLUMNS,
};
use super::{Db, Sql, IN_CHUNK};

/// Rows per multi-row INSERT: 22 parameters an order row, well under PostgreSQL's 65 535.
const ROWS_PER_STATEMENT: usize = 500;

/// `?, ?, ...` for `n` parameters.
fn marks(n: usize) -> String {
    let mut s = String::with_capacity(n * 3);
    for i in 0..n {
        s.push_str(if i == 0 { "?" } else { ", ?" });
    }
    s
}

impl<C: Connection> Db<C> {
    /// The orders of the depot with these numbers, deleted ones included, by number.
    pub(super) fn orders_by_numbers(
        &self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<HashMap<String, NumberedOrder>, StoreError> {
        let mut rows: Vec<OrderRow> = Vec::new();
        for chunk in numbers.chunks(IN_CHUNK) {
            let mut q = self
                .0
                .prepare(&format!(
                    "SELECT {COLUMNS} FROM orders WHERE depot_id = ? AND order_number IN ({})",
                    marks(chunk.len())
                ))
                .st()?;
            let args = std::iter::once(Val::Int(scope.depot_id))
                .chain(chunk.iter().map(|n| Val::Text((*n).to_owned())));
            for row in q.query_map(params_from_iter(args), order_row).st()? {
                rows.push(row.st()?);
            }
        }
        let mut items = self.line_items_of(&rows.iter().map(|r| r.id).collect::<Vec<_>>())?;
        rows.into_iter()
            .map(|r| {
                let deleted = r.deleted;
                let order = decode(r, Vec::new())?;
                let line_items = items.remove(&order.id).unwrap_or_default();
                Ok((
                    order.order_number.clone(),
                    NumberedOrder {
                        order: Order {
                            line_items,
                            ..order
                        },
                        deleted,
                    },
                ))
            })
            .collect()
    }

    /// The line items of these orders in position order, by order id.
    fn line_items_of(&self, orders: &[i64]) -> Result<HashMap<i64, Vec<LineItem>>, StoreError> {
        let mut items: HashMap<i64, Vec<LineItem>> = HashMap::new();
        for chunk in orders.chunks(IN_CHUNK) {
            let mut q = self
                .0
                .prepare(&format!(
                    "SELECT order_id, {ITEM_COLUMNS} FROM order_line_items \
                     WHERE order_id IN ({}) ORDER BY order_id, position",
                    marks(chunk.len())
                ))
                .st()?;
            let rows = q
                .query_map(params_from_iter(chunk.iter().copied()), |r| {
                    Ok((r.get::<_, i64>(0)?, item_row(r, 1)?))
                })
                .st()?;
            for row in rows {
                let (order, item) = row.st()?;
                items.entry(order).or_default().push(decode_item(item)?);
            }
        }
        Ok(items)
    }

    /// Inserts new orders with their line items; returns their ids in order.
    pub(super) fn insert_new_orders(
        &self,
        scope: DepotScope,
        orders: &[Order],
    ) -> Result<Vec<i64>, StoreError> {
        if C::DIALECT == Dialect::Postgres {
            return self.insert_new_orders_at_once(scope, orders);
        }
        let new_items = orders
            .iter()
            .flat_map(|o| &o.line_items)
            .filter(|i| i.id == 0)
            .count();
        let mut reserved = self.reserve_line_item_ids(new_items)?;
        let mut ids = Vec::with_capacity(orders.len());
        for o in orders {
            let id = self.insert_order_row(scope, o)?;
            self.write_line_items(id, &o.line_items, true, &mut reserved)?;
            ids.push(id);
        }
        Ok(ids)
    }

    /// PostgreSQL: the orders' rows in one statement per [`ROWS_PER_STATEMENT`] orders, then
    /// their line items likewise (an order naming its own line-item ids keeps the path that
    /// moves the identity past them): a few round trips per batch instead of two per order.
    fn insert_new_orders_at_once(
        &self,
        scope: DepotScope,
        orders: &[Order],
    ) -> Result<Vec<i64>, StoreError> {
        let mut ids = Vec::with_capacity(orders.len());
        for chunk in orders.chunks(ROWS_PER_STATEMENT) {
            ids.extend(self.insert_order_rows(scope, chunk)?);
        }
        let mut items = Vec::new();
        for (&id, o) in ids.iter().zip(orders) {
            if o.line_items.iter().any(|i| i.id != 0) {
                let mut none = self.reserve_line_item_ids(0)?;
                self.write_line_items(id, &o.line_items, true, &mut none)?;
            } else {
                items.extend(o.line_items.iter().enumerate().map(|(p, i)| (id, p, i)));
            }
        }
        for chunk in items.chunks(ROWS_PER_STATEMENT) {
            self.insert_line_item_rows(chunk)?;
        }
        Ok(ids)
    }
}
