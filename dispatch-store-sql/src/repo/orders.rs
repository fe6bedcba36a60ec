//! Orders (soft-deleted, restored by number), their line items, exchange pairs, attachments,
//! custom-status removal and the event outbox.

use std::collections::{HashMap, HashSet};

use crate::sql::{
    params, params_from_iter, Connection, Dialect, OptionalExtension, Statement, ToSql as _,
};
use dispatch_core::model::attachment::Attachment;
use dispatch_core::model::order::{Order, OrderType};
use dispatch_core::model::order_fields::Catalog;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::paging::{Cursor, Page, PageRequest};
use dispatch_core::ports::store::{
    insert_orders_not_held, BatchStart, NewAttachment, NumberedOrder, OrderFilter, OrderRepo,
    OrderSummary, PreparedOrders, StoreError, StoredSizes,
};
use dispatch_core::status::Status;
use dispatch_core::time::Timestamp;

use super::order_rows::{corrupt, keyset};
use super::order_rows::{order_values, INSERT_ORDER_ROW};
use super::{ts, Db, Sql, IN_CHUNK};

impl<C: Connection> OrderRepo for Db<C> {
    fn find_order_by_number(
        &mut self,
        scope: DepotScope,
        order_number: &str,
    ) -> Result<Option<NumberedOrder>, StoreError> {
        Ok(self
            .order_where("order_number = ?2", scope, &order_number)?
            .map(|(order, deleted)| NumberedOrder { order, deleted }))
    }

