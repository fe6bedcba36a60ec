//! The stored orders of a POST /orders batch found by their numbers, one question per table
//! (PostgreSQL: the orders with their line items in one statement, locked in number order),
//! with their sizes, and beside the depot's catalog ([`catalog_with_sizes`]).

use std::collections::{HashMap, HashSet};

use crate::sql::{params, params_from_iter, Connection, Dialect, Statement, ToSql as _, Val};
use dispatch_core::model::line_item::LineItem;
use dispatch_core::model::order_fields::{Catalog, NamedRef};
use dispatch_core::model::order_value::{Money, UnitPrice};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{NumberedOrder, StoreError, StoredSizes};
use dispatch_core::status::Status;
use dispatch_core::time::Date;

use super::batch_sql::{each_of_list, in_list, integer_list, keys, text_list};
use super::order_rows::{
    corrupt, decode, decode_item, item_row, order_row, OrderRow, COLUMNS, ITEM_COLUMNS,
};
use super::{Db, Sql};

/// The line items of the order aliased `o`, in position order, as one JSON array of
/// [`ITEM_COLUMNS`] arrays (null when it has none): a column beside the order's row, so that
/// the orders of a batch and their items are one statement (one index probe per order).
/// PostgreSQL writes a float's shortest exact text in JSON (since 12), so values read back
/// as written.
const ITEMS_AS_JSON: &str = "(SELECT json_agg(json_build_array(id, product_code, product_name, \
    quantity, unit_price_micros, manual_value_cents, quantity_outstanding, status, date, \
    capacities, custom_fields) ORDER BY position) FROM order_line_items WHERE order_id = o.id)";

/// `FROM` the stored orders of the depot bound at `?{depot}` whose numbers are in the array
/// bound at `?{numbers}`, as `l` with `l.order_number` and `l.size`: the bytes of text
/// each holds, its row's and its line items' (`octet_length` reads a stored value's length
/// from its header, without reading the value). The orders found stay locked until commit,
/// locked in number order (PostgreSQL).
fn stored_sizes_from(depot: usize, numbers: usize) -> String {
    let lookup = format!(
        "SELECT order_number, octet_length(order_number) + octet_length(delivery) \
         + octet_length(pickup) + coalesce(octet_length(delivery_date), 0) \
         + octet_length(time_windows) + coalesce(octet_length(exchange_reference), 0) \
         + octet_length(emails) + octet_length(tags) + octet_length(skills) \
         + octet_length(capacities) + octet_length(custom_fields) \
         + coalesce((SELECT sum(octet_length(product_code) + octet_length(product_name) \
         + octet_length(status) + coalesce(octet_length(date), 0) + octet_length(capacities) \
         + octet_length(custom_fields)) FROM order_line_items WHERE order_id = o.id), 0) AS size \
         FROM orders o WHERE depot_id = ?{depot} AND order_number = k.key FOR UPDATE"
    );
    format!("FROM {}, LATERAL ({lookup}) l", keys(numbers, false))
}

/// The depot's catalog (lists 0-3: capacity types, skills, tags, custom fields, as `id,
/// name`) and the stored orders among the numbers (list 4, as `size, number`), rows `(list, id,
/// name)` of one `UNION ALL`: the depot bound at `?1`, the numbers as an array at `?2` and,
/// with `unless_first_new`, the first of them at `?3`, whose absence skips the look-ups of the
/// stored orders (a one-time filter, evaluated once before them: a batch of new numbers costs
/// one index probe, not one per number). [`catalog_values`] binds them.
pub(super) fn catalog_with_sizes(unless_first_new: bool) -> String {
    let gate = match unless_first_new {
        true => "WHERE EXISTS (SELECT 1 FROM orders WHERE depot_id = ?1 AND order_number = ?3)",
        false => "",
    };
    format!(
        "SELECT 0, id, name FROM capacity_types WHERE depot_id = ?1 \
         UNION ALL SELECT 1, id, name FROM skills WHERE depot_id = ?1 \
         UNION ALL SELECT 2, id, name FROM tags WHERE depot_id = ?1 \
         UNION ALL SELECT 3, id, name FROM custom_fields WHERE depot_id = ?1 \
         UNION ALL SELECT 4, l.size, l.order_number {} {gate}",
        stored_sizes_from(1, 2)
    )
}

/// The parameters of [`catalog_with_sizes`].
pub(super) fn catalog_values(
    scope: DepotScope,
    numbers: &[&str],
    unless_first_new: bool,
) -> Vec<Val> {
    let first = numbers.first().copied().unwrap_or_default();
    let mut values = vec![
        scope.depot_id.to_val(),
        text_list(Dialect::Postgres, numbers),
    ];
    if unless_first_new {
        values.push(first.to_val());
    }
    values
}

