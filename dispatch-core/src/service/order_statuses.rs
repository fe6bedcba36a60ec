//! Order statuses of an organisation: list, add a custom one, remove a custom one.

use super::ServiceError;
use crate::error::{IssueCode, ValidationErrors, ValidationIssue};
use crate::model::organisation::DepotScope;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::status::{StatusEntry, StatusRejection, StatusSet};
use crate::time::Timestamp;

/// The default and custom statuses (derived aggregates excluded).
pub fn list(store: &dyn Store, organisation_id: i64) -> Result<Vec<StatusEntry>, ServiceError> {
    store.read(|tx| Ok(StatusSet::new(tx.list_custom_order_statuses(organisation_id)?).entries()))
}

/// Adds a custom status exactly as sent; a default or existing name is 400.
pub fn add(
    store: &dyn Store,
    organisation_id: i64,
    status: &str,
    now: Timestamp,
) -> Result<String, ServiceError> {
    store.transaction(|tx| {
        let set = StatusSet::new(tx.list_custom_order_statuses(organisation_id)?);
        let name = set
            .check_new_custom(status)
            .map_err(|r| rejection(r, status))?;
        if !tx.insert_custom_order_status(organisation_id, &name, now)? {
            return Err(rejection(StatusRejection::AlreadyExists(name), status));
        }
        Ok(name)
    })
}

/// Removes a custom status (orders carrying it keep it); a default is 400, a name never
/// added 404.
pub fn remove(store: &dyn Store, organisation_id: i64, status: &str) -> Result<(), ServiceError> {
    store.transaction(|tx| {
        let set = StatusSet::new(tx.list_custom_order_statuses(organisation_id)?);
        set.check_removal(status)
            .map_err(|r| rejection(r, status))?;
        tx.delete_custom_order_status(organisation_id, status)?;
        Ok(())
    })
}

/// The refusal in the envelope, with the status as sent as the issue's `received`.
fn rejection(r: StatusRejection, status: &str) -> ServiceError {
    if let StatusRejection::NotFound(_) = r {
        return ServiceError::NotFound("order status");
    }
    let code = match r {
        StatusRejection::InvalidLength => IssueCode::TooBig,
        _ => IssueCode::Custom,
    };
    ServiceError::Invalid(ValidationErrors(vec![ValidationIssue::new(
        code,
        vec!["status".into()],
        "a new custom status of 1 to 255 characters",
        status,
        r.to_string(),
    )]))
}

/// The organisation's statuses, read in the caller's transaction.
pub fn statuses(tx: &mut dyn StoreTx, scope: DepotScope) -> Result<StatusSet, StoreError> {
    Ok(StatusSet::new(
        tx.list_custom_order_statuses(scope.organisation_id)?,
    ))
}
