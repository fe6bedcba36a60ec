//! Starting and completing a route.

use super::access::owned_route;
use super::rules::{not_before, state_error, Reported};
use crate::error::{IssueCode, PathSegment, ValidationErrors, ValidationIssue};
use crate::events::DomainEvent;
use crate::model::driver::Driver;
use crate::model::driver_visit::DriverRoute;
use crate::model::route::Route;
use crate::ports::store::{Store, StoreTx};
use crate::service::ServiceError;
use crate::time::zone::DepotZone;
use crate::time::Timestamp;

fn driver_route(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    route_id: i64,
) -> Result<DriverRoute, ServiceError> {
    Ok(tx
        .driver_route(driver.scope, route_id)?
        .unwrap_or(DriverRoute {
            route_id,
            ..DriverRoute::default()
        }))
}

/// Starts a route dispatched to the driver's vehicle: `started_ts` is the reported time. A
/// repeat start changes nothing (a retry after a lost answer is safe); a completed route is
/// refused, and so is a start on another day than the route's (in the depot's time zone): a
/// driver opening tomorrow's route today would put its customers' promises and on-delivery
/// messages a day early.
pub fn start_route(
    store: &dyn Store,
    driver: &Driver,
    route_id: i64,
    reported: Reported,
    now: Timestamp,
) -> Result<Route, ServiceError> {
    let time = reported.checked(now)?;
    store.transaction_in(driver.scope, |tx| {
        let mut route = owned_route(tx, driver, route_id)?;
        if route.completed_ts.is_some() {
            return Err(state_error("completed", "the route is already completed"));
        }
        if route.started_ts.is_some() {
            return Ok(route);
        }
        let zone = DepotZone::named(
            &tx.get_depot(driver.scope)?
                .map(|d| d.settings.timezone)
                .unwrap_or_default(),
        );
        let day = zone.date_of(time);
        if day != route.date {
            let path: Vec<PathSegment> = match reported.time {
                Some(_) => vec!["time".into()],
                None => Vec::new(),
            };
            return Err(ValidationErrors(vec![ValidationIssue::new(
                IssueCode::Custom,
                path,
                format!("a start on the route's day, {}", route.date),
                day.to_string(),
                format!(
                    "route {} is for {}; it can be started on that day only (depot time zone), \
                     not on {day}",
                    route.id, route.date
                ),
            )])
            .into());
        }
        route.started_ts = Some(time);
        route.updated = now;
        tx.update_route(driver.scope, &route)?;
        let mut side = driver_route(tx, driver, route_id)?;
        side.started_at = reported.at;
        tx.put_driver_route(driver.scope, &side)?;
        Ok(route)
    })
}

/// Links the route's ROUTE_VEHICLE_CHECKIN questionnaire submission (made by the
/// questionnaire use case, in its transaction) to the route's start; the latest link wins.
pub fn link_checkin(
    tx: &mut dyn StoreTx,
    driver: &Driver,
    route_id: i64,
    submission_id: i64,
) -> Result<(), ServiceError> {
    owned_route(tx, driver, route_id)?;
    let mut side = driver_route(tx, driver, route_id)?;
    side.checkin_submission_id = Some(submission_id);
    tx.put_driver_route(driver.scope, &side)?;
    Ok(())
}

/// Completes a started route: `completed_ts` is the reported time and `routes.completed`
/// fires in the same transaction. Stops still without an outcome keep their orders' statuses.
/// A repeat completion changes nothing and fires nothing.
pub fn complete_route(
    store: &dyn Store,
    driver: &Driver,
    route_id: i64,
    reported: Reported,
    now: Timestamp,
) -> Result<Route, ServiceError> {
    let time = reported.checked(now)?;
    store.transaction_in(driver.scope, |tx| {
        let mut route = owned_route(tx, driver, route_id)?;
        if route.completed_ts.is_some() {
            return Ok(route);
        }
        let Some(started) = route.started_ts else {
            return Err(state_error(
                "not started",
                "start the route first (POST /driver/routes/{id}/start)",
            ));
        };
        route.completed_ts = Some(not_before(
            &reported,
            time,
            Some((started, "the route's start")),
        )?);
        route.updated = now;
        tx.update_route(driver.scope, &route)?;
        let mut side = driver_route(tx, driver, route_id)?;
        side.completed_at = reported.at;
        tx.put_driver_route(driver.scope, &side)?;
        tx.append_event(
            driver.scope,
            &DomainEvent::RouteCompleted { id: route.id },
            now,
        )?;
        Ok(route)
    })
}