/// One row of [`catalog_with_sizes`] put where it belongs.
pub(super) fn catalog_row(
    catalog: &mut Catalog,
    stored: &mut StoredSizes,
    list: i64,
    id: i64,
    name: String,
) {
    match list {
        0 => catalog.capacity_types.push(NamedRef { id, name }),
        1 => catalog.skills.push(NamedRef { id, name }),
        2 => catalog.tags.push(NamedRef { id, name }),
        3 => catalog.custom_fields.push(NamedRef { id, name }),
        _ => {
            stored.insert(name, Some(usize::try_from(id).unwrap_or(usize::MAX)));
        }
    }
}

/// One line item as [`ITEMS_AS_JSON`] writes it, [`ITEM_COLUMNS`] order.
type ItemJson = (
    i64,
    String,
    String,
    i64,
    Option<i64>,
    Option<i64>,
    Option<f64>,
    String,
    Option<String>,
    String,
    String,
);

/// The line items [`ITEMS_AS_JSON`] aggregated.
fn items_from_json(json: &str) -> Result<Vec<LineItem>, StoreError> {
    let items: Vec<ItemJson> = serde_json::from_str(json).map_err(|_| corrupt("line items"))?;
    items
        .into_iter()
        .map(
            |(id, code, name, quantity, price, manual, outstanding, status, date, caps, fields)| {
                decode_item((
                    LineItem {
                        id,
                        product_code: code,
                        product_name: name,
                        quantity,
                        unit_price: price.map(UnitPrice::from_micros),
                        manual_value: manual.map(Money::from_cents),
                        quantity_outstanding: outstanding,
                        status: Status::from_stored(status),
                        date: date.as_deref().and_then(Date::parse),
                        capacities: Vec::new(),
                        custom_fields: Vec::new(),
                    },
                    caps,
                    fields,
                ))
            },
        )
        .collect()
}

