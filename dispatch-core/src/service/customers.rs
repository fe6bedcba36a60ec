//! Customer use cases: bulk create-or-update by account, partial update, reads.
//!
//! Geocoding happens before the write transaction (a geocoder may be slow or read the store
//! itself); the transaction then uses the results for the customers whose merge asks for it.

use super::ServiceError;
use crate::error::ValidationErrors;
use crate::model::customer::{
    merge_customer, Customer, CustomerWrite, MAX_CUSTOMERS_PER_DEPOT, MAX_CUSTOMERS_PER_REQUEST,
};
use crate::model::customer_validate::{validate_customer, CustomerInput};
use crate::model::location::Coordinates;
use crate::model::order_fields::{custom, Catalog};
use crate::model::organisation::DepotScope;
use crate::paging::{Page, PageRequest};
use crate::ports::geocoder::{GeocodeError, GeocodeQuery, Geocoder};
use crate::ports::idempotency::BeforeCommit;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::service::Found;
use crate::time::Timestamp;

/// One customer written by a bulk write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WrittenCustomer {
    /// Its id.
    pub id: i64,
    /// Its account.
    pub account: String,
    /// Whether its address could not be geocoded (it was saved without coordinates).
    pub geocoding_failed: bool,
}

/// Creates or updates each customer by account, in request order. Any validation failure
/// (including exceeding the depot's 300000 customers) rejects the whole batch. `last` runs in
/// the write transaction with what was written (an idempotent response).
pub fn upsert_batch(
    store: &dyn Store,
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    inputs: Vec<CustomerInput>,
    now: Timestamp,
    last: &dyn BeforeCommit<Vec<WrittenCustomer>>,
) -> Result<Vec<WrittenCustomer>, ServiceError> {
    let mut errs = ValidationErrors::default();
    if inputs.len() > MAX_CUSTOMERS_PER_REQUEST {
        errs.push(custom(
            Vec::new(),
            "at most 100 customers",
            &format!("{} customers", inputs.len()),
            "a request carries at most 100 customers",
        ));
        return Err(errs.into());
    }
    let mut changes = Vec::with_capacity(inputs.len());
    // Each input moves into its changes: the batch is held once.
    for (i, input) in inputs.into_iter().enumerate() {
        match validate_customer(input, CustomerWrite::Upsert) {
            Ok(c) => changes.push(c),
            Err(e) => errs.extend(e.0.into_iter().map(|issue| issue.under(i))),
        }
    }
    errs.into_result()?;
    let located: Vec<Option<Result<Coordinates, GeocodeError>>> = changes
        .iter()
        .map(|c| {
            let address = c.address.clone().flatten()?;
            geocode_unless_located(
                geocoder,
                scope,
                &address,
                c.postcode.clone().flatten(),
                c.lat.flatten(),
                c.lng.flatten(),
            )
        })
        .collect();
    store.transaction_with_in(scope, last, |tx| {
        let catalog = catalog(tx, scope)?;
        let mut count = tx.count_customers(scope)?;
        let mut written = Vec::with_capacity(changes.len());
        for (i, change) in changes.iter().enumerate() {
            let account = change.account.clone().unwrap_or_default();
            let existing = tx.find_customer_by_account(scope, &account)?;
            let merged = merge_customer(
                existing.as_ref(),
                change,
                &catalog,
                CustomerWrite::Upsert,
                now,
            )
            .map_err(|e| under(e, i))?;
            let mut customer = merged.customer;
            let geocoding_failed =
                merged.needs_geocoding && !apply(&mut customer, located[i].as_ref());
            let id = match existing {
                Some(_) => {
                    tx.update_customer(scope, &customer)?;
                    customer.id
                }
                None => {
                    if count >= MAX_CUSTOMERS_PER_DEPOT {
                        return Err(too_many(i).into());
                    }
                    count += 1;
                    tx.insert_customer(scope, &customer)?
                }
            };
            written.push(WrittenCustomer {
                id,
                account,
                geocoding_failed,
            });
        }
        Ok(written)
    })
}

