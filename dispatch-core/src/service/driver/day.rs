//! The driver's reads: one route dispatched to its vehicle, and the vehicle's day.

use super::access::{owned_route, owned_stop};
use crate::model::driver::Driver;
use crate::model::order_fields::Catalog;
use crate::model::route::Route;
use crate::ports::store::Store;
use crate::service::customers::catalog;
use crate::service::plan_reads::{route_view, stop_view, OrderCache, RouteView, StopView};
use crate::service::stop_records::{RouteDriverRecords, RouteProof};
use crate::service::ServiceError;
use crate::time::zone::DepotZone;
use crate::time::{Date, Timestamp};

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

/// The vehicle's day.
#[derive(Debug, Clone, PartialEq)]
pub struct DayView {
    /// The date (the depot's today unless asked for another).
    pub date: Date,
    /// The routes dispatched to the vehicle on that date, by id, with stops and orders.
    pub routes: Vec<RouteView>,
    /// Names of the depot's custom fields.
    pub catalog: Catalog,
}

/// The routes dispatched to the driver's vehicle on `date`, or on the depot's today (in its
/// time zone) at `now`.
pub fn day(
    store: &dyn Store,
    driver: &Driver,
    date: Option<Date>,
    now: Timestamp,
) -> Result<DayView, ServiceError> {
    store.read(|tx| {
        let date = match date {
            Some(d) => d,
            None => {
                let zone = tx
                    .get_depot(driver.scope)?
                    .map(|d| d.settings.timezone)
                    .unwrap_or_default();
                DepotZone::named(&zone).date_of(now)
            }
        };
        let mut orders = OrderCache::default();
        let mut routes = Vec::new();
        for route in tx.vehicle_routes_on(driver.scope, driver.vehicle_id, date)? {
            if route.dispatched {
                routes.push(route_view(tx, driver.scope, route, &mut orders)?);
            }
        }
        Ok(DayView {
            date,
            routes,
            catalog: catalog(tx, driver.scope)?,
        })
    })
}

/// One stop of a route dispatched to the driver's vehicle, with its orders and route; 404 for
/// any other stop.
pub fn stop(
    store: &dyn Store,
    driver: &Driver,
    stop_id: i64,
) -> Result<(StopView, Route, Catalog), ServiceError> {
    store.read(|tx| {
        let (route, stop) = owned_stop(tx, driver, stop_id)?;
        let records = RouteDriverRecords::read(tx, driver.scope, route.id)?;
        let proof = RouteProof::read(tx, driver.scope, route.id, std::slice::from_ref(&stop))?;
        let mut orders = OrderCache::default();
        let view = stop_view(tx, driver.scope, stop, &records, &proof, &mut orders)?;
        Ok((view, route, catalog(tx, driver.scope)?))
    })
}
