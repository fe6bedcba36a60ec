//! Orders deleted while they are planned: they leave the routes that are still proposals and
//! get no stop in a solution saved after them. The spec deletes an order's associated records
//! with it, and a stop serving no live order would be an empty `orders: []` visit on every read
//! (and, once dispatched, a visit with nothing to deliver). A dispatched route keeps its stop:
//! the driver at the door still records the visit (`docs/driver-api.md`).

use super::draft::{Edit, RemoveDraft};
use super::{edit_route, plan_remove, EditOutcome, EditSettings, Step};
use crate::model::organisation::DepotScope;
use crate::model::stop::StopVisit;
use crate::ports::matrix::TravelMatrix;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::service::route_day::{write_planned, write_untimed, RouteDay};
use crate::service::ServiceError;
use crate::time::Timestamp;

/// Takes the order `order_id` (about to be deleted) off the stops of every undispatched route
/// serving it (of a plan's current optimisation or an earlier one), as a removal would: a
/// stop left without orders goes, a shared stop is rebuilt for the orders that stay (address
/// and contact of the first). The other stops keep their times: no travel matrix runs inside
/// this transaction; the ids of the routes changed are returned for
/// [`retime_route`] to time once it committed.
pub(crate) fn take_off_routes(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order_id: i64,
    now: Timestamp,
) -> Result<Vec<i64>, StoreError> {
    let mut changed = Vec::new();
    for mut route in tx.routes_of_order(scope, order_id)? {
        if route.dispatched {
            continue;
        }
        changed.push(route.id);
        let mut kept: Vec<StopVisit> = Vec::new();
        for stop in tx.list_stops(scope, route.id)? {
            let mut visit = stop.visit;
            if !visit.order_ids.contains(&order_id) {
                kept.push(visit);
                continue;
            }
            visit.order_ids.retain(|o| *o != order_id);
            let Some(&first) = visit.order_ids.first() else {
                continue;
            };
            if let Some(first) = tx.get_order(scope, first)? {
                visit.show_contact_of(&first);
            }
            kept.push(visit);
        }
        write_untimed(tx, scope, &mut route, &kept, now)?;
    }
    Ok(changed)
}

/// Re-times the undispatched route `route_id` as a removal without `reoptimize` times it (its
/// stops in their order), for an order deleted off it inside a transaction where no travel
/// matrix may run ([`take_off_routes`]). A route that cannot be timed keeps the times it has;
/// one dispatched or deleted meanwhile is left alone.
pub(crate) fn retime_route(
    store: &dyn Store,
    matrix: &dyn TravelMatrix,
    scope: DepotScope,
    route_id: i64,
    now: Timestamp,
) -> Result<(), ServiceError> {
    edit_route(
        store,
        scope,
        |tx| as_is(tx, scope, route_id),
        |d| plan_remove(d, matrix, EditSettings::default()),
        |tx, mut d, planned| {
            if let (Some(route), Some(day)) = (&planned, &d.day) {
                write_planned(tx, scope, &mut d.edit.route, route, &day.orders, now)?;
            }
            Ok(d.out)
        },
    )?;
    Ok(())
}

/// The route `route_id` as it stands, as a removal of nothing.
fn as_is(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    route_id: i64,
) -> Result<Step<RemoveDraft>, ServiceError> {
    let out = EditOutcome::new(route_id);
    let route = match tx.get_route(scope, route_id)? {
        Some(route) if !route.dispatched => route,
        _ => return Ok(Step::Done(out)),
    };
    let stops = tx.list_stops(scope, route_id)?;
    let kept: Vec<StopVisit> = stops.iter().map(|s| s.visit.clone()).collect();
    let ids: Vec<i64> = kept.iter().flat_map(|s| s.order_ids.clone()).collect();
    let day = RouteDay::read(tx, scope, &route, &ids)?;
    Ok(Step::Edit(RemoveDraft {
        edit: Edit::as_is(route, stops),
        out,
        accepted: Vec::new(),
        kept,
        day,
    }))
}
