//! New orders encoded before their write transaction ([`prepare_new_orders`]): SQLite, whose
//! writers run one at a time, encodes a batch's rows while another writer holds the lock, and
//! the batch's own transaction binds them as they are ([`Db::insert_prepared`]): one-row
//! inserts, line items under ids reserved in one move of the allocator.

use crate::sql::{Connection, Dialect, Statement, ToSql as _, Val};
use dispatch_core::model::order::Order;
use dispatch_core::model::organisation::DepotScope;
use dispatch_core::ports::store::{PreparedOrders, StoreError};

use super::line_items::INSERT_ONE_WITH_ID;
use super::order_rows::item_values;
use super::order_rows::{order_values, INSERT_ORDER_ROW};
use super::{Db, Sql};

/// The encoded rows of new orders of one depot.
struct EncodedOrders {
    depot_id: i64,
    orders: Vec<EncodedOrder>,
}

/// One order's row ([`INSERT_ORDER_ROW`]'s parameters) and its line items' rows
/// ([`INSERT_ONE_WITH_ID`]'s: the id and the order's id are filled in by the insert).
struct EncodedOrder {
    row: Vec<Val>,
    items: Vec<Vec<Val>>,
}

/// New orders of `scope` encoded for SQLite's `Db::insert_prepared`; orders whose line items
/// name their ids (never new orders of POST /orders) stay as they are, inserted the ordinary
/// way.
pub fn prepare_new_orders(scope: DepotScope, orders: Vec<Order>) -> PreparedOrders {
    if orders
        .iter()
        .any(|o| o.line_items.iter().any(|i| i.id != 0))
    {
        return PreparedOrders::new(orders);
    }
    let orders = orders
        .iter()
        .map(|o| EncodedOrder {
            row: std::iter::once(scope.depot_id.to_val())
                .chain(order_values(o))
                .chain([o.created.millis().to_val()])
                .collect(),
            items: o
                .line_items
                .iter()
                .enumerate()
                .map(|(position, item)| {
                    std::iter::once(Val::Null)
                        .chain(item_values(0, position, item))
                        .collect()
                })
                .collect(),
        })
        .collect();
    PreparedOrders::encoded(EncodedOrders {
        depot_id: scope.depot_id,
        orders,
    })
}

impl<C: Connection> Db<C> {
    /// Inserts new orders made ready by [`prepare_new_orders`] (or left as they are by it);
    /// returns their ids in order. A number the depot holds fails with a conflict (the unique
    /// index).
    pub(super) fn insert_prepared(
        &self,
        scope: DepotScope,
        orders: PreparedOrders,
    ) -> Result<Vec<i64>, StoreError> {
        let encoded = match orders.take::<EncodedOrders>() {
            Ok(_) if C::DIALECT != Dialect::Sqlite => {
                return Err(StoreError::Backend(
                    "orders encoded for SQLite's one-row inserts".to_owned(),
                ))
            }
            Ok(encoded) if encoded.depot_id == scope.depot_id => encoded,
            Ok(_) => {
                return Err(StoreError::Backend(
                    "orders prepared for another depot".to_owned(),
                ))
            }
            Err(orders) => {
                return match orders.take::<Vec<Order>>() {
                    Ok(orders) => self.insert_new_orders(scope, &orders),
                    Err(_) => Err(StoreError::Backend(
                        "orders prepared by another store".to_owned(),
                    )),
                }
            }
        };
        let mut ids = Vec::with_capacity(encoded.orders.len());
        let mut items = Vec::new();
        // One statement of the cache for every row: looked up once, not once a row.
        let mut insert = self.0.prepare_cached(INSERT_ORDER_ROW).st()?;
        for order in encoded.orders {
            let id: i64 = insert.query_row(order.row, |r| r.get(0)).st()?;
            ids.push(id);
            items.extend(order.items.into_iter().map(|item| (id, item)));
        }
        drop(insert);
        let mut reserved = self.reserve_line_item_ids(items.len())?;
        let mut insert = self.0.prepare_cached(INSERT_ONE_WITH_ID).st()?;
        for (order_id, mut item) in items {
            item[0] = Val::Int(reserved.take()?);
            item[1] = Val::Int(order_id);
            insert.execute(item).st()?;
        }
        Ok(ids)
    }
}