    fn find_orders_by_numbers(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<HashMap<String, NumberedOrder>, StoreError> {
        self.orders_by_numbers(scope, numbers)
    }

    fn stored_order_numbers(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<HashSet<String>, StoreError> {
        self.stored_numbers(scope, numbers)
    }

    fn stored_order_sizes(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<StoredSizes, StoreError> {
        match C::DIALECT {
            // Reads are local: runs of sixteen cost no round trips.
            Dialect::Sqlite => Ok(self
                .stored_numbers(scope, numbers)?
                .into_iter()
                .map(|n| (n, None))
                .collect()),
            Dialect::Postgres => self.stored_sizes(scope, numbers),
        }
    }

    /// One statement on PostgreSQL; SQLite asks for each (reads are local).
    fn catalog_with_stored_order_sizes(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
        unless_first_new: bool,
    ) -> Result<Option<(Catalog, StoredSizes)>, StoreError> {
        match C::DIALECT {
            Dialect::Sqlite => Ok(None),
            Dialect::Postgres => self
                .catalog_with_stored_sizes(scope, numbers, unless_first_new)
                .map(Some),
        }
    }

    /// One statement on PostgreSQL; SQLite asks for each (reads are local).
    fn order_batch_start(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
        unless_first_new: bool,
    ) -> Result<Option<BatchStart>, StoreError> {
        match C::DIALECT {
            Dialect::Sqlite => Ok(None),
            Dialect::Postgres => self.batch_start(scope, numbers, unless_first_new),
        }
    }

    fn find_order_by_id(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<NumberedOrder>, StoreError> {
        Ok(self
            .order_where("id = ?2", scope, &id)?
            .map(|(order, deleted)| NumberedOrder { order, deleted }))
    }

    fn get_order(&mut self, scope: DepotScope, id: i64) -> Result<Option<Order>, StoreError> {
        Ok(self
            .order_where(
                C::DIALECT.pick("id = ?2 AND deleted = 0", "id = ?2 AND deleted = FALSE"),
                scope,
                &id,
            )?
            .map(|(order, _)| order))
    }

    fn live_order_ids(
        &mut self,
        scope: DepotScope,
        ids: &[i64],
    ) -> Result<HashSet<i64>, StoreError> {
        let mut live = HashSet::new();
        for chunk in ids.chunks(IN_CHUNK) {
            let marks = vec!["?"; chunk.len()].join(", ");
            let mut q = self
                .0
                .prepare(&format!(
                    "SELECT id FROM orders WHERE depot_id = ? AND {} AND id IN ({marks})",
                    C::DIALECT.pick("deleted = 0", "deleted = FALSE")
                ))
                .st()?;
            let args = std::iter::once(scope.depot_id).chain(chunk.iter().copied());
            for id in q.query_map(params_from_iter(args), |r| r.get(0)).st()? {
                live.insert(id.st()?);
            }
        }
        Ok(live)
    }

    fn insert_order(&mut self, scope: DepotScope, o: &Order) -> Result<i64, StoreError> {
        Ok(self.insert_new_orders(scope, std::slice::from_ref(o))?[0])
    }

    fn insert_orders(
        &mut self,
        scope: DepotScope,
        orders: &[Order],
    ) -> Result<Vec<i64>, StoreError> {
        self.insert_new_orders(scope, orders)
    }

    /// PostgreSQL skips held numbers by its unique index as it inserts; SQLite, whose writers
    /// run one at a time, asks first.
    fn insert_orders_where_new(
        &mut self,
        scope: DepotScope,
        orders: &[Order],
    ) -> Result<Vec<Option<i64>>, StoreError> {
        match C::DIALECT {
            Dialect::Sqlite => insert_orders_not_held(self, scope, orders),
            Dialect::Postgres => self.insert_where_new(scope, orders),
        }
    }

    fn insert_prepared_orders(
        &mut self,
        scope: DepotScope,
        orders: PreparedOrders,
    ) -> Result<Vec<i64>, StoreError> {
        self.insert_prepared(scope, orders)
    }

    fn update_order(&mut self, scope: DepotScope, o: &Order) -> Result<(), StoreError> {
        self.update_order_row(scope, o)?;
        self.write_line_items(&[(o.id, &o.line_items)], None)
    }

    fn update_orders(&mut self, scope: DepotScope, orders: &[Order]) -> Result<(), StoreError> {
        match orders {
            [one] => self.update_order(scope, one),
            many => self.update_stored_orders(scope, many),
        }
    }

    fn delete_order(&mut self, scope: DepotScope, id: i64) -> Result<Option<u64>, StoreError> {
        let changed = self
            .0
            .prepare_cached(
                C::DIALECT.pick(
                    "UPDATE orders SET deleted = 1 WHERE depot_id = ?1 AND id = ?2 AND deleted = 0",
                    "UPDATE orders SET deleted = TRUE WHERE depot_id = ?1 AND id = ?2 AND deleted = FALSE",
                ),
            )
            .st()?
            .execute([scope.depot_id, id])
            .st()?;
        if changed == 0 {
            return Ok(None);
        }
        let items: u64 = self
            .0
            .prepare_cached("SELECT count(*) FROM order_line_items WHERE order_id = ?1")
            .st()?
            .query_row([id], |r| r.get(0))
            .st()?;
        Ok(Some(items))
    }

    fn list_orders(
        &mut self,
        scope: DepotScope,
        filter: &OrderFilter,
        page: &PageRequest,
    ) -> Result<Page<OrderSummary>, StoreError> {
        // The SQL holds only the conditions in use, so each filter combination gets its own
        // cached statement and plan.
        let mut conditions = vec![
            "o.depot_id = ?",
            C::DIALECT.pick("o.deleted = 0", "o.deleted = FALSE"),
        ];
        let mut values: Vec<Box<dyn crate::sql::ToSql>> = vec![Box::new(scope.depot_id)];
        keyset(page, "o.", &mut conditions, &mut values);
        if let Some(status) = &filter.status {
            conditions.push("o.status = ?");
            values.push(Box::new(status.as_str().to_owned()));
        }
        if let Some(customer) = filter.customer_id {
            conditions.push("o.customer_id = ?");
            values.push(Box::new(customer));
        }
        if let Some(number) = &filter.order_number {
            conditions.push("o.order_number = ?");
            values.push(Box::new(number.clone()));
        }
        if let Some(date) = filter.date {
            conditions.push("o.delivery_date = ?");
            values.push(Box::new(date.to_string()));
        }
        values.push(Box::new(page.limit as i64 + 1));
        // The summary's line-item ids in position order, as one comma-separated text (the
        // aggregate's own ORDER BY reads them straight off the (order_id, position) index; a
        // subquery ordering them first made a co-routine per row).
        let item_ids = C::DIALECT.pick(
            "(SELECT group_concat(id, ',' ORDER BY position) FROM order_line_items \
               WHERE order_id = o.id)",
            "(SELECT string_agg(li.id::text, ',' ORDER BY li.position) FROM order_line_items li \
               WHERE li.order_id = o.id)",
        );
        let sql = format!(
            "SELECT o.id, o.order_number, o.status, o.type, o.created, o.updated, o.customer_id, c.account, \
             {item_ids} \
             FROM orders o LEFT JOIN customers c ON c.id = o.customer_id \
             WHERE {} ORDER BY o.updated DESC, o.id DESC LIMIT ?",
            conditions.join(" AND ")
        );
        let mut stmt = self.0.prepare_cached(&sql).st()?;
        let rows = stmt
            .query_map(crate::sql::params_from_iter(values.iter()), |r| {
                Ok((
                    OrderSummary {
                        id: r.get(0)?,
                        order_number: r.get(1)?,
                        status: Status::from_stored(r.get::<_, String>(2)?),
                        kind: OrderType::Delivery,
                        line_item_ids: r
                            .get::<_, Option<String>>(8)?
                            .unwrap_or_default()
                            .split(',')
                            .filter_map(|s| s.parse().ok())
                            .collect(),
                        customer: r
                            .get::<_, Option<i64>>(6)?
                            .zip(r.get::<_, Option<String>>(7)?),
                        created: ts(r.get(4)?),
                        updated: ts(r.get(5)?),
                    },
                    r.get::<_, String>(3)?,
                ))
            })
            .st()?;
        let mut items = Vec::new();
        for row in rows {
            let (summary, kind) = row.st()?;
            let kind = OrderType::parse(&kind).ok_or_else(|| corrupt("order type"))?;
            items.push(OrderSummary { kind, ..summary });
        }
        let next = if items.len() > page.limit {
            items.truncate(page.limit);
            items.last().map(|o| Cursor {
                updated: o.updated,
                id: o.id,
            })
        } else {
            None
        };
        Ok(Page { items, next })
    }

    fn link_exchange(
        &mut self,
        scope: DepotScope,
        orders: [i64; 2],
        reference: &str,
    ) -> Result<(), StoreError> {
        // The pair's internal exchange id is the smaller order id: unique, stable, no counter.
        let exchange = orders[0].min(orders[1]);
        let mut stmt = self
            .0
            .prepare_cached(
                "UPDATE orders SET exchange_id = ?3, exchange_reference = ?4 WHERE depot_id = ?1 AND id = ?2",
            )
            .st()?;
        for id in orders {
            stmt.execute(params![scope.depot_id, id, exchange, reference])
                .st()?;
        }
        Ok(())
    }

    fn exchange_partner(&mut self, scope: DepotScope, id: i64) -> Result<Option<i64>, StoreError> {
        self.0
            .prepare_cached(
                "SELECT p.id FROM orders o JOIN orders p ON p.exchange_id = o.exchange_id AND p.id <> o.id \
                 AND p.depot_id = o.depot_id WHERE o.depot_id = ?1 AND o.id = ?2",
            )
            .st()?
            .query_row([scope.depot_id, id], |r| r.get(0))
            .optional()
            .st()
    }

    fn list_attachments(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Vec<Attachment>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(
                "SELECT id, order_id, depot_id, name, mime, ext, size, created, modified, file_name FROM order_attachments \
                 WHERE depot_id = ?1 AND order_id = ?2 ORDER BY id",
            )
            .st()?;
        let rows = stmt
            .query_map([scope.depot_id, order_id], |r| {
                Ok(Attachment {
                    id: r.get(0)?,
                    order_id: r.get(1)?,
                    depot_id: r.get(2)?,
                    name: r.get(3)?,
                    file_name: r.get(9)?,
                    mime: r.get(4)?,
                    ext: r.get(5)?,
                    size: r.get(6)?,
                    is_compressed: false,
                    created: ts(r.get(7)?),
                    modified: ts(r.get(8)?),
                })
            })
            .st()?;
        rows.collect::<Result<_, _>>().st()
    }

    fn insert_attachment(
        &mut self,
        scope: DepotScope,
        a: &NewAttachment<'_>,
        now: Timestamp,
    ) -> Result<Attachment, StoreError> {
        let id: i64 = self.0
            .prepare_cached(
                "INSERT INTO order_attachments (depot_id, order_id, name, mime, ext, size, content, created, modified, file_name) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?8, ?9) RETURNING id",
            )
            .st()?
            .query_row(params![
                scope.depot_id,
                a.order_id,
                a.name,
                a.mime,
                a.ext,
                a.content.len() as i64,
                a.content,
                now.millis(),
                a.file_name
            ], |r| r.get(0))
            .st()?;
        Ok(Attachment {
            id,
            order_id: a.order_id,
            depot_id: scope.depot_id,
            name: a.name.to_owned(),
            file_name: a.file_name.to_owned(),
            mime: a.mime.to_owned(),
            ext: a.ext.to_owned(),
            size: a.content.len() as u64,
            is_compressed: false,
            modified: now,
            created: now,
        })
    }

    fn delete_custom_order_status(
        &mut self,
        organisation_id: i64,
        status: &str,
    ) -> Result<bool, StoreError> {
        let changed = self
            .0
            .prepare_cached(
                "DELETE FROM custom_order_statuses WHERE organisation_id = ?1 AND status = ?2",
            )
            .st()?
            .execute(params![organisation_id, status])
            .st()?;
        Ok(changed > 0)
    }
}

impl<C: Connection> Db<C> {
    /// Inserts the order's own row; returns its id.
    pub(super) fn insert_order_row(&self, scope: DepotScope, o: &Order) -> Result<i64, StoreError> {
        let values = std::iter::once(scope.depot_id.to_val())
            .chain(order_values(o))
            .chain([o.created.millis().to_val()]);
        let id: i64 = self
            .0
            .prepare_cached(INSERT_ORDER_ROW)
            .st()?
            .query_row(params_from_iter(values), |r| r.get(0))
            .st()?;
        Ok(id)
    }
}
