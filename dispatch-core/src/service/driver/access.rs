//! What a driver may touch: a route dispatched to its vehicle, and that route's stops. The
//! helpers run inside the caller's transaction so the check and the change see the same data.

use crate::model::driver::Driver;
use crate::model::route::Route;
use crate::model::stop::Stop;
use crate::ports::store::StoreTx;
use crate::service::ServiceError;

/// The route `route_id` when it is dispatched to the driver's vehicle; otherwise
/// [`ServiceError::NotFound`], whatever the reason (the driver cannot tell another vehicle's
/// route from a route that does not exist).
pub fn owned_route(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    route_id: i64,
) -> Result<Route, ServiceError> {
    tx.get_route(driver.scope, route_id)?
        .filter(|r| r.dispatched && r.vehicle_id == Some(driver.vehicle_id))
        .ok_or(ServiceError::NotFound("route"))
}

/// The stop `stop_id` with its route when the route is dispatched to the driver's vehicle;
/// otherwise [`ServiceError::NotFound`] as for [`owned_route`].
pub fn owned_stop(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    stop_id: i64,
) -> Result<(Route, Stop), ServiceError> {
    let not_found = || ServiceError::NotFound("stop");
    let route_id = tx
        .route_of_stop(driver.scope, stop_id)?
        .ok_or_else(not_found)?;
    let route = owned_route(tx, driver, route_id).map_err(|_| not_found())?;
    let stop = tx
        .list_stops(driver.scope, route_id)?
        .into_iter()
        .find(|s| s.id == stop_id)
        .ok_or_else(not_found)?;
    Ok((route, stop))
}
