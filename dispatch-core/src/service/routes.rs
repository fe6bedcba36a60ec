//! Route edits that are not about orders: `PUT /routes/{id}` (the `is_locked` flag, stored and
//! not enforced) and `POST /routes/{id}/reverse`.

use super::plan_reads::{route_view, OrderCache, RouteView};
use super::ServiceError;
use crate::model::organisation::DepotScope;
use crate::ports::store::Store;
use crate::time::Timestamp;

/// `PUT /routes/{id}`: sets `is_locked`; the route's `updated` moves only when the flag changes.
pub fn set_locked(
    store: &dyn Store,
    scope: DepotScope,
    id: i64,
    locked: bool,
    now: Timestamp,
) -> Result<RouteView, ServiceError> {
    store.transaction(|tx| {
        let mut route = tx
            .get_route(scope, id)?
            .ok_or(ServiceError::NotFound("route"))?;
        if route.is_locked != locked {
            route.is_locked = locked;
            route.updated = now;
            tx.update_route(scope, &route)?;
        }
        Ok(route_view(tx, scope, route, &mut OrderCache::default())?)
    })
}
