//! Vehicle use cases: create, update, delete, read.

use super::ServiceError;
use crate::model::organisation::DepotScope;
use crate::model::vehicle::{
    apply_patch, Vehicle, VehicleFields, VehiclePatch, MAX_VEHICLES_PER_ORGANISATION,
};
use crate::ports::idempotency::BeforeCommit;
use crate::ports::store::{Store, StoreTx};
use crate::time::Timestamp;

/// Creates a vehicle: validates the write, enforces the organisation's vehicle limit, creates
/// unknown skills by exact name and drops capacities whose id is not a capacity type of the depot.
/// `last` runs in the write transaction with the created vehicle (an idempotent response).
pub fn create(
    store: &dyn Store,
    scope: DepotScope,
    patch: &VehiclePatch,
    now: Timestamp,
    last: &dyn BeforeCommit<Vehicle>,
) -> Result<Vehicle, ServiceError> {
    let fields = apply_patch(patch, None)?;
    // A write of the whole store: the limit counts the vehicles of every depot of the
    // organisation, which other depots' writers could add to meanwhile.
    store.transaction_with(last, |tx| {
        let count = tx.count_vehicles_in_organisation(scope.organisation_id)?;
        if count >= MAX_VEHICLES_PER_ORGANISATION {
            return Err(ServiceError::invalid(
                vec![],
                &format!("at most {MAX_VEHICLES_PER_ORGANISATION} vehicles per organisation"),
                &format!("{count} vehicles already"),
                &format!("the organisation already holds its limit of {MAX_VEHICLES_PER_ORGANISATION} vehicles"),
            ));
        }
        let fields = resolve_references(tx, scope, fields, now)?;
        let id = tx.insert_vehicle(scope, &fields, now)?;
        tx.get_vehicle(scope, id)?.ok_or(ServiceError::NotFound("vehicle"))
    })
}

/// Partially updates a vehicle: sent fields are validated over the stored ones; sent skills and
/// capacities replace the sets. An id not in the depot is 400 INVALID_INPUT, as the spec says.
pub fn update(
    store: &dyn Store,
    scope: DepotScope,
    id: i64,
    patch: &VehiclePatch,
    now: Timestamp,
) -> Result<Vehicle, ServiceError> {
    store.transaction_in(scope, |tx| {
        let current = tx.get_vehicle(scope, id)?.ok_or_else(|| unknown(id))?;
        let fields = apply_patch(patch, Some(&current.fields))?;
        let fields = resolve_references(tx, scope, fields, now)?;
        tx.update_vehicle(scope, id, &fields, now)?;
        tx.get_vehicle(scope, id)?.ok_or_else(|| unknown(id))
    })
}

/// Deletes a vehicle with its skills, capacities and assignments.
pub fn delete(store: &dyn Store, scope: DepotScope, id: i64) -> Result<(), ServiceError> {
    store.transaction_in(scope, |tx| {
        if tx.delete_vehicle(scope, id)? {
            Ok(())
        } else {
            Err(unknown(id))
        }
    })
}

/// One vehicle of the depot; an unknown id is 400 INVALID_INPUT.
pub fn get(store: &dyn Store, scope: DepotScope, id: i64) -> Result<Vehicle, ServiceError> {
    store.read(|tx| tx.get_vehicle(scope, id)?.ok_or_else(|| unknown(id)))
}

/// Every vehicle of the depot, inactive included.
pub fn list(store: &dyn Store, scope: DepotScope) -> Result<Vec<Vehicle>, ServiceError> {
    store.read(|tx| Ok(tx.list_vehicles(scope)?))
}

fn unknown(id: i64) -> ServiceError {
    ServiceError::invalid(
        vec!["id".into()],
        "the id of a vehicle of the depot",
        &id.to_string(),
        &format!("vehicle {id} does not exist in this depot"),
    )
}

fn resolve_references(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    mut fields: VehicleFields,
    now: Timestamp,
) -> Result<VehicleFields, ServiceError> {
    for name in &fields.skills {
        tx.upsert_skill(scope, name, now)?;
    }
    let known: Vec<i64> = tx
        .list_capacity_types(scope)?
        .iter()
        .map(|c| c.id)
        .collect();
    fields.capacities.retain(|c| known.contains(&c.id));
    Ok(fields)
}

#[cfg(test)]
mod tests;
