//! Order rows: the columns, decoding a row with its line items, writing line items, and the
//! keyset conditions shared by the customer and order lists.

use crate::sql::{
    params, params_from_iter, Connection, Dialect, OptionalExtension, Row, Statement, ToSql as _,
    Val,
};
use dispatch_core::model::line_item::LineItem;
use dispatch_core::model::order::{Order, OrderType, Priority};
use dispatch_core::model::order_value::{Money, UnitPrice};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::paging::PageRequest;
use dispatch_core::ports::store::StoreError;
use dispatch_core::status::Status;
use dispatch_core::time::Date;

use super::order_codec as codec;
use super::{ts, Db, Sql};

pub(super) const COLUMNS: &str =
    "id, order_number, type, status, priority, customer_id, delivery, pickup, \
     delivery_date, time_windows, exchange_reference, parts, vehicle_id, emails, third_party_id, \
     tags, skills, capacities, custom_fields, order_value_cents, created, updated, deleted";

pub(super) fn corrupt(what: &str) -> StoreError {
    StoreError::Backend(format!("corrupt stored {what}"))
}

/// The raw columns of an order row, decoded by [`decode`].
pub(super) struct OrderRow {
    pub(super) id: i64,
    order_number: String,
    kind: String,
    status: String,
    priority: Option<String>,
    customer_id: Option<i64>,
    delivery: String,
    pickup: String,
    delivery_date: Option<String>,
    time_windows: String,
    exchange_reference: Option<String>,
    parts: Option<f64>,
    vehicle_id: Option<i64>,
    emails: String,
    third_party_id: Option<i64>,
    tags: String,
    skills: String,
    capacities: String,
    custom_fields: String,
    order_value_cents: Option<i64>,
    created: i64,
    updated: i64,
    pub(super) deleted: bool,
}

pub(super) fn order_row(r: &Row<'_>) -> crate::sql::Result<OrderRow> {
    Ok(OrderRow {
        id: r.get(0)?,
        order_number: r.get(1)?,
        kind: r.get(2)?,
        status: r.get(3)?,
        priority: r.get(4)?,
        customer_id: r.get(5)?,
        delivery: r.get(6)?,
        pickup: r.get(7)?,
        delivery_date: r.get(8)?,
        time_windows: r.get(9)?,
        exchange_reference: r.get(10)?,
        parts: r.get(11)?,
        vehicle_id: r.get(12)?,
        emails: r.get(13)?,
        third_party_id: r.get(14)?,
        tags: r.get(15)?,
        skills: r.get(16)?,
        capacities: r.get(17)?,
        custom_fields: r.get(18)?,
        order_value_cents: r.get(19)?,
        created: r.get(20)?,
        updated: r.get(21)?,
        deleted: r.get(22)?,
    })
}

pub(super) fn decode(r: OrderRow, line_items: Vec<LineItem>) -> Result<Order, StoreError> {
    Ok(Order {
        id: r.id,
        order_number: r.order_number,
        kind: OrderType::parse(&r.kind).ok_or_else(|| corrupt("order type"))?,
        status: Status::from_stored(r.status),
        priority: r.priority.as_deref().and_then(Priority::parse),
        customer_id: r.customer_id,
        delivery: codec::read_endpoint(&r.delivery)?,
        pickup: codec::read_endpoint(&r.pickup)?,
        delivery_date: r.delivery_date.as_deref().and_then(Date::parse),
        time_windows: codec::read_order_windows(&r.time_windows)?,
        exchange_reference: r.exchange_reference,
        parts: r.parts,
        vehicle_id: r.vehicle_id,
        emails: codec::read_names(&r.emails)?,
        third_party_id: r.third_party_id,
        tags: codec::read_names(&r.tags)?,
        skills: codec::read_names(&r.skills)?,
        capacities: codec::read_capacities(&r.capacities)?,
        custom_fields: codec::read_custom_fields(&r.custom_fields)?,
        manual_value: r.order_value_cents.map(Money::from_cents),
        line_items,
        created: ts(r.created),
        updated: ts(r.updated),
    })
}

/// The line-item columns [`item_row`] reads.
pub(super) const ITEM_COLUMNS: &str =
    "id, product_code, product_name, quantity, unit_price_micros, manual_value_cents, \
     quantity_outstanding, status, date, capacities, custom_fields";

