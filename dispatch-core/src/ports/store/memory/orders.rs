//! The in-memory customer and order repositories.

use std::collections::HashSet;

use super::State;
use crate::model::attachment::Attachment;
use crate::model::customer::Customer;
use crate::model::order::Order;
use crate::model::organisation::DepotScope;
use crate::paging::{Cursor, Page, PageRequest};
use crate::ports::store::{
    CustomerRepo, NewAttachment, NumberedOrder, OrderFilter, OrderRepo, OrderSummary, StoreError,
};
use crate::time::Timestamp;

/// Customers, orders and their attachments, per depot.
#[derive(Debug, Clone, Default)]
pub(super) struct OrderBook {
    customers: Vec<(i64, Customer)>,
    orders: Vec<StoredOrder>,
    attachments: Vec<(i64, Attachment)>,
}

#[derive(Debug, Clone)]
struct StoredOrder {
    depot_id: i64,
    order: Order,
    deleted: bool,
    exchange_id: Option<i64>,
}

/// Keyset paging over rows already filtered: most recently updated first, then id.
pub(super) fn page_of<T: Clone>(mut rows: Vec<(Timestamp, i64, T)>, page: &PageRequest) -> Page<T> {
    rows.retain(|(updated, id, _)| {
        page.updated_at_min.is_none_or(|min| *updated >= min)
            && page
                .after
                .is_none_or(|c| (*updated, *id) < (c.updated, c.id))
    });
    rows.sort_by_key(|r| std::cmp::Reverse((r.0, r.1)));
    let more = rows.len() > page.limit;
    rows.truncate(page.limit);
    let next = if more {
        rows.last().map(|(updated, id, _)| Cursor {
            updated: *updated,
            id: *id,
        })
    } else {
        None
    };
    Page {
        items: rows.into_iter().map(|(_, _, r)| r).collect(),
        next,
    }
}

impl CustomerRepo for State {
    fn count_customers(&mut self, scope: DepotScope) -> Result<u64, StoreError> {
        Ok(self
            .orders
            .customers
            .iter()
            .filter(|(d, _)| *d == scope.depot_id)
            .count() as u64)
    }

    fn find_customer_by_account(
        &mut self,
        scope: DepotScope,
        account: &str,
    ) -> Result<Option<Customer>, StoreError> {
        Ok(self
            .orders
            .customers
            .iter()
            .find(|(d, c)| *d == scope.depot_id && c.account == account)
            .map(|(_, c)| c.clone()))
    }

    fn get_customer(&mut self, scope: DepotScope, id: i64) -> Result<Option<Customer>, StoreError> {
        Ok(self
            .orders
            .customers
            .iter()
            .find(|(d, c)| *d == scope.depot_id && c.id == id)
            .map(|(_, c)| c.clone()))
    }

    fn insert_customer(
        &mut self,
        scope: DepotScope,
        customer: &Customer,
    ) -> Result<i64, StoreError> {
        if self
            .find_customer_by_account(scope, &customer.account)?
            .is_some()
        {
            return Err(StoreError::Conflict(format!(
                "customer {}",
                customer.account
            )));
        }
        let id = self.id();
        let mut c = customer.clone();
        c.id = id;
        self.orders.customers.push((scope.depot_id, c));
        Ok(id)
    }

    fn update_customer(
        &mut self,
        scope: DepotScope,
        customer: &Customer,
    ) -> Result<(), StoreError> {
        let slot = self
            .orders
            .customers
            .iter_mut()
            .find(|(d, c)| *d == scope.depot_id && c.id == customer.id)
            .ok_or_else(|| StoreError::Backend(format!("no customer {}", customer.id)))?;
        slot.1 = customer.clone();
        Ok(())
    }

    fn list_customers(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<Customer>, StoreError> {
        let rows = self
            .orders
            .customers
            .iter()
            .filter(|(d, _)| *d == scope.depot_id)
            .map(|(_, c)| {
                let list_view = Customer {
                    capacities: Vec::new(),
                    skills: Vec::new(),
                    tags: Vec::new(),
                    time_windows: Vec::new(),
                    custom_fields: Vec::new(),
                    ..c.clone()
                };
                (c.updated, c.id, list_view)
            })
            .collect();
        Ok(page_of(rows, page))
    }
}

impl State {
    fn stored_order(&mut self, scope: DepotScope, id: i64) -> Option<&mut StoredOrder> {
        self.orders
            .orders
            .iter_mut()
            .find(|o| o.depot_id == scope.depot_id && o.order.id == id)
    }

    fn with_line_item_ids(&mut self, order: &Order) -> Order {
        let mut o = order.clone();
        for item in &mut o.line_items {
            if item.id == 0 {
                item.id = self.id();
            }
        }
        o
    }
}

impl OrderRepo for State {
    fn find_order_by_number(
        &mut self,
        scope: DepotScope,
        order_number: &str,
    ) -> Result<Option<NumberedOrder>, StoreError> {
        Ok(self
            .orders
            .orders
            .iter()
            .find(|o| o.depot_id == scope.depot_id && o.order.order_number == order_number)
            .map(|o| NumberedOrder {
                order: o.order.clone(),
                deleted: o.deleted,
            }))
    }

