//! Orders of a whole POST /orders batch at once: their stored state found in one question per
//! table; new ones inserted and stored ones overwritten one row at a time on SQLite and with
//! multi-row statements on PostgreSQL ([`in_statements`]); line items written together
//! ([`Db::write_line_items`]).

use std::collections::{HashMap, HashSet};

use crate::sql::{params, params_from_iter, Connection, Dialect, Statement, ToSql as _, Val};
use dispatch_core::model::line_item::LineItem;
use dispatch_core::model::order::Order;
use dispatch_core::model::order_fields::{Catalog, NamedRef};
use dispatch_core::model::order_value::{Money, UnitPrice};
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{NumberedOrder, StoreError, StoredSizes};
use dispatch_core::status::Status;
use dispatch_core::time::Date;

use super::order_codec as codec;
use super::order_rows::{
    corrupt, decode, decode_item, item_row, item_values, order_row, OrderRow, COLUMNS,
    ITEM_COLUMNS, ITEM_TYPES, ITEM_WRITTEN,
};
use super::{Db, Sql};

/// Rows per multi-row statement (PostgreSQL), beside the bound on their text
/// ([`TEXT_PER_STATEMENT`]).
const ROWS_PER_STATEMENT: usize = 500;

/// Membership in the JSON array bound at parameter `?param` (texts, or integers with
/// `integers`), spelt so that an index answers it: one statement for a list of any length,
/// prepared once per connection. PostgreSQL hash-joins `IN (SELECT ...)` over a set-returning
/// function with a scan of the whole table (it guesses 100 elements); `= ANY (ARRAY(...))` is
/// an index condition.
pub(super) fn in_json_array(dialect: Dialect, param: usize, integers: bool) -> String {
    match dialect {
        Dialect::Sqlite => format!("IN (SELECT value FROM json_each(?{param}))"),
        Dialect::Postgres => format!(
            "= ANY (ARRAY(SELECT value{} FROM json_array_elements_text(?{param}::json)))",
            if integers { "::bigint" } else { "" }
        ),
    }
}

/// On PostgreSQL, the rows `lookup` finds for each distinct element of the JSON array bound at
/// `?param` (texts, or integers with `integers`), taken in the elements' order: `lookup` is a
/// `SELECT` naming the element `k.key`, run once per element (a `LATERAL` subquery that an
/// `ORDER BY` or `FOR UPDATE` keeps from being merged into a join). Each element is found
/// through the index its equality names, whatever the statistics: a join would be planned
/// from them, and without them (a table filled since its last `ANALYZE`) PostgreSQL takes a
/// depot's rows for a handful and reads them all through the depot's index.
pub(super) fn each_of_json_array(param: usize, integers: bool, lookup: &str) -> String {
    format!(
        "SELECT l.* FROM (SELECT DISTINCT value{} AS key FROM json_array_elements_text(?{param}::json) \
         ORDER BY 1) k, LATERAL ({lookup}) l",
        if integers { "::bigint" } else { "" }
    )
}

/// `unnest(?{first}::{type}[], ...)`: the rows of a multi-row statement (PostgreSQL) as one
/// array parameter per column of `types`, numbered from `first`, bound as [`columns`] makes
/// them. One statement text for any number of rows (prepared once per connection, where a
/// `VALUES` list of one parameter a value was a text, a preparation and a plan per row count),
/// and one parameter a column for both sides to encode and receive.
pub(super) fn unnest(first: usize, types: &[&str]) -> String {
    let arrays: Vec<String> = types
        .iter()
        .enumerate()
        .map(|(c, ty)| format!("?{}::{ty}[]", first + c))
        .collect();
    format!("unnest({})", arrays.join(", "))
}