/// A line item from [`ITEM_COLUMNS`] starting at column `at`, with its capacities and custom
/// fields still encoded (decoded by [`decode_item`] outside the row callback).
pub(super) fn item_row(r: &Row<'_>, at: usize) -> crate::sql::Result<(LineItem, String, String)> {
    let status: String = r.get(at + 7)?;
    let date: Option<String> = r.get(at + 8)?;
    Ok((
        LineItem {
            id: r.get(at)?,
            product_code: r.get(at + 1)?,
            product_name: r.get(at + 2)?,
            quantity: r.get(at + 3)?,
            unit_price: r.get::<_, Option<i64>>(at + 4)?.map(UnitPrice::from_micros),
            manual_value: r.get::<_, Option<i64>>(at + 5)?.map(Money::from_cents),
            quantity_outstanding: r.get(at + 6)?,
            status: Status::from_stored(status),
            date: date.as_deref().and_then(Date::parse),
            capacities: Vec::new(),
            custom_fields: Vec::new(),
        },
        r.get(at + 9)?,
        r.get(at + 10)?,
    ))
}

/// Decodes what [`item_row`] left encoded.
pub(super) fn decode_item(
    (item, caps, fields): (LineItem, String, String),
) -> Result<LineItem, StoreError> {
    Ok(LineItem {
        capacities: codec::read_capacities(&caps)?,
        custom_fields: codec::read_custom_fields(&fields)?,
        ..item
    })
}

/// New line-item ids reserved for one write ([`Db::reserve_line_item_ids`]), handed out in turn.
pub(super) struct ReservedIds {
    next: i64,
    end: i64,
}

impl ReservedIds {
    fn take(&mut self) -> Result<i64, StoreError> {
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
    pub(super) fn order_where(
        &self,
        clause: &str,
        scope: DepotScope,
        key: &dyn crate::sql::ToSql,
    ) -> Result<Option<(Order, bool)>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM orders WHERE depot_id = ?1 AND {clause}"
            ))
            .st()?;
        let Some(r) = stmt
            .query_row(params![scope.depot_id, key], order_row)
            .optional()
            .st()?
        else {
            return Ok(None);
        };
        let deleted = r.deleted;
        let items = self.line_items(r.id)?;
        Ok(Some((decode(r, items)?, deleted)))
    }

    pub(super) fn line_items(&self, order_id: i64) -> Result<Vec<LineItem>, StoreError> {
        let mut stmt = self
            .0
            .prepare_cached(&format!(
                "SELECT {ITEM_COLUMNS} FROM order_line_items WHERE order_id = ?1 ORDER BY position"
            ))
            .st()?;
        let rows = stmt.query_map([order_id], |r| item_row(r, 0)).st()?;
        rows.map(|row| decode_item(row.st()?)).collect()
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

    /// An explicit line-item id on SQLite: the allocator moves past it so a later new id
    /// cannot collide with it.
    fn sqlite_explicit_line_item_id(&self, explicit: i64) -> Result<i64, StoreError> {
        self.0
            .execute(
                "INSERT OR IGNORE INTO line_item_ids (id) VALUES (?1)",
                params![explicit],
            )
            .st()?;
        Ok(explicit)
    }

    /// Writes the order's line items: updates kept ones, inserts new ones (ids 0 take theirs
    /// from `reserved` on SQLite), removes the rest.
    pub(super) fn write_line_items(
        &self,
        order_id: i64,
        items: &[LineItem],
        new_order: bool,
        reserved: &mut ReservedIds,
    ) -> Result<(), StoreError> {
        let kept: Vec<i64> = items.iter().map(|i| i.id).filter(|id| *id != 0).collect();
        let stored: Vec<i64> = if new_order {
            Vec::new()
        } else {
            self.0
                .prepare_cached("SELECT id FROM order_line_items WHERE order_id = ?1")
                .st()?
                .query_map([order_id], |r| r.get(0))
                .st()?
                .collect::<Result<_, _>>()
                .st()?
        };
        for id in stored.iter().filter(|id| !kept.contains(id)) {
            self.0
                .prepare_cached("DELETE FROM order_line_items WHERE id = ?1")
                .st()?
                .execute([id])
                .st()?;
        }
        for (position, item) in items.iter().enumerate() {
            let update = item.id != 0 && stored.contains(&item.id);
            let id = match (update, C::DIALECT, item.id) {
                (false, Dialect::Sqlite, 0) => reserved.take()?,
                (false, Dialect::Sqlite, explicit) => {
                    self.sqlite_explicit_line_item_id(explicit)?
                }
                _ => item.id,
            };
            let values = params![
                order_id,
                position as i64,
                item.product_code,
                item.product_name,
                item.quantity,
                item.unit_price.map(UnitPrice::micros),
                item.manual_value.map(Money::cents),
                item.quantity_outstanding,
                item.status.as_str(),
                item.date.map(|d| d.to_string()),
                codec::capacities(&item.capacities),
                codec::custom_fields(&item.custom_fields),
                id,
            ];
            let sql = if update {
                "UPDATE order_line_items SET order_id = ?1, position = ?2, product_code = ?3, product_name = ?4, \
                 quantity = ?5, unit_price_micros = ?6, manual_value_cents = ?7, quantity_outstanding = ?8, \
                 status = ?9, date = ?10, capacities = ?11, custom_fields = ?12 WHERE id = ?13"
            } else if C::DIALECT == Dialect::Sqlite {
                "INSERT INTO order_line_items (id, order_id, position, product_code, product_name, quantity, \
                 unit_price_micros, manual_value_cents, quantity_outstanding, status, date, capacities, \
                 custom_fields) VALUES (?13, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
            } else if item.id == 0 {
                "INSERT INTO order_line_items (order_id, position, product_code, product_name, quantity, \
                 unit_price_micros, manual_value_cents, quantity_outstanding, status, date, capacities, \
                 custom_fields) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
            } else {
                // An explicit id on PostgreSQL (SQLite's rowid semantics): the identity moves past
                // it, so later generated ids never collide with it.
                "WITH item AS (INSERT INTO order_line_items (id, order_id, position, product_code, \
                 product_name, quantity, unit_price_micros, manual_value_cents, quantity_outstanding, \
                 status, date, capacities, custom_fields) \
                 VALUES (?13, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id) \
                 SELECT setval(pg_get_serial_sequence('order_line_items', 'id'), \
                 greatest((SELECT id FROM item), (SELECT last_value FROM order_line_items_id_seq)))"
            };
            let values = if C::DIALECT == Dialect::Postgres && item.id == 0 && !stored.contains(&0)
            {
                &values[..12]
            } else {
                values
            };
            self.0.prepare_cached(sql).st()?.execute(values).st()?;
        }
        Ok(())
    }
}

