//! What an order write refers to outside the order: its customer (found by id or account, or
//! created), its vehicle assignment and its third party.

use super::ServiceError;
use crate::model::customer::{Customer, MAX_CUSTOMERS_PER_DEPOT};
use crate::model::location::Coordinates;
use crate::model::order::{Endpoint, Side};
use crate::model::order_input::{OrderChanges, OrderCustomerInput};
use crate::model::organisation::DepotScope;
use crate::ports::store::StoreTx;
use crate::time::Timestamp;

/// Resolves the order's customer by exactly one of id or account. With both, a differing
/// account is written to the customer. An unknown account creates the customer from the
/// sent customer fields, falling back to the order's delivery (or pickup) location.
pub(super) fn resolve_customer(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    c: &OrderCustomerInput,
    changes: &OrderChanges,
    geocoded: Option<Coordinates>,
    now: Timestamp,
) -> Result<i64, ServiceError> {
    if let Some(id) = c.id {
        let mut customer = tx.get_customer(scope, id)?.ok_or_else(|| {
            ServiceError::invalid(
                vec!["customer".into(), "id".into()],
                "the id of a customer of the depot",
                &id.to_string(),
                &format!("customer {id} does not exist in this depot"),
            )
        })?;
        if let Some(account) = c.account.as_ref().filter(|a| **a != customer.account) {
            if tx.find_customer_by_account(scope, account)?.is_some() {
                return Err(ServiceError::invalid(
                    vec!["customer".into(), "account".into()],
                    "an account not used by another customer",
                    account,
                    &format!("account `{account}` belongs to another customer"),
                ));
            }
            customer.account = account.clone();
            customer.updated = now;
            tx.update_customer(scope, &customer)?;
        }
        return Ok(id);
    }
    let account = c.account.clone().unwrap_or_default();
    if let Some(found) = tx.find_customer_by_account(scope, &account)? {
        return Ok(found.id);
    }
    if tx.count_customers(scope)? >= MAX_CUSTOMERS_PER_DEPOT {
        return Err(ServiceError::invalid(
            vec!["customer".into()],
            "at most 300000 customers per depot",
            "one customer more",
            "the depot already holds its limit of 300000 customers",
        ));
    }
    let mut end = Endpoint::default();
    let fallback = match new_customer_source(c, changes) {
        None => &changes.delivery,
        Some(Side::Delivery) => &changes.delivery,
        Some(Side::Pickup) => &changes.pickup,
    };
    fallback.apply_to(&mut end);
    let (address, postcode, mut lat, mut lng) = match new_customer_source(c, changes) {
        None => (c.address.clone(), c.postcode.clone(), c.lat, c.lng),
        Some(_) => (end.address, end.postcode, end.lat, end.lng),
    };
    // An address without coordinates is geocoded, as for any customer; a failure saves the
    // customer without coordinates.
    if let (None, None, Some(found)) = (lat, lng, geocoded) {
        lat = Some(found.lat);
        lng = Some(found.lng);
    }
    if address.is_none() && (lat.is_none() || lng.is_none()) {
        return Err(ServiceError::invalid(
            vec!["customer".into()],
            "a new customer with an address or both lat and lng",
            &account,
            "a new customer needs an address or both coordinates (from the customer or the order)",
        ));
    }
    let customer = Customer {
        name: c.name.clone(),
        address,
        postcode,
        phone: c.phone.clone(),
        email: c.email.clone(),
        lat,
        lng,
        ..Customer::new(account, now)
    };
    Ok(tx.insert_customer(scope, &customer)?)
}

/// Where a customer created by an order takes its location from: `None` for the customer's own
/// fields (an address or both coordinates were sent with it), else the order's end (delivery
/// when it has location data, otherwise pickup).
pub(super) fn new_customer_source(c: &OrderCustomerInput, changes: &OrderChanges) -> Option<Side> {
    if c.address.is_some() || (c.lat.is_some() && c.lng.is_some()) {
        None
    } else if changes.delivery.fields.address.is_some() || changes.delivery.fields.lat.is_some() {
        Some(Side::Delivery)
    } else {
        Some(Side::Pickup)
    }
}

/// A vehicle assignment and a third party must name records that exist.
pub(super) fn check_references(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    changes: &OrderChanges,
) -> Result<(), ServiceError> {
    References::of(changes).check(tx, scope)
}

/// What an order write names outside the depot's orders that must exist when it commits: its
/// vehicle and its third party. Owned, so a write may check them on another thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct References {
    vehicle: Option<i64>,
    third_party: Option<i64>,
}

impl References {
    /// What `changes` names.
    pub(super) fn of(changes: &OrderChanges) -> References {
        References {
            vehicle: changes.vehicle_id.flatten(),
            third_party: changes.third_party_id.flatten(),
        }
    }

    /// Whether it names nothing to check.
    pub(super) fn is_empty(&self) -> bool {
        self.vehicle.is_none() && self.third_party.is_none()
    }

    /// Checks that the vehicle is the depot's and the third party the organisation's.
    pub(super) fn check(
        &self,
        tx: &mut dyn StoreTx,
        scope: DepotScope,
    ) -> Result<(), ServiceError> {
        if let Some(vehicle) = self.vehicle {
            if tx.get_vehicle(scope, vehicle)?.is_none() {
                return Err(ServiceError::invalid(
                    vec!["vehicle_assignment".into(), "vehicle_id".into()],
                    "the id of a vehicle of the depot",
                    &vehicle.to_string(),
                    &format!("vehicle {vehicle} does not exist in this depot"),
                ));
            }
        }
        if let Some(party) = self.third_party {
            if !tx
                .list_third_parties(scope.organisation_id)?
                .iter()
                .any(|t| t.id == party)
            {
                return Err(ServiceError::invalid(
                    vec!["third_party".into(), "id".into()],
                    "the id of a third party of the organisation",
                    &party.to_string(),
                    &format!("third party {party} does not exist"),
                ));
            }
        }
        Ok(())
    }
}
