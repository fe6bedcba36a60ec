//! Stored orders overwritten with their line items: SQLite one row at a time, PostgreSQL
//! several to a statement ([`in_statements`]).

use std::collections::HashSet;

use crate::sql::{params_from_iter, Connection, Dialect, Statement, ToSql as _, Val};
use dispatch_core::model::line_item::LineItem;
use dispatch_core::model::order::Order;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::StoreError;

use super::batch_sql::{columns, in_statements, unnest};
use super::order_rows::{order_types, order_values, ORDER_TYPES, ORDER_WRITTEN};
use super::{Db, Sql};

/// SQLite's overwrite of a stored order (parameters as in [`Db::update_order_row`]'s full
/// statement: the depot, the id, then [`ORDER_WRITTEN`]) for an order that keeps its number,
/// its references (customer, vehicle, third party) and its exchange pair: it matches no row
/// otherwise. Those columns are not set, so SQLite neither updates the unique index of the
/// number nor checks foreign keys, and the statement, which changes one row by its id, keeps
/// no statement journal (an update that sets a foreign key's column is compiled as one that
/// may change several rows and abort half-way, whose pages are copied to the statement
/// journal first: a fifth of an update's time).
const UPDATE_KEEPING_KEYS: &str = "UPDATE orders SET type = ?4, status = ?5, priority = ?6, \
    delivery = ?8, pickup = ?9, delivery_date = ?10, time_windows = ?11, \
    exchange_reference = ?12, parts = ?13, emails = ?15, tags = ?17, skills = ?18, \
    capacities = ?19, custom_fields = ?20, order_value_cents = ?21, updated = ?22, deleted = 0 \
    WHERE id = ?2 AND depot_id = ?1 AND order_number = ?3 AND customer_id IS ?7 \
    AND vehicle_id IS ?14 AND third_party_id IS ?16 AND (?12 IS NOT NULL OR exchange_id IS NULL)";

impl<C: Connection> Db<C> {
    /// (as it inserts: a multi-row UPDATE keeps a statement journal and a copy of its
    /// `VALUES`, several times the text it writes), PostgreSQL with one `UPDATE ... FROM
    /// unnest(...)` per [`in_statements`] run; then their line items together. A slice
    /// naming an order twice is written one order at a time, in turn (the last write of it
    /// wins, as with one call per order).
    pub(super) fn update_stored_orders(
        &self,
        scope: DepotScope,
        orders: &[Order],
    ) -> Result<(), StoreError> {
        let mut distinct = HashSet::with_capacity(orders.len());
        if !orders.iter().all(|o| distinct.insert(o.id)) {
            for o in orders {
                self.update_stored_orders(scope, std::slice::from_ref(o))?;
            }
            return Ok(());
        }
        let stored = match C::DIALECT {
            Dialect::Sqlite => {
                for o in orders {
                    self.update_order_row(scope, o)?;
                }
                None
            }
            Dialect::Postgres => {
                let mut stored = HashSet::new();
                in_statements(
                    orders,
                    |o| {
                        let mut row = Vec::with_capacity(ORDER_TYPES.len() + 2);
                        row.push(o.id.to_val());
                        row.push(scope.depot_id.to_val());
                        row.extend(order_values(o));
                        Ok(row)
                    },
                    |chunk, values| {
                        stored.extend(self.update_order_rows(chunk.len(), values)?);
                        Ok(())
                    },
                )?;
                Some(stored)
            }
        };
        let items: Vec<(i64, &[LineItem])> = orders
            .iter()
            .map(|o| (o.id, o.line_items.as_slice()))
            .collect();
        self.write_line_items(&items, stored)
    }

