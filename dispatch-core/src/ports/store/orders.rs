//! The order repository: orders with their line items, time windows and sets; exchange
//! pairs; attachments; the organisation's custom statuses. Status changes write their events
//! through [`super::OutboxRepo`] in the same transaction.

use std::any::Any;
use std::collections::{HashMap, HashSet};

use super::StoreError;
use crate::model::attachment::Attachment;
use crate::model::order::{Order, OrderType};
use crate::model::order_fields::Catalog;
use crate::model::organisation::{Depot, DepotScope};
use crate::paging::{Page, PageRequest};
use crate::status::Status;
use crate::time::{Date, Timestamp};

/// Stored orders of a batch by number, each with the bytes of text it holds where the store
/// tells it ([`OrderRepo::stored_order_sizes`]).
pub type StoredSizes = HashMap<String, Option<usize>>;

/// What [`OrderRepo::order_batch_start`] reads.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchStart {
    /// The depot with its organisation's custom order statuses; `None` when the depot is not
    /// there (nothing else is read then).
    pub depot: Option<(Depot, Vec<String>)>,
    /// The depot's reference catalog.
    pub catalog: Catalog,
    /// The stored orders among the numbers, as
    /// [`OrderRepo::catalog_with_stored_order_sizes`] tells them.
    pub stored: StoredSizes,
}

/// An order found by its number, possibly soft-deleted.
#[derive(Debug, Clone, PartialEq)]
pub struct NumberedOrder {
    /// The order.
    pub order: Order,
    /// Whether it was deleted (POST /orders restores it under its id).
    pub deleted: bool,
}

/// New orders of a depot made ready for [`OrderRepo::insert_prepared_orders`] before the write
/// transaction that inserts them ([`super::Store::prepare_new_orders`]): a store whose writers run
/// one at a time encodes their rows here, outside the transaction, so that the transaction only
/// runs its statements. By default the orders as they are.
pub struct PreparedOrders(Box<dyn Any + Send>);

impl PreparedOrders {
    /// The orders, to be inserted as [`OrderRepo::insert_orders`] inserts them.
    pub fn new(orders: Vec<Order>) -> PreparedOrders {
        PreparedOrders(Box::new(orders))
    }

    /// What a store made of the orders (its own type, which only it reads back).
    pub fn encoded<T: Any + Send>(encoded: T) -> PreparedOrders {
        PreparedOrders(Box::new(encoded))
    }

    /// What the store made of them when it is a `T`, else the prepared orders back.
    pub fn take<T: Any>(self) -> Result<T, PreparedOrders> {
        match self.0.downcast::<T>() {
            Ok(t) => Ok(*t),
            Err(other) => Err(PreparedOrders(other)),
        }
    }
}

impl std::fmt::Debug for PreparedOrders {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PreparedOrders")
    }
}

/// Filters of the order list; they combine.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OrderFilter {
    /// Exactly this status (already resolved to its stored spelling).
    pub status: Option<Status>,
    /// Orders of this customer.
    pub customer_id: Option<i64>,
    /// Exactly this order number.
    pub order_number: Option<String>,
    /// Orders due on this date (`delivery_date`).
    pub date: Option<Date>,
}

/// The order list view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderSummary {
    /// Id.
    pub id: i64,
    /// Number.
    pub order_number: String,
    /// Status.
    pub status: Status,
    /// Type.
    pub kind: OrderType,
    /// Ids of its line items.
    pub line_item_ids: Vec<i64>,
    /// Its customer's id and account.
    pub customer: Option<(i64, String)>,
    /// Creation instant.
    pub created: Timestamp,
    /// Last change.
    pub updated: Timestamp,
}

/// An attachment to store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAttachment<'a> {
    /// The order.
    pub order_id: i64,
    /// File name as uploaded, for display ([`crate::model::attachment::display_name`]).
    pub name: &'a str,
    /// The sanitised name it is stored and served under
    /// ([`crate::model::attachment::safe_file_name`]).
    pub file_name: &'a str,
    /// Media type found from the content.
    pub mime: &'a str,
    /// Extension matching the content.
    pub ext: &'a str,
    /// The file.
    pub content: &'a [u8],
}

