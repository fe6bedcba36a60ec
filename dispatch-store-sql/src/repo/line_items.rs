//! Writing the line items of many orders at once: their stored ids asked in one question,
//! removed ones deleted, kept ones updated and new ones inserted with multi-row statements
//! on PostgreSQL ([`in_statements`]: one round trip for many rows) and one row a statement on
//! SQLite (no round trips to save there, and a one-row write keeps no statement journal),
//! new ids on SQLite reserved in one move of the allocator.

use std::collections::HashSet;

use crate::sql::{params, params_from_iter, Connection, Dialect, Statement, ToSql as _, Val};
use dispatch_core::model::line_item::LineItem;
use dispatch_core::ports::store::StoreError;

use super::batch_sql::{columns, each_of_list, in_list, in_statements, integer_list, unnest};
use super::order_rows::{item_values, ITEM_TYPES, ITEM_WRITTEN};
use super::{Db, Sql};

/// One new line item under its reserved id (SQLite): a one-row insert, which keeps no
/// statement journal where a multi-row one does.
pub(super) const INSERT_ONE_WITH_ID: &str =
    "INSERT INTO order_line_items (id, order_id, position, \
    product_code, product_name, quantity, unit_price_micros, manual_value_cents, \
    quantity_outstanding, status, date, capacities, custom_fields) \
    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";

/// New line-item ids reserved for one write ([`Db::reserve_line_item_ids`]), handed out in turn.
pub(super) struct ReservedIds {
    next: i64,
    end: i64,
}

impl ReservedIds {
    pub(super) fn take(&mut self) -> Result<i64, StoreError> {
        if self.next >= self.end {
            return Err(StoreError::Backend(
                "more new line items than ids reserved".to_owned(),
            ));
        }
        self.next += 1;
        Ok(self.next - 1)
    }
}

impl<C: Connection> Db<C> {
    /// Writes the line items of `orders` (`(order id, its items)` each): kept ids update, ids
    /// 0 insert with new ids, stored items missing from the list are removed; an item naming
    /// an id its order does not hold is inserted under that id. `stored` is what the orders
    /// hold now, as `(order id, item id)`, when the caller knows it (none for new orders),
    /// else it is asked.
    pub(super) fn write_line_items(
        &self,
        orders: &[(i64, &[LineItem])],
        stored: Option<HashSet<(i64, i64)>>,
    ) -> Result<(), StoreError> {
        let stored = match stored {
            Some(stored) => stored,
            None => self.stored_line_items(orders.iter().map(|(id, _)| *id))?,
        };
        let (mut updated, mut fresh, mut explicit) = (Vec::new(), Vec::new(), Vec::new());
        let mut kept = HashSet::new();
        for &(order_id, items) in orders {
            for (position, item) in items.iter().enumerate() {
                match item.id {
                    0 => fresh.push((order_id, position, item)),
                    // An id listed twice ends as its last listing, as with one statement per
                    // item (one UPDATE ... FROM changes a row once).
                    id if stored.contains(&(order_id, id)) => match kept.insert(id) {
                        true => updated.push((order_id, position, item)),
                        false => {
                            let at = updated.iter().position(|(_, _, i)| i.id == id);
                            if let Some(at) = at {
                                updated[at] = (order_id, position, item);
                            }
                        }
                    },
                    _ => explicit.push((order_id, position, item)),
                }
            }
        }
        let removed: Vec<i64> = stored
            .iter()
            .map(|(_, id)| *id)
            .filter(|id| !kept.contains(id))
            .collect();
        if !removed.is_empty() {
            self.0
                .prepare_cached(&format!(
                    "DELETE FROM order_line_items WHERE id {}",
                    in_list(C::DIALECT, 1, true)
                ))
                .st()?
                .execute(params![integer_list(C::DIALECT, &removed)])
                .st()?;
        }
        if C::DIALECT == Dialect::Sqlite {
            for &(order_id, position, item) in &updated {
                self.update_line_item_row(order_id, position, item)?;
            }
        } else {
            in_statements(
                &updated,
                |&(order_id, position, item)| {
                    let mut row = vec![item.id.to_val()];
                    row.extend(item_values(order_id, position, item));
                    Ok(row)
                },
                |chunk, values| self.update_line_item_rows(chunk.len(), values),
            )?;
        }
        // Explicit ids before generated ones: the allocator has moved past them when the new
        // ids are handed out, so a new id never collides with one named in the same write.
        for &(order_id, position, item) in &explicit {
            self.insert_explicit_line_item(order_id, position, item)?;
        }
        if C::DIALECT == Dialect::Sqlite {
            let mut reserved = self.reserve_line_item_ids(fresh.len())?;
            for &(order_id, position, item) in &fresh {
                let values = std::iter::once(reserved.take()?.to_val())
                    .chain(item_values(order_id, position, item));
                self.0
                    .prepare_cached(INSERT_ONE_WITH_ID)
                    .st()?
                    .execute(params_from_iter(values))
                    .st()?;
            }
            return Ok(());
        }
        in_statements(
            &fresh,
            |&(order_id, position, item)| Ok(Vec::from(item_values(order_id, position, item))),
            |_, values| self.insert_line_item_rows(values),
        )
    }

