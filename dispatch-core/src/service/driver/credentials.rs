//! Driver credentials: created and revoked by the depot for one of its vehicles. The clear
//! credential is made by the caller (the HTTP adapter draws it from the OS random source) and
//! only its digest reaches the store.

use crate::error::{IssueCode, ValidationErrors, ValidationIssue};
use crate::model::driver::DriverCredential;
use crate::model::organisation::DepotScope;
use crate::ports::store::{Store, StoreTx};
use crate::service::ServiceError;
use crate::time::Timestamp;

/// The label of a credential created without a name.
pub const DEFAULT_NAME: &str = "driver";

/// The longest label.
pub const MAX_NAME_CHARS: usize = 100;

fn check_name(name: &str) -> Result<(), ServiceError> {
    let chars = name.chars().count();
    let (code, expected) = match chars {
        0 => (IssueCode::TooSmall, "at least 1 character"),
        n if n > MAX_NAME_CHARS => (IssueCode::TooBig, "at most 100 characters"),
        _ => return Ok(()),
    };
    Err(ValidationErrors(vec![ValidationIssue::new(
        code,
        vec!["name".into()],
        expected,
        format!("{chars} characters"),
        format!("name must have 1 to {MAX_NAME_CHARS} characters"),
    )])
    .into())
}

fn vehicle_of_depot(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    vehicle_id: i64,
) -> Result<(), ServiceError> {
    match tx.get_vehicle(scope, vehicle_id)? {
        Some(_) => Ok(()),
        // As the vehicle endpoints answer an unknown vehicle (spec: 400 INVALID_INPUT).
        None => Err(ServiceError::invalid(
            vec!["id".into()],
            "the id of a vehicle of the depot",
            &vehicle_id.to_string(),
            &format!("vehicle {vehicle_id} does not exist in this depot"),
        )),
    }
}

/// Stores a credential (its digest `key_hash`) for a vehicle of the depot.
pub fn create(
    store: &dyn Store,
    scope: DepotScope,
    vehicle_id: i64,
    name: Option<&str>,
    key_hash: [u8; 32],
    now: Timestamp,
) -> Result<DriverCredential, ServiceError> {
    let name = name.unwrap_or(DEFAULT_NAME);
    check_name(name)?;
    store.transaction_in(scope, |tx| {
        vehicle_of_depot(tx, scope, vehicle_id)?;
        Ok(tx.insert_driver_credential(scope, vehicle_id, name, key_hash, now)?)
    })
}

/// The vehicle's credentials, revoked ones included.
pub fn list(
    store: &dyn Store,
    scope: DepotScope,
    vehicle_id: i64,
) -> Result<Vec<DriverCredential>, ServiceError> {
    store.read(|tx| {
        vehicle_of_depot(tx, scope, vehicle_id)?;
        Ok(tx.list_driver_credentials(scope, vehicle_id)?)
    })
}

/// Revokes a credential of the vehicle; from then on it is refused. Revoking twice keeps the
/// first revocation time. An unknown credential is 404 RESOURCE_NOT_FOUND.
pub fn revoke(
    store: &dyn Store,
    scope: DepotScope,
    vehicle_id: i64,
    id: i64,
    now: Timestamp,
) -> Result<DriverCredential, ServiceError> {
    store.transaction_in(scope, |tx| {
        vehicle_of_depot(tx, scope, vehicle_id)?;
        tx.revoke_driver_credential(scope, vehicle_id, id, now)?
            .ok_or(ServiceError::NotFound("driver credential"))
    })
}