/// `values`, rows of `width` values each in row order, as one array per column ([`Val::List`]),
/// the parameters of an [`unnest`]: the values are moved, not copied.
pub(super) fn columns(values: Vec<Val>, width: usize) -> Vec<Val> {
    let rows = values.len() / width;
    let mut columns: Vec<Vec<Val>> = (0..width).map(|_| Vec::with_capacity(rows)).collect();
    for (i, value) in values.into_iter().enumerate() {
        columns[i % width].push(value);
    }
    columns.into_iter().map(Val::List).collect()
}

/// The order columns written by insert and update, [`ORDER_TYPES`] order.
const ORDER_WRITTEN: &str = "order_number, type, status, priority, customer_id, delivery,     pickup, delivery_date, time_windows, exchange_reference, parts, vehicle_id, emails,     third_party_id, tags, skills, capacities, custom_fields, order_value_cents, updated";

/// The PostgreSQL types of [`ORDER_WRITTEN`].
const ORDER_TYPES: [&str; 20] = [
    "text", "text", "text", "text", "bigint", "text", "text", "text", "text", "text", "float8",
    "bigint", "text", "bigint", "text", "text", "text", "text", "bigint", "bigint",
];

/// `before`, [`ORDER_TYPES`], then `after`: the types of a statement's order rows.
fn order_types<'a>(before: &[&'a str], after: &[&'a str]) -> Vec<&'a str> {
    let mut types = before.to_vec();
    types.extend(ORDER_TYPES);
    types.extend(after);
    types
}

/// The line items of the order aliased `o`, in position order, as one JSON array of
/// [`ITEM_COLUMNS`] arrays (null when it has none): a column beside the order's row, so that
/// the orders of a batch and their items are one statement (one index probe per order).
/// PostgreSQL writes a float's shortest exact text in JSON (since 12), so values read back
/// as written.
const ITEMS_AS_JSON: &str = "(SELECT json_agg(json_build_array(id, product_code, product_name, \
    quantity, unit_price_micros, manual_value_cents, quantity_outstanding, status, date, \
    capacities, custom_fields) ORDER BY position) FROM order_line_items WHERE order_id = o.id)";

/// `FROM` the stored orders of the depot bound at `?{depot}` whose numbers are in the JSON
/// array bound at `?{numbers}`, as `l` with `l.order_number` and `l.size`: the bytes of text
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
    format!(
        "FROM (SELECT DISTINCT value AS key FROM json_array_elements_text(?{numbers}::json) \
         ORDER BY 1) k, LATERAL ({lookup}) l"
    )
}

/// The depot's catalog (lists 0-3: capacity types, skills, tags, custom fields, as `id,
/// name`) and the stored orders among the numbers (list 4, as `size, number`), rows `(list, id,
/// name)` of one `UNION ALL`: the depot bound at `?1`, the numbers as a JSON array at `?2` and,
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
        serde_json::to_string(numbers)
            .expect("strings encode")
            .into_val(),
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

/// The line items of a new order, `order_number`, as [`new_items`] reads them, one after the
/// other in one list (empty without items): each its order's number (the statement inserting
/// the order gives its id), then [`ITEM_WRITTEN`] after `order_id`. Every item must be new
/// (id 0): the statement gives each a new id.
fn new_item_rows(order_number: &str, items: &[LineItem]) -> Val {
    let mut rows = Vec::with_capacity(items.len() * ITEM_TYPES.len());
    for (position, item) in items.iter().enumerate() {
        let [_, rest @ ..] = item_values(0, position, item);
        rows.push(order_number.to_val());
        rows.extend(rest);
    }
    Val::List(rows)
}