impl<C: Connection> Db<C> {
    /// The orders of the depot with these numbers, deleted ones included, by number, with
    /// their line items: on PostgreSQL in one statement (each order's items aggregated into
    /// one JSON column beside its row, [`ITEMS_AS_JSON`]), on SQLite in two.
    pub(super) fn orders_by_numbers(
        &self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<HashMap<String, NumberedOrder>, StoreError> {
        // The numbers travel as one parameter: a list of any length is one statement,
        // prepared once per connection (a list of placeholders was a statement per length,
        // parsed and planned again on SQLite and a round trip more on PostgreSQL every time).
        // On PostgreSQL the orders found stay locked until commit: writers of orders by
        // number run side by side in a depot (`Store::run_order_write`), and a second writer
        // of an order waits here for the first one's commit, then reads it.
        // Locked in number order, the order writers beside each other write their batches in
        // (`upsert_batch`), so that two of them sharing numbers do not deadlock.
        // A POST /orders batch locks its stored orders in an earlier statement (their sizes,
        // `stored_sizes_from`), so this one starts with every lock granted and sees each order
        // and its line items as the last writer committed them. It is a statement of its own
        // for that: a statement that waits for a row's lock reads the row's new version
        // (PostgreSQL rereads it) but everything else, the line items too, as of its start.
        let sql = match C::DIALECT {
            Dialect::Sqlite => format!(
                "SELECT {COLUMNS} FROM orders WHERE depot_id = ?1 AND order_number {}",
                in_list(C::DIALECT, 2, false)
            ),
            Dialect::Postgres => each_of_list(
                2,
                false,
                &format!(
                    "SELECT {COLUMNS}, {ITEMS_AS_JSON} FROM orders o \
                     WHERE depot_id = ?1 AND order_number = k.key FOR UPDATE"
                ),
            ),
        };
        let mut rows: Vec<(OrderRow, Option<String>)> = Vec::with_capacity(numbers.len());
        let mut q = self.0.prepare_cached(&sql).st()?;
        let numbers = text_list(C::DIALECT, numbers);
        for row in q
            .query_map(params![scope.depot_id, numbers], |r| {
                let items = match C::DIALECT {
                    Dialect::Sqlite => None,
                    Dialect::Postgres => r.get(23)?,
                };
                Ok((order_row(r)?, items))
            })
            .st()?
        {
            rows.push(row.st()?);
        }
        drop(q);
        let mut items = match C::DIALECT {
            Dialect::Sqlite => {
                self.line_items_of(&rows.iter().map(|(r, _)| r.id).collect::<Vec<_>>())?
            }
            Dialect::Postgres => HashMap::new(),
        };
        rows.into_iter()
            .map(|(r, json)| {
                let deleted = r.deleted;
                let line_items = match json {
                    Some(json) => items_from_json(&json)?,
                    None => items.remove(&r.id).unwrap_or_default(),
                };
                let order = decode(r, line_items)?;
                Ok((order.order_number.clone(), NumberedOrder { order, deleted }))
            })
            .collect()
    }

    /// Which of these numbers name an order of the depot, deleted ones included; on
    /// PostgreSQL the orders found stay locked until commit, locked in number order as
    /// [`Db::orders_by_numbers`] locks them.
    pub(super) fn stored_numbers(
        &self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<HashSet<String>, StoreError> {
        let sql = match C::DIALECT {
            Dialect::Sqlite => format!(
                "SELECT order_number FROM orders WHERE depot_id = ?1 AND order_number {}",
                in_list(C::DIALECT, 2, false)
            ),
            Dialect::Postgres => each_of_list(
                2,
                false,
                "SELECT order_number FROM orders WHERE depot_id = ?1 AND order_number = k.key \
                 FOR UPDATE",
            ),
        };
        let mut q = self.0.prepare_cached(&sql).st()?;
        let numbers = text_list(C::DIALECT, numbers);
        let mut found = HashSet::new();
        for number in q
            .query_map(params![scope.depot_id, numbers], |r| r.get(0))
            .st()?
        {
            found.insert(number.st()?);
        }
        Ok(found)
    }

    /// Which of these numbers name an order of the depot, deleted ones included, with the
    /// bytes of text each holds (its row's and its line items'); PostgreSQL only (SQLite
    /// tells no sizes). The orders found stay locked until commit, locked in number order as
    /// [`Db::orders_by_numbers`] locks them.
    pub(super) fn stored_sizes(
        &self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<StoredSizes, StoreError> {
        let sql = format!("SELECT l.order_number, l.size {}", stored_sizes_from(1, 2));
        let mut q = self.0.prepare_cached(&sql).st()?;
        let numbers = text_list(C::DIALECT, numbers);
        let mut found = HashMap::new();
        for row in q
            .query_map(params![scope.depot_id, numbers], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
            })
            .st()?
        {
            let (number, bytes) = row.st()?;
            found.insert(number, Some(usize::try_from(bytes).unwrap_or(usize::MAX)));
        }
        Ok(found)
    }

    /// The depot's reference catalog and [`Db::stored_sizes`] in one statement (PostgreSQL):
    /// the catalog's four lists and the stored orders as rows of one `UNION ALL`, told apart by
    /// their first column. With `unless_first_new`, the stored orders are looked up only when
    /// the depot holds the first number (a one-time filter, evaluated once before the
    /// look-ups: a batch of new numbers costs one index probe, not one per number).
    pub(super) fn catalog_with_stored_sizes(
        &self,
        scope: DepotScope,
        numbers: &[&str],
        unless_first_new: bool,
    ) -> Result<(Catalog, StoredSizes), StoreError> {
        let sql = format!("{} ORDER BY 1, 2", catalog_with_sizes(unless_first_new));
        let mut q = self.0.prepare_cached(&sql).st()?;
        let (mut catalog, mut stored) = (Catalog::default(), HashMap::new());
        for row in q
            .query_map(
                params_from_iter(catalog_values(scope, numbers, unless_first_new)),
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, i64>(1)?,
                        r.get::<_, String>(2)?,
                    ))
                },
            )
            .st()?
        {
            let (list, id, name) = row.st()?;
            catalog_row(&mut catalog, &mut stored, list, id, name);
        }
        Ok((catalog, stored))
    }

    /// The line items of these orders in position order, by order id.
    fn line_items_of(&self, orders: &[i64]) -> Result<HashMap<i64, Vec<LineItem>>, StoreError> {
        let mut items: HashMap<i64, Vec<LineItem>> = HashMap::new();
        if orders.is_empty() {
            return Ok(items);
        }
        let sql = match C::DIALECT {
            Dialect::Sqlite => format!(
                "SELECT order_id, {ITEM_COLUMNS} FROM order_line_items \
                 WHERE order_id {} ORDER BY order_id, position",
                in_list(C::DIALECT, 1, true)
            ),
            Dialect::Postgres => each_of_list(
                1,
                true,
                &format!(
                    "SELECT order_id, {ITEM_COLUMNS} FROM order_line_items \
                     WHERE order_id = k.key ORDER BY position"
                ),
            ),
        };
        let mut q = self.0.prepare_cached(&sql).st()?;
        let listed = integer_list(C::DIALECT, orders);
        let rows = q
            .query_map(params![listed], |r| {
                Ok((r.get::<_, i64>(0)?, item_row(r, 1)?))
            })
            .st()?;
        for row in rows {
            let (order, item) = row.st()?;
            items.entry(order).or_default().push(decode_item(item)?);
        }
        Ok(items)
    }
}
