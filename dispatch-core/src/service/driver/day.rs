//! The driver's reads: one route dispatched to its vehicle, and the vehicle's day.

use super::access::owned_route;
use crate::model::driver::Driver;
use crate::model::order_fields::Catalog;
use crate::ports::store::Store;
use crate::service::customers::catalog;
use crate::service::plan_reads::{route_view, OrderCache, RouteView};
use crate::service::ServiceError;

/// One route dispatched to the driver's vehicle, with its stops and their orders; 404 for any
/// other route.
pub fn route(
    store: &dyn Store,
    driver: &Driver,
    route_id: i64,
) -> Result<(RouteView, Catalog), ServiceError> {
    store.read(|tx| {
        let route = owned_route(tx, driver, route_id)?;
        let view = route_view(tx, driver.scope, route, &mut OrderCache::default())?;
        Ok((view, catalog(tx, driver.scope)?))
    })
}