    fn find_order_by_id(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<NumberedOrder>, StoreError> {
        Ok(self.stored_order(scope, id).map(|o| NumberedOrder {
            order: o.order.clone(),
            deleted: o.deleted,
        }))
    }

    fn get_order(&mut self, scope: DepotScope, id: i64) -> Result<Option<Order>, StoreError> {
        Ok(self
            .stored_order(scope, id)
            .filter(|o| !o.deleted)
            .map(|o| o.order.clone()))
    }

    fn live_order_ids(
        &mut self,
        scope: DepotScope,
        ids: &[i64],
    ) -> Result<HashSet<i64>, StoreError> {
        let wanted: HashSet<i64> = ids.iter().copied().collect();
        Ok(self
            .orders
            .orders
            .iter()
            .filter(|o| o.depot_id == scope.depot_id && !o.deleted && wanted.contains(&o.order.id))
            .map(|o| o.order.id)
            .collect())
    }

    fn insert_order(&mut self, scope: DepotScope, order: &Order) -> Result<i64, StoreError> {
        if self
            .find_order_by_number(scope, &order.order_number)?
            .is_some()
        {
            return Err(StoreError::Conflict(format!(
                "order {}",
                order.order_number
            )));
        }
        let id = self.id();
        let mut o = self.with_line_item_ids(order);
        o.id = id;
        self.orders.orders.push(StoredOrder {
            depot_id: scope.depot_id,
            order: o,
            deleted: false,
            exchange_id: None,
        });
        Ok(id)
    }

    fn update_order(&mut self, scope: DepotScope, order: &Order) -> Result<(), StoreError> {
        let o = self.with_line_item_ids(order);
        let slot = self
            .stored_order(scope, order.id)
            .ok_or_else(|| StoreError::Backend(format!("no order {}", order.id)))?;
        if o.exchange_reference.is_none() {
            slot.exchange_id = None;
        }
        slot.order = o;
        slot.deleted = false;
        Ok(())
    }

    fn delete_order(&mut self, scope: DepotScope, id: i64) -> Result<Option<u64>, StoreError> {
        Ok(self
            .stored_order(scope, id)
            .filter(|o| !o.deleted)
            .map(|o| {
                o.deleted = true;
                o.order.line_items.len() as u64
            }))
    }

    fn list_orders(
        &mut self,
        scope: DepotScope,
        filter: &OrderFilter,
        page: &PageRequest,
    ) -> Result<Page<OrderSummary>, StoreError> {
        let customers = self.orders.customers.clone();
        let rows = self
            .orders
            .orders
            .iter()
            .filter(|o| o.depot_id == scope.depot_id && !o.deleted)
            .map(|o| &o.order)
            .filter(|o| {
                filter.status.as_ref().is_none_or(|s| o.status == *s)
                    && filter.customer_id.is_none_or(|c| o.customer_id == Some(c))
                    && filter
                        .order_number
                        .as_ref()
                        .is_none_or(|n| o.order_number == *n)
                    && filter.date.is_none_or(|d| o.delivery_date == Some(d))
            })
            .map(|o| {
                let customer = o.customer_id.and_then(|id| {
                    customers
                        .iter()
                        .find(|(_, c)| c.id == id)
                        .map(|(_, c)| (id, c.account.clone()))
                });
                let summary = OrderSummary {
                    id: o.id,
                    order_number: o.order_number.clone(),
                    status: o.status.clone(),
                    kind: o.kind,
                    line_item_ids: o.line_items.iter().map(|i| i.id).collect(),
                    customer,
                    created: o.created,
                    updated: o.updated,
                };
                (o.updated, o.id, summary)
            })
            .collect();
        Ok(page_of(rows, page))
    }

    fn link_exchange(
        &mut self,
        scope: DepotScope,
        orders: [i64; 2],
        reference: &str,
    ) -> Result<(), StoreError> {
        let exchange = self.id();
        for id in orders {
            let slot = self
                .stored_order(scope, id)
                .ok_or_else(|| StoreError::Backend(format!("no order {id}")))?;
            slot.exchange_id = Some(exchange);
            slot.order.exchange_reference = Some(reference.to_owned());
        }
        Ok(())
    }

    fn exchange_partner(&mut self, scope: DepotScope, id: i64) -> Result<Option<i64>, StoreError> {
        let Some(exchange) = self.stored_order(scope, id).and_then(|o| o.exchange_id) else {
            return Ok(None);
        };
        Ok(self
            .orders
            .orders
            .iter()
            .find(|o| {
                o.depot_id == scope.depot_id && o.exchange_id == Some(exchange) && o.order.id != id
            })
            .map(|o| o.order.id))
    }

    fn list_attachments(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Vec<Attachment>, StoreError> {
        Ok(self
            .orders
            .attachments
            .iter()
            .filter(|(d, a)| *d == scope.depot_id && a.order_id == order_id)
            .map(|(_, a)| a.clone())
            .collect())
    }

    fn insert_attachment(
        &mut self,
        scope: DepotScope,
        attachment: &NewAttachment<'_>,
        now: Timestamp,
    ) -> Result<Attachment, StoreError> {
        let a = Attachment {
            id: self.id(),
            order_id: attachment.order_id,
            depot_id: scope.depot_id,
            name: attachment.name.to_owned(),
            file_name: attachment.file_name.to_owned(),
            mime: attachment.mime.to_owned(),
            ext: attachment.ext.to_owned(),
            size: attachment.content.len() as u64,
            is_compressed: false,
            modified: now,
            created: now,
        };
        self.orders.attachments.push((scope.depot_id, a.clone()));
        Ok(a)
    }

    fn delete_custom_order_status(
        &mut self,
        organisation_id: i64,
        status: &str,
    ) -> Result<bool, StoreError> {
        let before = self.order_statuses.len();
        self.order_statuses
            .retain(|(o, s)| !(*o == organisation_id && s == status));
        Ok(self.order_statuses.len() != before)
    }
}