/// Orders of a depot and what hangs off them.
pub trait OrderRepo {
    /// The order with that number, deleted ones included.
    fn find_order_by_number(
        &mut self,
        scope: DepotScope,
        order_number: &str,
    ) -> Result<Option<NumberedOrder>, StoreError>;
    /// The orders with these numbers, deleted ones included, by number: one question for a
    /// whole POST /orders batch rather than one per order.
    fn find_orders_by_numbers(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<HashMap<String, NumberedOrder>, StoreError> {
        let mut found = HashMap::new();
        for number in numbers {
            if let Some(o) = self.find_order_by_number(scope, number)? {
                found.insert((*number).to_owned(), o);
            }
        }
        Ok(found)
    }
    /// Which of these numbers name an order of the depot, deleted ones included: asked once
    /// for a whole POST /orders batch, so that only the stored orders are read (a few at a
    /// time) and the new ones go in without a question per run. Where
    /// [`OrderRepo::find_orders_by_numbers`] locks the orders it finds, this locks them too.
    fn stored_order_numbers(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<HashSet<String>, StoreError> {
        Ok(self
            .find_orders_by_numbers(scope, numbers)?
            .into_keys()
            .collect())
    }
    /// [`OrderRepo::stored_order_numbers`], each with the text its order holds where the
    /// store tells it (the bytes of its row's and its line items' text; `None` where it does
    /// not): a POST /orders batch reads its stored orders in runs of bounded text, so a store
    /// that tells sizes reads a batch of small orders in one question. By default, no sizes.
    fn stored_order_sizes(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
    ) -> Result<StoredSizes, StoreError> {
        Ok(self
            .stored_order_numbers(scope, numbers)?
            .into_iter()
            .map(|n| (n, None))
            .collect())
    }
    /// The depot's reference catalog ([`ReferenceRepo::reference_catalog`]) and
    /// [`OrderRepo::stored_order_sizes`] in one question, where the store can ask them so
    /// (what a POST /orders batch reads first); `None` where it cannot: the caller asks for
    /// each. With `unless_first_new`, the sizes are asked only when the depot holds the first
    /// of `numbers`, and are empty when it does not, whatever the others: a batch that looks
    /// new, which the caller inserts where its numbers are free
    /// ([`OrderRepo::insert_orders_where_new`]) instead of asking for each number. By default
    /// `None`.
    ///
    /// [`ReferenceRepo::reference_catalog`]: super::ReferenceRepo::reference_catalog
    fn catalog_with_stored_order_sizes(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
        unless_first_new: bool,
    ) -> Result<Option<(Catalog, StoredSizes)>, StoreError> {
        let _ = (scope, numbers, unless_first_new);
        Ok(None)
    }
    /// The depot with its organisation's custom order statuses
    /// ([`OrganisationRepo::get_depot_with_statuses`]) and
    /// [`OrderRepo::catalog_with_stored_order_sizes`], in one question where the store can ask
    /// them so: what a POST /orders batch that is checked in its write transaction reads
    /// first. `None` where it cannot: the caller asks for each. By default `None`.
    ///
    /// [`OrganisationRepo::get_depot_with_statuses`]: super::OrganisationRepo::get_depot_with_statuses
    fn order_batch_start(
        &mut self,
        scope: DepotScope,
        numbers: &[&str],
        unless_first_new: bool,
    ) -> Result<Option<BatchStart>, StoreError> {
        let _ = (scope, numbers, unless_first_new);
        Ok(None)
    }
    /// One order of the depot, deleted ones included.
    fn find_order_by_id(
        &mut self,
        scope: DepotScope,
        id: i64,
    ) -> Result<Option<NumberedOrder>, StoreError>;
    /// One live order with its line items.
    fn get_order(&mut self, scope: DepotScope, id: i64) -> Result<Option<Order>, StoreError>;
    /// Which of `ids` are live orders of the depot: one question for every order of a saved
    /// day (not one read per stop inside the write transaction), however many ids it names.
    fn live_order_ids(
        &mut self,
        scope: DepotScope,
        ids: &[i64],
    ) -> Result<HashSet<i64>, StoreError>;
    /// Stores a new order (ids of the order and its line items are assigned) and returns its id.
    fn insert_order(&mut self, scope: DepotScope, order: &Order) -> Result<i64, StoreError>;
    /// Stores new orders as [`OrderRepo::insert_order`] does each; returns their ids in order.
    /// A store may write them with fewer statements than one call per order.
    fn insert_orders(
        &mut self,
        scope: DepotScope,
        orders: &[Order],
    ) -> Result<Vec<i64>, StoreError> {
        orders.iter().map(|o| self.insert_order(scope, o)).collect()
    }
    /// Stores those of `orders` (new orders, as [`OrderRepo::insert_orders`] stores them) whose
    /// numbers the depot does not hold, deleted orders included, and leaves the others alone;
    /// returns each one's id in order, `None` where its number is held. A number a concurrent
    /// writer has inserted and not yet committed is waited for: held if that writer commits,
    /// free if it rolls back; the call does not fail for it. By default the held numbers are
    /// asked first ([`OrderRepo::stored_order_numbers`]), then the others inserted.
    fn insert_orders_where_new(
        &mut self,
        scope: DepotScope,
        orders: &[Order],
    ) -> Result<Vec<Option<i64>>, StoreError> {
        insert_orders_not_held(self, scope, orders)
    }
    /// Stores new orders made ready by [`super::Store::prepare_new_orders`] as
    /// [`OrderRepo::insert_orders`] stores them; returns their ids in order. An order number
    /// the depot already holds fails with [`StoreError::Conflict`].
    fn insert_prepared_orders(
        &mut self,
        scope: DepotScope,
        orders: PreparedOrders,
    ) -> Result<Vec<i64>, StoreError> {
        match orders.take::<Vec<Order>>() {
            Ok(orders) => self.insert_orders(scope, &orders),
            Err(_) => Err(StoreError::Backend(
                "orders prepared by another store".to_owned(),
            )),
        }
    }
    /// Overwrites a stored order and restores it when deleted. Line items with id 0 are new,
    /// stored ones missing from `order.line_items` are removed. An order whose
    /// `exchange_reference` is `None` leaves its exchange pair.
    fn update_order(&mut self, scope: DepotScope, order: &Order) -> Result<(), StoreError>;
    /// Overwrites stored orders as [`OrderRepo::update_order`] does each, with the same
    /// outcome; an order not in the depot fails the call. A store may write them with fewer
    /// statements than one call per order (one per table for the whole slice); the default
    /// writes them one by one.
    fn update_orders(&mut self, scope: DepotScope, orders: &[Order]) -> Result<(), StoreError> {
        orders.iter().try_for_each(|o| self.update_order(scope, o))
    }
    /// Soft-deletes a live order; returns how many line items it had, `None` when not live.
    fn delete_order(&mut self, scope: DepotScope, id: i64) -> Result<Option<u64>, StoreError>;
    /// One page of live orders matching `filter`, most recently updated first.
    fn list_orders(
        &mut self,
        scope: DepotScope,
        filter: &OrderFilter,
        page: &PageRequest,
    ) -> Result<Page<OrderSummary>, StoreError>;
    /// Links two orders as one exchange pair under `reference` (a new internal exchange id).
    fn link_exchange(
        &mut self,
        scope: DepotScope,
        orders: [i64; 2],
        reference: &str,
    ) -> Result<(), StoreError>;
    /// The other order of this order's exchange pair (live or deleted).
    fn exchange_partner(&mut self, scope: DepotScope, id: i64) -> Result<Option<i64>, StoreError>;
    /// The order's attachments, by id.
    fn list_attachments(
        &mut self,
        scope: DepotScope,
        order_id: i64,
    ) -> Result<Vec<Attachment>, StoreError>;
    /// Stores an attachment durably.
    fn insert_attachment(
        &mut self,
        scope: DepotScope,
        attachment: &NewAttachment<'_>,
        now: Timestamp,
    ) -> Result<Attachment, StoreError>;
    /// Removes a custom order status of the organisation; false when it was not there.
    fn delete_custom_order_status(
        &mut self,
        organisation_id: i64,
        status: &str,
    ) -> Result<bool, StoreError>;
}

/// [`OrderRepo::insert_orders_where_new`] by asking which numbers are held, then inserting the
/// others: right where writers of the depot's orders run one at a time, or where
/// [`OrderRepo::stored_order_numbers`] locks what it finds and a concurrent insert of a number
/// fails the transaction.
pub fn insert_orders_not_held<R: OrderRepo + ?Sized>(
    repo: &mut R,
    scope: DepotScope,
    orders: &[Order],
) -> Result<Vec<Option<i64>>, StoreError> {
    let numbers: Vec<&str> = orders.iter().map(|o| o.order_number.as_str()).collect();
    let held = repo.stored_order_numbers(scope, &numbers)?;
    let new: Vec<Order> = orders
        .iter()
        .filter(|o| !held.contains(&o.order_number))
        .cloned()
        .collect();
    let mut ids = repo.insert_orders(scope, &new)?.into_iter();
    Ok(orders
        .iter()
        .map(|o| match held.contains(&o.order_number) {
            true => None,
            false => ids.next(),
        })
        .collect())
}