/// The outcome of a customer update.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdatedCustomer {
    /// The customer as stored.
    pub customer: Customer,
    /// Whether the changed address could not be geocoded (saved without coordinates).
    pub geocoding_failed: bool,
}

/// PUT /customers/{id}: only sent fields change; custom fields match by id only; an account
/// of another customer is 400; unknown id 404.
pub fn update(
    store: &dyn Store,
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    id: i64,
    input: CustomerInput,
    now: Timestamp,
) -> Result<UpdatedCustomer, ServiceError> {
    let change = validate_customer(input, CustomerWrite::Update)?;
    let located = change.address.clone().flatten().and_then(|address| {
        geocode_unless_located(
            geocoder,
            scope,
            &address,
            change.postcode.clone().flatten(),
            change.lat.flatten(),
            change.lng.flatten(),
        )
    });
    store.transaction_in(scope, |tx| {
        let existing = tx.get_customer(scope, id).found("customer")?;
        if let Some(account) = &change.account {
            if let Some(other) = tx.find_customer_by_account(scope, account)? {
                if other.id != id {
                    return Err(ServiceError::invalid(
                        vec!["account".into()],
                        "an account not used by another customer",
                        account,
                        &format!("account `{account}` belongs to another customer"),
                    ));
                }
            }
        }
        let catalog = catalog(tx, scope)?;
        let merged = merge_customer(
            Some(&existing),
            &change,
            &catalog,
            CustomerWrite::Update,
            now,
        )?;
        let mut customer = merged.customer;
        let geocoding_failed = merged.needs_geocoding && !apply(&mut customer, located.as_ref());
        tx.update_customer(scope, &customer)?;
        Ok(UpdatedCustomer {
            customer,
            geocoding_failed,
        })
    })
}

/// One customer with its sets; 404 when not in the depot.
pub fn get(store: &dyn Store, scope: DepotScope, id: i64) -> Result<Customer, ServiceError> {
    store.read(|tx| {
        tx.get_customer(scope, id)?
            .ok_or(ServiceError::NotFound("customer"))
    })
}

/// One page of the depot's customers (list-view fields), most recently updated first.
pub fn list(
    store: &dyn Store,
    scope: DepotScope,
    page: &PageRequest,
) -> Result<Page<Customer>, ServiceError> {
    store.read(|tx| Ok(tx.list_customers(scope, page)?))
}

/// The depot's reference data as the customer and order rules need it.
pub fn catalog(tx: &mut dyn StoreTx, scope: DepotScope) -> Result<Catalog, StoreError> {
    tx.reference_catalog(scope)
}

/// Geocodes an address unless both coordinates were sent.
pub(crate) fn geocode_unless_located(
    geocoder: &dyn Geocoder,
    scope: DepotScope,
    address: &str,
    postcode: Option<String>,
    lat: Option<f64>,
    lng: Option<f64>,
) -> Option<Result<Coordinates, GeocodeError>> {
    if lat.is_some() && lng.is_some() {
        return None;
    }
    Some(geocoder.geocode(&GeocodeQuery {
        scope,
        address: Some(address),
        postcode: postcode.as_deref(),
        country: None,
    }))
}

/// Puts geocoded coordinates on the customer; false when there are none.
fn apply(customer: &mut Customer, located: Option<&Result<Coordinates, GeocodeError>>) -> bool {
    match located {
        Some(Ok(c)) => {
            customer.lat = Some(c.lat);
            customer.lng = Some(c.lng);
            true
        }
        _ => false,
    }
}

fn under(e: ValidationErrors, i: usize) -> ServiceError {
    ValidationErrors(e.0.into_iter().map(|issue| issue.under(i)).collect()).into()
}

fn too_many(i: usize) -> ValidationErrors {
    ValidationErrors(vec![custom(
        vec![i.into()],
        "at most 300000 customers per depot",
        "one customer more",
        "the depot already holds its limit of 300000 customers",
    )])
}

#[cfg(test)]
#[path = "customers_tests.rs"]
pub(crate) mod tests;
