//! Order rows: the columns, decoding a row with its line items, and the
//! keyset conditions shared by the customer and order lists.

use crate::sql::{params, Connection, OptionalExtension, Row, Statement, ToSql as _, Val};
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

/// The order columns written by insert and update, [`ORDER_TYPES`] order.
pub(super) const ORDER_WRITTEN: &str = "order_number, type, status, priority, customer_id, delivery,     pickup, delivery_date, time_windows, exchange_reference, parts, vehicle_id, emails,     third_party_id, tags, skills, capacities, custom_fields, order_value_cents, updated";

/// The PostgreSQL types of [`ORDER_WRITTEN`].
pub(super) const ORDER_TYPES: [&str; 20] = [
    "text", "text", "text", "text", "bigint", "text", "text", "text", "text", "text", "float8",
    "bigint", "text", "bigint", "text", "text", "text", "text", "bigint", "bigint",
];

/// `before`, [`ORDER_TYPES`], then `after`: the types of a statement's order rows.
pub(super) fn order_types<'a>(before: &[&'a str], after: &[&'a str]) -> Vec<&'a str> {
    let mut types = before.to_vec();
    types.extend(ORDER_TYPES);
    types.extend(after);
    types
}

/// The one-row insert of a new order: the depot, [`ORDER_WRITTEN`], its creation time.
pub(super) const INSERT_ORDER_ROW: &str = "INSERT INTO orders (depot_id, order_number, type, \
    status, priority, customer_id, delivery, pickup, delivery_date, time_windows, \
    exchange_reference, parts, vehicle_id, emails, third_party_id, tags, skills, capacities, \
    custom_fields, order_value_cents, updated, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, \
    ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22) RETURNING id";

/// The values of [`ORDER_WRITTEN`] for one order.
pub(super) fn order_values(o: &Order) -> [Val; 20] {
    [
        o.order_number.to_val(),
        o.kind.as_str().to_val(),
        o.status.as_str().to_val(),
        o.priority.map(|p| p.as_str()).to_val(),
        o.customer_id.to_val(),
        codec::endpoint(&o.delivery).into_val(),
        codec::endpoint(&o.pickup).into_val(),
        o.delivery_date.map(|d| d.to_string()).into_val(),
        codec::order_windows(&o.time_windows).into_val(),
        o.exchange_reference.as_deref().to_val(),
        o.parts.to_val(),
        o.vehicle_id.to_val(),
        codec::names(&o.emails).into_val(),
        o.third_party_id.to_val(),
        codec::names(&o.tags).into_val(),
        codec::names(&o.skills).into_val(),
        codec::capacities(&o.capacities).into_val(),
        codec::custom_fields(&o.custom_fields).into_val(),
        o.manual_value.map(Money::cents).to_val(),
        o.updated.millis().to_val(),
    ]
}

/// The written columns of a line item (all but its id), in the order of the line-item
/// writes' values (`line_items.rs`, `order_inserts.rs`).
pub(super) const ITEM_WRITTEN: &str = "order_id, position, product_code, product_name, \
    quantity, unit_price_micros, manual_value_cents, quantity_outstanding, status, date, \
    capacities, custom_fields";

/// The PostgreSQL types of the written columns of a line item after its id, in
/// [`item_values`] order (the arrays of a multi-row statement, `batch_sql::unnest`).
pub(super) const ITEM_TYPES: [&str; 12] = [
    "bigint", "bigint", "text", "text", "bigint", "bigint", "bigint", "float8", "text", "text",
    "text", "text",
];

/// The values of [`ITEM_WRITTEN`] for one line item.
pub(super) fn item_values(order_id: i64, position: usize, item: &LineItem) -> [Val; 12] {
    [
        order_id.to_val(),
        (position as i64).to_val(),
        item.product_code.to_val(),
        item.product_name.to_val(),
        item.quantity.to_val(),
        item.unit_price.map(UnitPrice::micros).to_val(),
        item.manual_value.map(Money::cents).to_val(),
        item.quantity_outstanding.to_val(),
        item.status.as_str().to_val(),
        item.date.map(|d| d.to_string()).into_val(),
        codec::capacities(&item.capacities).into_val(),
        codec::custom_fields(&item.custom_fields).into_val(),
    ]
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