impl<C: Connection> Db<C> {
    /// Inserts new line items with generated ids, `(order id, position, item)` each, in one
    /// statement.
    pub(super) fn insert_line_item_rows(
        &self,
        items: &[(i64, usize, &LineItem)],
    ) -> Result<(), StoreError> {
        const COLUMNS: usize = 12;
        if items.is_empty() {
            return Ok(());
        }
        let mut sql = String::from(
            "INSERT INTO order_line_items (order_id, position, product_code, product_name, quantity, \
             unit_price_micros, manual_value_cents, quantity_outstanding, status, date, capacities, \
             custom_fields) VALUES ",
        );
        let mut values: Vec<Val> = Vec::with_capacity(items.len() * COLUMNS);
        for (i, (order_id, position, item)) in items.iter().enumerate() {
            sql.push_str(if i == 0 { "(" } else { ", (" });
            for c in 0..COLUMNS {
                if c > 0 {
                    sql.push_str(", ");
                }
                sql.push('?');
                sql.push_str(&(i * COLUMNS + c + 1).to_string());
            }
            sql.push(')');
            values.extend([
                order_id.to_val(),
                (*position as i64).to_val(),
                item.product_code.to_val(),
                item.product_name.to_val(),
                item.quantity.to_val(),
                item.unit_price.map(UnitPrice::micros).to_val(),
                item.manual_value.map(Money::cents).to_val(),
                item.quantity_outstanding.to_val(),
                item.status.as_str().to_val(),
                item.date.map(|d| d.to_string()).to_val(),
                codec::capacities(&item.capacities).to_val(),
                codec::custom_fields(&item.custom_fields).to_val(),
            ]);
        }
        self.0
            .prepare_cached(&sql)
            .st()?
            .execute(params_from_iter(values))
            .st()?;
        Ok(())
    }
}

/// Adds the keyset conditions of a page (`updated_at_min` and the cursor) on `prefix` columns.
/// The cursor is `updated <= u AND (updated < u OR id < i)`: the first part is a plain range on
/// the list index, so a page starts at the cursor instead of scanning up to it.
pub(super) fn keyset(
    page: &PageRequest,
    prefix: &'static str,
    conditions: &mut Vec<&'static str>,
    values: &mut Vec<Box<dyn crate::sql::ToSql>>,
) {
    let (min, upto, after) = match prefix {
        "o." => (
            "o.updated >= ?",
            "o.updated <= ?",
            "(o.updated < ? OR o.id < ?)",
        ),
        "t." => (
            "t.updated >= ?",
            "t.updated <= ?",
            "(t.updated < ? OR t.id < ?)",
        ),
        _ => ("updated >= ?", "updated <= ?", "(updated < ? OR id < ?)"),
    };
    if let Some(m) = page.updated_at_min {
        conditions.push(min);
        values.push(Box::new(m.millis()));
    }
    if let Some(c) = page.after {
        conditions.push(upto);
        conditions.push(after);
        values.push(Box::new(c.updated.millis()));
        values.push(Box::new(c.updated.millis()));
        values.push(Box::new(c.id));
    }
}