    /// Overwrites the row of one stored order and restores it if deleted; an order whose
    /// `exchange_reference` is `None` leaves its exchange pair.
    ///
    /// On SQLite, an order that keeps its number, references and exchange pair (every write
    /// of an order by its number, most others) is written by a statement that leaves those
    /// columns alone ([`UPDATE_KEEPING_KEYS`]); only when that finds no such row is the
    /// statement that sets every column run.
    pub(super) fn update_order_row(&self, scope: DepotScope, o: &Order) -> Result<(), StoreError> {
        let values = || {
            [scope.depot_id.to_val(), o.id.to_val()]
                .into_iter()
                .chain(order_values(o))
        };
        if C::DIALECT == Dialect::Sqlite
            && self
                .0
                .prepare_cached(UPDATE_KEEPING_KEYS)
                .st()?
                .execute(params_from_iter(values()))
                .st()?
                == 1
        {
            return Ok(());
        }
        let values = values();
        let changed = self
            .0
            .prepare_cached(C::DIALECT.pick(
                "UPDATE orders SET order_number = ?3, type = ?4, status = ?5, priority = ?6, customer_id = ?7, \
                 delivery = ?8, pickup = ?9, delivery_date = ?10, time_windows = ?11, exchange_reference = ?12, \
                 exchange_id = CASE WHEN ?12 IS NULL THEN NULL ELSE exchange_id END, parts = ?13, \
                 vehicle_id = ?14, emails = ?15, third_party_id = ?16, tags = ?17, skills = ?18, \
                 capacities = ?19, custom_fields = ?20, order_value_cents = ?21, updated = ?22, deleted = 0 \
                 WHERE depot_id = ?1 AND id = ?2",
                "UPDATE orders SET order_number = ?3, type = ?4, status = ?5, priority = ?6, customer_id = ?7, \
                 delivery = ?8, pickup = ?9, delivery_date = ?10, time_windows = ?11, exchange_reference = ?12, \
                 exchange_id = CASE WHEN ?12::text IS NULL THEN NULL ELSE exchange_id END, parts = ?13, \
                 vehicle_id = ?14, emails = ?15, third_party_id = ?16, tags = ?17, skills = ?18, \
                 capacities = ?19, custom_fields = ?20, order_value_cents = ?21, updated = ?22, deleted = FALSE \
                 WHERE depot_id = ?1 AND id = ?2",
            ))
            .st()?
            .execute(params_from_iter(values))
            .st()?;
        if changed != 1 {
            return Err(StoreError::Backend(format!(
                "order {} is not in the depot",
                o.id
            )));
        }
        Ok(())
    }

    /// Overwrites the rows of `rows` stored orders (`values`: each one's id and depot, then its
    /// [`ORDER_WRITTEN`]) in one statement (one array a column, [`unnest`]) and restores
    /// deleted ones; an order whose
    /// `exchange_reference` is `None` leaves its exchange pair. The depot travels with each
    /// row, not as one parameter: a row is then found by its id (the primary key) and its
    /// depot checked, where a parameter would let the planner read the depot's rows through
    /// the depot's index (all of them, when statistics are missing). PostgreSQL only (SQLite
    /// writes one row at a time, [`Db::update_order_row`]). Returns the line items
    /// the orders hold, as `(order id, item id)`: asked in the same statement, one round trip
    /// less than asking after it.
    fn update_order_rows(
        &self,
        rows: usize,
        values: Vec<Val>,
    ) -> Result<Vec<(i64, i64)>, StoreError> {
        let sql = format!(
            "UPDATE orders SET order_number = v.order_number, type = v.type, status = v.status, \
             priority = v.priority, customer_id = v.customer_id, delivery = v.delivery, \
             pickup = v.pickup, delivery_date = v.delivery_date, time_windows = v.time_windows, \
             exchange_reference = v.exchange_reference, \
             exchange_id = CASE WHEN v.exchange_reference IS NULL THEN NULL ELSE orders.exchange_id END, \
             parts = v.parts, vehicle_id = v.vehicle_id, emails = v.emails, \
             third_party_id = v.third_party_id, tags = v.tags, skills = v.skills, \
             capacities = v.capacities, custom_fields = v.custom_fields, \
             order_value_cents = v.order_value_cents, updated = v.updated, deleted = FALSE \
             FROM {} AS v(id, depot_id, {ORDER_WRITTEN}) \
             WHERE orders.id = v.id AND orders.depot_id = v.depot_id \
             RETURNING orders.id, (SELECT string_agg(i.id::text, ',') FROM order_line_items i \
             WHERE i.order_id = orders.id)",
            unnest(1, &order_types(&["bigint", "bigint"], &[])),
        );
        let values = columns(values, ORDER_TYPES.len() + 2);
        let mut q = self.0.prepare_cached(&sql).st()?;
        let (mut changed, mut stored) = (0, Vec::new());
        for row in q
            .query_map(params_from_iter(values), |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?))
            })
            .st()?
        {
            let (order, items) = row.st()?;
            changed += 1;
            for item in items.iter().flat_map(|ids| ids.split(',')) {
                let id = item
                    .parse()
                    .map_err(|_| StoreError::Backend("a line item id that is no number".into()))?;
                stored.push((order, id));
            }
        }
        if changed != rows {
            return Err(StoreError::Backend(format!(
                "{} of the {rows} orders written together are not in the depot",
                rows - changed
            )));
        }
        Ok(stored)
    }
}