/// Inserts the line items of new orders inserted by the same statement (PostgreSQL): a
/// data-modifying `WITH` clause after the one named `o` that inserted the orders (`RETURNING
/// id, order_number`), the items as the arrays of [`new_item_rows`] bound from `?{first}`
/// on, in their order (the identity column numbers them as before, by order and position).
/// The foreign key on the order is checked at the statement's end, when the orders are there.
fn new_items(first: usize) -> String {
    let mut types = vec!["text"];
    types.extend(&ITEM_TYPES[1..]);
    format!(
        "i AS (INSERT INTO order_line_items ({ITEM_WRITTEN}) \
         SELECT o.id, v.position, v.product_code, v.product_name, v.quantity, \
         v.unit_price_micros, v.manual_value_cents, v.quantity_outstanding, v.status, v.date, \
         v.capacities, v.custom_fields \
         FROM {} WITH ORDINALITY \
         AS v(order_number, position, product_code, product_name, quantity, \
         unit_price_micros, manual_value_cents, quantity_outstanding, status, date, \
         capacities, custom_fields, n) \
         JOIN o ON o.order_number = v.order_number ORDER BY v.n)",
        unnest(first, &types)
    )
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

impl<C: Connection> Db<C> {
    /// The orders of the depot with these numbers, deleted ones included, by number, with
    /// their line items: on PostgreSQL in one statement (each order's items aggregated into
    /// one JSON column beside its row, [`ITEMS_AS_JSON`]), on SQLite in two.
    pub(super) fn orders_by_numbers(
        &self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<HashMap<String, NumberedOrder>, StoreError> {
        // The numbers travel as one JSON array: a list of any length is one statement,
        // prepared once per connection (a list of placeholders was a statement per length,
        // parsed and planned again on SQLite and a round trip more on PostgreSQL every time).
        // On PostgreSQL the orders found stay locked until commit: writers of orders by
        // number run side by side in a depot (`Store::run_order_write`), and a second writer
        // of an order waits here for the first one's commit, then reads it.
        // Locked in number order, the order writers beside each other write their batches in
        // (`upsert_batch`), so that two of them sharing numbers do not deadlock.
        let sql = match C::DIALECT {
            Dialect::Sqlite => format!(
                "SELECT {COLUMNS} FROM orders WHERE depot_id = ?1 AND order_number {}",
                in_json_array(C::DIALECT, 2, false)
            ),
            Dialect::Postgres => each_of_json_array(
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
        let numbers = serde_json::to_string(numbers).expect("strings encode");
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
                in_json_array(C::DIALECT, 2, false)
            ),
            Dialect::Postgres => each_of_json_array(
                2,
                false,
                "SELECT order_number FROM orders WHERE depot_id = ?1 AND order_number = k.key \
                 FOR UPDATE",
            ),
        };
        let mut q = self.0.prepare_cached(&sql).st()?;
        let numbers = serde_json::to_string(numbers).expect("strings encode");
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
        let numbers = serde_json::to_string(numbers).expect("strings encode");
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
                in_json_array(C::DIALECT, 1, true)
            ),
            Dialect::Postgres => each_of_json_array(
                1,
                true,
                &format!(
                    "SELECT order_id, {ITEM_COLUMNS} FROM order_line_items \
                     WHERE order_id = k.key ORDER BY position"
                ),
            ),
        };
        let mut q = self.0.prepare_cached(&sql).st()?;
        let listed = serde_json::to_string(orders).expect("integers encode");
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

    /// The multi-row inserts of new orders (PostgreSQL): their ids in order, `None` for an
    /// order `where_new` skipped because its number is held.
    fn insert_orders_in_statements(
        &self,
        scope: DepotScope,
        orders: &[Order],
        where_new: bool,
    ) -> Result<Vec<Option<i64>>, StoreError> {
        let mut ids = Vec::with_capacity(orders.len());
        // Orders whose line items are all new go in with their items, one statement.
        if orders
            .iter()
            .all(|o| o.line_items.iter().all(|i| i.id == 0))
        {
            in_statements(
                orders,
                |o| {
                    let mut row = Vec::with_capacity(ORDER_TYPES.len() + 2);
                    row.extend(order_values(o));
                    row.push(o.created.millis().to_val());
                    row.push(new_item_rows(&o.order_number, &o.line_items));
                    Ok(row)
                },
                |chunk, values| {
                    ids.extend(self.insert_orders_with_items(scope, chunk, values, where_new)?);
                    Ok(())
                },
            )?;
            return Ok(ids);
        }
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

    /// Inserts several new orders of the depot and their line items (`values`: each order's
    /// [`ORDER_WRITTEN`] and creation time, then its items as [`new_item_rows`] listed them)
    /// in one statement (PostgreSQL), skipping those whose numbers are held with `where_new`
    /// (their items too: they join only inserted orders); returns their ids in order.
    fn insert_orders_with_items(
        &self,
        scope: DepotScope,
        orders: &[Order],
        values: Vec<Val>,
        where_new: bool,
    ) -> Result<Vec<Option<i64>>, StoreError> {
        let width = ORDER_TYPES.len() + 2;
        let (mut rows, mut items) = (Vec::with_capacity(orders.len() * width), Vec::new());
        for (i, value) in values.into_iter().enumerate() {
            match value {
                Val::List(listed) if i % width == width - 1 => items.extend(listed),
                value => rows.push(value),
            }
        }
        let sql = format!(
            "WITH o AS (INSERT INTO orders (depot_id, {ORDER_WRITTEN}, created) \
             SELECT ?1::bigint, * FROM {} {} RETURNING id, order_number), {} \
             SELECT id, order_number FROM o",
            unnest(2, &order_types(&[], &["bigint"])),
            on_conflict(where_new),
            new_items(ORDER_TYPES.len() + 3),
        );
        let mut params = vec![scope.depot_id.to_val()];
        params.extend(columns(rows, width - 1));
        params.extend(columns(items, ITEM_TYPES.len()));
        self.returned_ids(orders, &sql, params)
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

    /// Overwrites stored orders of the depot with their line items: SQLite one row at a time
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

/// The conflict clause of a multi-row insert of new orders: with `where_new`, a row whose
/// number the depot holds is skipped (the unique index on the depot and number decides, after
/// waiting for a concurrent insert of it); without, it fails the statement.
fn on_conflict(where_new: bool) -> &'static str {
    match where_new {
        true => "ON CONFLICT (depot_id, order_number) DO NOTHING",
        false => "",
    }
}

/// Bytes of text and blobs in `values`, lists' elements included.
fn text_size(values: &[Val]) -> usize {
    values
        .iter()
        .map(|v| match v {
            Val::Text(s) => s.len(),
            Val::Blob(b) => b.len(),
            Val::List(l) => text_size(l),
            _ => 0,
        })
        .sum()
}

/// Bytes of text a statement may bind beyond its first row: enough for hundreds of ordinary
/// orders, while a batch of orders carrying the largest notes is split into statements
/// whose parameters (copied by the driver into its message) stay a small part of the batch.
const TEXT_PER_STATEMENT: usize = 1 << 20;

/// Writes `items` with multi-row statements: consecutive runs of at most
/// [`ROWS_PER_STATEMENT`] rows and, past a run's first row, at most [`TEXT_PER_STATEMENT`]
/// bytes of text, each given to `write` with its rows' values (`row` of each item, in turn).
/// SQLite, which keeps a statement journal and a copy of the `VALUES` of a multi-row write,
/// stays within a few times the bound as well.
pub(super) fn in_statements<T>(
    items: &[T],
    mut row: impl FnMut(&T) -> Result<Vec<Val>, StoreError>,
    mut write: impl FnMut(&[T], Vec<Val>) -> Result<(), StoreError>,
) -> Result<(), StoreError> {
    let (mut start, mut text, mut values) = (0, 0, Vec::new());
    for (i, item) in items.iter().enumerate() {
        let row = row(item)?;
        let size = text_size(&row);
        if i > start && (i - start == ROWS_PER_STATEMENT || text + size > TEXT_PER_STATEMENT) {
            write(&items[start..i], std::mem::take(&mut values))?;
            (start, text) = (i, 0);
        }
        values.extend(row);
        text += size;
    }
    if start < items.len() {
        write(&items[start..], values)?;
    }
    Ok(())
}
