//! New orders inserted: SQLite one row at a time, PostgreSQL several to a statement
//! ([`in_statements`]), and where their numbers are free (`ON CONFLICT DO NOTHING`); their
//! line items after them, together ([`Db::write_line_items`]).

use std::collections::{HashMap, HashSet};

use crate::sql::{params_from_iter, Connection, Dialect, Statement, ToSql as _, Val};
use dispatch_core::model::line_item::LineItem;
use dispatch_core::model::order::Order;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::StoreError;

use super::batch_sql::{columns, in_statements, unnest};
use super::order_rows::{order_types, order_values, ORDER_TYPES, ORDER_WRITTEN};
use super::{Db, Sql};

impl<C: Connection> Db<C> {
    /// Inserts new orders with their line items; returns their ids in order. SQLite inserts
    /// the order rows one by one (a multi-row INSERT is a multi-write statement with a
    /// statement journal, which a one-row one is not); PostgreSQL several to a statement
    /// ([`in_statements`]: one round trip instead of one per order).
    pub(super) fn insert_new_orders(
        &self,
        scope: DepotScope,
        orders: &[Order],
    ) -> Result<Vec<i64>, StoreError> {
        if C::DIALECT == Dialect::Postgres {
            return self
                .insert_orders_in_statements(scope, orders, false)?
                .into_iter()
                .map(|id| {
                    id.ok_or_else(|| StoreError::Backend("an inserted order returned no id".into()))
                })
                .collect();
        }
        let mut ids = Vec::with_capacity(orders.len());
        for o in orders {
            ids.push(self.insert_order_row(scope, o)?);
        }
        let items: Vec<(i64, &[LineItem])> = ids
            .iter()
            .zip(orders)
            .map(|(&id, o)| (id, o.line_items.as_slice()))
            .collect();
        self.write_line_items(&items, Some(HashSet::new()))?;
        Ok(ids)
    }

    /// [`OrderRepo::insert_orders_where_new`] on PostgreSQL: the orders inserted as
    /// [`Db::insert_new_orders`] inserts them, each statement `ON CONFLICT (depot_id,
    /// order_number) DO NOTHING`: a number the depot holds is skipped by the unique index
    /// itself (one probe each, the one any insert makes), and one a concurrent writer has
    /// inserted is waited for and skipped once that writer commits. No number is looked up
    /// before.
    ///
    /// [`OrderRepo::insert_orders_where_new`]: dispatch_core::ports::store::OrderRepo::insert_orders_where_new
    pub(super) fn insert_where_new(
        &self,
        scope: DepotScope,
        orders: &[Order],
    ) -> Result<Vec<Option<i64>>, StoreError> {
        self.insert_orders_in_statements(scope, orders, true)
    }

    /// The multi-row inserts of new orders (PostgreSQL), then of the line items of those
    /// inserted, under their ids ([`Db::write_line_items`]): the orders' ids in order, `None`
    /// for an order `where_new` skipped because its number is held. Two statements where a
    /// data-modifying `WITH` could insert the items beside their orders (joined to them by
    /// number, sorted back into their order) in one: that statement takes the server a third
    /// longer than the two (about 1 ms more per 100 orders, `pg_stat_statements`), which costs
    /// more than the round trip it saves.
    fn insert_orders_in_statements(
        &self,
        scope: DepotScope,
        orders: &[Order],
        where_new: bool,
    ) -> Result<Vec<Option<i64>>, StoreError> {
        let mut ids = Vec::with_capacity(orders.len());
        in_statements(
            orders,
            |o| {
                let mut row = Vec::with_capacity(ORDER_TYPES.len() + 1);
                row.extend(order_values(o));
                row.push(o.created.millis().to_val());
                Ok(row)
            },
            |chunk, values| {
                ids.extend(self.insert_order_rows(scope, chunk, values, where_new)?);
                Ok(())
            },
        )?;
        let items: Vec<(i64, &[LineItem])> = ids
            .iter()
            .zip(orders)
            .filter_map(|(&id, o)| Some((id?, o.line_items.as_slice())))
            .collect();
        self.write_line_items(&items, Some(HashSet::new()))?;
        Ok(ids)
    }

    /// Inserts the rows of several new orders of the depot (`values`: each order's
    /// [`ORDER_WRITTEN`] and creation time) in one statement, skipping those whose numbers
    /// are held with `where_new`; returns their ids in order.
    fn insert_order_rows(
        &self,
        scope: DepotScope,
        orders: &[Order],
        values: Vec<Val>,
        where_new: bool,
    ) -> Result<Vec<Option<i64>>, StoreError> {
        let sql = format!(
            "INSERT INTO orders (depot_id, {ORDER_WRITTEN}, created) \
             SELECT ?1::bigint, * FROM {} {} RETURNING id, order_number",
            unnest(2, &order_types(&[], &["bigint"])),
            on_conflict(where_new),
        );
        let mut params = vec![scope.depot_id.to_val()];
        params.extend(columns(values, ORDER_TYPES.len() + 1));
        self.returned_ids(orders, &sql, params)
    }

    /// Runs `sql`, which returns the id and number of each of `orders` it inserted; returns
    /// their ids in order, `None` for an order it did not insert.
    fn returned_ids(
        &self,
        orders: &[Order],
        sql: &str,
        values: Vec<Val>,
    ) -> Result<Vec<Option<i64>>, StoreError> {
        // RETURNING names no row order: ids are matched by number (unique in the depot).
        let mut ids: HashMap<String, i64> = self
            .0
            .prepare_cached(sql)
            .st()?
            .query_map(params_from_iter(values), |r| Ok((r.get(1)?, r.get(0)?)))
            .st()?
            .collect::<Result<_, _>>()
            .st()?;
        Ok(orders.iter().map(|o| ids.remove(&o.order_number)).collect())
    }
}

/// number the depot holds is skipped (the unique index on the depot and number decides, after
/// waiting for a concurrent insert of it); without, it fails the statement.
fn on_conflict(where_new: bool) -> &'static str {
    match where_new {
        true => "ON CONFLICT (depot_id, order_number) DO NOTHING",
        false => "",
    }
}
