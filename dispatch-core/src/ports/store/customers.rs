//! The customer repository: customers of a depot with their capacities, skills, tags, time
//! windows and custom-field values, stored and read as whole [`Customer`] records.

use super::StoreError;
use crate::model::customer::Customer;
use crate::model::organisation::DepotScope;
use crate::paging::{Page, PageRequest};

/// Customers of a depot.
pub trait CustomerRepo {
    /// How many customers the depot holds.
    fn count_customers(&mut self, scope: DepotScope) -> Result<u64, StoreError>;
    /// The customer with that account (exact match).
    fn find_customer_by_account(
        &mut self,
        scope: DepotScope,
        account: &str,
    ) -> Result<Option<Customer>, StoreError>;
    /// One customer of the depot, with all its sets.
    fn get_customer(&mut self, scope: DepotScope, id: i64) -> Result<Option<Customer>, StoreError>;
    /// Stores a new customer (its `id` is ignored) and returns its id.
    fn insert_customer(
        &mut self,
        scope: DepotScope,
        customer: &Customer,
    ) -> Result<i64, StoreError>;
    /// Overwrites a stored customer, sets included.
    fn update_customer(&mut self, scope: DepotScope, customer: &Customer)
        -> Result<(), StoreError>;
    /// One page of the depot's customers, most recently updated first. Only the list-view
    /// fields are filled; the sets are left empty.
    fn list_customers(
        &mut self,
        scope: DepotScope,
        page: &PageRequest,
    ) -> Result<Page<Customer>, StoreError>;
}