    /// The stored line items of these orders, as `(order id, item id)`.
    fn stored_line_items(
        &self,
        orders: impl Iterator<Item = i64>,
    ) -> Result<HashSet<(i64, i64)>, StoreError> {
        let orders: Vec<i64> = orders.collect();
        let mut stored = HashSet::new();
        if orders.is_empty() {
            return Ok(stored);
        }
        // The ids as one parameter: one cached statement for any number of orders.
        let sql = match C::DIALECT {
            Dialect::Sqlite => format!(
                "SELECT order_id, id FROM order_line_items WHERE order_id {}",
                in_list(C::DIALECT, 1, true)
            ),
            Dialect::Postgres => each_of_list(
                1,
                true,
                "SELECT order_id, id FROM order_line_items WHERE order_id = k.key ORDER BY position",
            ),
        };
        let mut q = self.0.prepare_cached(&sql).st()?;
        let listed = integer_list(C::DIALECT, &orders);
        for row in q
            .query_map(params![listed], |r| Ok((r.get(0)?, r.get(1)?)))
            .st()?
        {
            stored.insert(row.st()?);
        }
        Ok(stored)
    }

    /// Overwrites one stored line item of `order_id` (SQLite): by its id, its order left as
    /// it is, so the statement changes one row by its rowid, checks no foreign key and keeps
    /// no statement journal (a multi-row `UPDATE ... FROM` copies every page it changes to
    /// one first).
    fn update_line_item_row(
        &self,
        order_id: i64,
        position: usize,
        item: &LineItem,
    ) -> Result<(), StoreError> {
        let values = std::iter::once(item.id.to_val()).chain(item_values(order_id, position, item));
        let changed = self
            .0
            .prepare_cached(
                "UPDATE order_line_items SET position = ?3, product_code = ?4, product_name = ?5, \
                 quantity = ?6, unit_price_micros = ?7, manual_value_cents = ?8, \
                 quantity_outstanding = ?9, status = ?10, date = ?11, capacities = ?12, \
                 custom_fields = ?13 WHERE id = ?1 AND order_id = ?2",
            )
            .st()?
            .execute(params_from_iter(values))
            .st()?;
        if changed != 1 {
            return Err(StoreError::Backend(format!(
                "line item {} of order {order_id} not updated",
                item.id
            )));
        }
        Ok(())
    }

    /// Overwrites `rows` stored line items (`values`: each one's id, then its columns) in one
    /// statement (`UPDATE ... FROM unnest(...)`, one array a column).
    fn update_line_item_rows(&self, rows: usize, values: Vec<Val>) -> Result<(), StoreError> {
        let mut types = vec!["bigint"];
        types.extend(ITEM_TYPES);
        let sql = format!(
            "UPDATE order_line_items SET order_id = v.order_id, position = v.position, \
             product_code = v.product_code, product_name = v.product_name, quantity = v.quantity, \
             unit_price_micros = v.unit_price_micros, manual_value_cents = v.manual_value_cents, \
             quantity_outstanding = v.quantity_outstanding, status = v.status, date = v.date, \
             capacities = v.capacities, custom_fields = v.custom_fields \
             FROM {} AS v(id, {ITEM_WRITTEN}) WHERE order_line_items.id = v.id",
            unnest(1, &types)
        );
        let changed = self
            .0
            .prepare_cached(&sql)
            .st()?
            .execute(columns(values, types.len()))
            .st()?;
        if changed != rows {
            return Err(StoreError::Backend(format!(
                "{changed} of {rows} line items updated"
            )));
        }
        Ok(())
    }

    /// Inserts new line items (`values`: each one's columns; the identity column gives their
    /// ids, in their order) in one statement (PostgreSQL).
    fn insert_line_item_rows(&self, values: Vec<Val>) -> Result<(), StoreError> {
        let sql = format!(
            "INSERT INTO order_line_items ({ITEM_WRITTEN}) SELECT {ITEM_WRITTEN} \
             FROM {} WITH ORDINALITY AS v({ITEM_WRITTEN}, n) ORDER BY n",
            unnest(1, &ITEM_TYPES)
        );
        self.0
            .prepare_cached(&sql)
            .st()?
            .execute(columns(values, ITEM_TYPES.len()))
            .st()?;
        Ok(())
    }

    /// Inserts a new line item under the id it names (SQLite's rowid semantics): the
    /// allocator moves past it, so a later new id cannot collide with it.
    fn insert_explicit_line_item(
        &self,
        order_id: i64,
        position: usize,
        item: &LineItem,
    ) -> Result<(), StoreError> {
        let sql = match C::DIALECT {
            Dialect::Sqlite => {
                self.0
                    .execute(
                        "INSERT OR IGNORE INTO line_item_ids (id) VALUES (?1)",
                        params![item.id],
                    )
                    .st()?;
                "INSERT INTO order_line_items (id, order_id, position, product_code, product_name, \
                 quantity, unit_price_micros, manual_value_cents, quantity_outstanding, status, \
                 date, capacities, custom_fields) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
            }
            Dialect::Postgres => {
                "WITH item AS (INSERT INTO order_line_items (id, order_id, position, product_code, \
                 product_name, quantity, unit_price_micros, manual_value_cents, \
                 quantity_outstanding, status, date, capacities, custom_fields) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) RETURNING id) \
                 SELECT setval(pg_get_serial_sequence('order_line_items', 'id'), \
                 greatest((SELECT id FROM item), (SELECT last_value FROM order_line_items_id_seq)))"
            }
        };
        let values = std::iter::once(item.id.to_val()).chain(item_values(order_id, position, item));
        self.0
            .prepare_cached(sql)
            .st()?
            .execute(params_from_iter(values))
            .st()?;
        Ok(())
    }

    /// Reserves `n` new line-item ids on SQLite (none on PostgreSQL, where the identity column
    /// hands them out): one move of the allocator for a whole write instead of a row in it per
    /// line item. The allocator is `line_item_ids`' AUTOINCREMENT sequence, which never goes
    /// back, so an id is never handed out again, even once its line item is removed.
    pub(super) fn reserve_line_item_ids(&self, n: usize) -> Result<ReservedIds, StoreError> {
        if C::DIALECT != Dialect::Sqlite || n == 0 {
            return Ok(ReservedIds { next: 0, end: 0 });
        }
        let n = i64::try_from(n).unwrap_or(i64::MAX);
        let moved = self
            .0
            .execute(
                "UPDATE sqlite_sequence SET seq = seq + ?1 WHERE name = 'line_item_ids'",
                params![n],
            )
            .st()?;
        if moved == 0 {
            // No id handed out yet through the allocator: it starts past every stored one.
            self.0
                .execute(
                    "INSERT INTO sqlite_sequence (name, seq) SELECT 'line_item_ids', ?1 + \
                     max(COALESCE((SELECT MAX(id) FROM line_item_ids), 0), \
                         COALESCE((SELECT MAX(id) FROM order_line_items), 0))",
                    params![n],
                )
                .st()?;
        }
        let last: i64 = self
            .0
            .query_row(
                "SELECT seq FROM sqlite_sequence WHERE name = 'line_item_ids'",
                params![],
                |r| r.get(0),
            )
            .st()?;
        Ok(ReservedIds {
            next: last - n + 1,
            end: last + 1,
        })
    }
}
