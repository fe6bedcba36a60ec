//! ETAs of the stops still ahead on a started route, and the on-delivery moment.
//!
//! From the latest reported position, the stops without an outcome are driven in their route
//! order on the travel matrix the planning uses (the service's `TravelMatrix`). An ETA is the
//! re-estimated *service start* the customer is promised ([`crate::service::promise`]): the
//! arrival (the position's time plus the drive), or the opening of the stop's time window
//! when the driver would get there before it, as planning waits. Each later stop adds the
//! previous stop's planned service (its planned departure minus its planned service start) and
//! the drive on. A stop the driver has arrived at starts service at its arrival (or its window's
//! opening) and the drive on starts when that service would end. A break the plan takes between
//! two stops is taken between them here too, for its planned length, from its planned start or
//! when the driver is free if later; a driver already free at its planned start (the estimate
//! starts between stops) is taken to have begun it then, so a break under way is not counted
//! twice.
//!
//! The estimate is computed outside any transaction (the matrix may ask a routing service) and
//! then written in one ([`apply`]), which also fires `orders.on_delivery` once per stop when
//! its ETA comes within the depot's on-delivery window and the stop has contact details, and
//! schedules the depot's on-delivery notification for it. The depot's on-delivery
//! notifications are configured when it names an on-delivery template or window
//! (`settings.notifications`); the window is [`DEFAULT_WINDOW_MINUTES`] when only a template is
//! named. Event formats (docs/api.md): `eta` is `HH:mm` in the depot's time zone,
//! `time_to_arrival` whole minutes from now, rounded up, never negative.

use super::access::owned_route;
use super::visits::stop_visits;
use crate::events::DomainEvent;
use crate::model::driver::Driver;
use crate::model::driver_visit::TrackPoint;
use crate::model::order::Order;
use crate::model::route::Route;
use crate::optimise::visit_windows;
use crate::ports::matrix::{MatrixError, Point, TravelMatrix};
use crate::ports::store::{Store, StoreTx};
use crate::service::notifications;
use crate::service::ServiceError;
use crate::time::zone::DepotZone;
use crate::time::Timestamp;

/// The on-delivery window when the depot names an on-delivery template but no window.
pub const DEFAULT_WINDOW_MINUTES: u32 = 30;
/// A stored ETA is rewritten when a new estimate differs from it by at least this much (reads
/// show ETAs to the minute).
pub const ETA_REWRITE_MS: i64 = 30_000;

/// A stop still ahead.
#[derive(Debug, Clone, PartialEq)]
pub struct Ahead {
    /// The stop.
    pub stop_id: i64,
    /// Where it is.
    pub point: Point,
    /// Its planned service (without waiting), seconds.
    pub service_s: i64,
    /// When the driver arrived, if already there.
    pub arrived: Option<Timestamp>,
    /// Per order served there: the windows its service must start in (empty: any time).
    pub windows: Vec<Vec<(Timestamp, Timestamp)>>,
    /// The driver's break the plan takes before driving to this stop (after the one before).
    pub pause_before: Option<Pause>,
}

/// A planned break on the way to a stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pause {
    /// Where the plan starts it.
    pub planned_start: Timestamp,
    /// How long it lasts, seconds.
    pub length_s: i64,
}

/// When service can start for a driver there at `arrival`: for each order, the arrival or the
/// opening of the first window not yet closed (the arrival when every window has closed: the
/// visit is late); the latest of them.
pub fn service_start(arrival: Timestamp, windows: &[Vec<(Timestamp, Timestamp)>]) -> Timestamp {
    windows
        .iter()
        .filter_map(|w| {
            w.iter()
                .find(|(_, to)| *to >= arrival)
                .map(|(from, _)| *from)
        })
        .fold(arrival, Timestamp::max)
}

/// What an estimate starts from.
#[derive(Debug, Clone, PartialEq)]
pub struct EtaInput {
    /// The latest reported position.
    pub from: TrackPoint,
    /// The stops without an outcome, in route order.
    pub ahead: Vec<Ahead>,
}

/// The input of an estimate for a started, uncompleted route with a reported position;
/// `None` otherwise (nothing to estimate).
pub fn input(
    store: &dyn Store,
    driver: &Driver,
    route_id: i64,
) -> Result<Option<EtaInput>, ServiceError> {
    store.read(|tx| {
        let route = owned_route(tx, driver, route_id)?;
        if route.started_ts.is_none() || route.completed_ts.is_some() {
            return Ok(None);
        }
        let Some(from) = tx.track(driver.scope, route_id)?.last().copied() else {
            return Ok(None);
        };
        let visits = tx.driver_visits(driver.scope, route_id)?;
        let zone = DepotZone::named(
            &tx.get_depot(driver.scope)?
                .map(|d| d.settings.timezone)
                .unwrap_or_default(),
        );
        let midnight = zone.midnight(route.date);
        let at = |s: i64| midnight.add_millis(s * 1000);
        let mut ahead = Vec::new();
        let mut since = Timestamp::from_millis(i64::MIN / 2);
        for stop in tx.list_stops(driver.scope, route_id)? {
            let (date, start_s) = stop.visit.service_start();
            let planned = zone.midnight(date).add_millis(start_s * 1000);
            let pause_before = pause_between(&route, at, since, planned);
            since = planned;
            let mine: Vec<_> = visits
                .iter()
                .filter(|v| stop.visit.order_ids.contains(&v.order_id))
                .collect();
            if mine.iter().any(|v| v.outcome.is_some()) {
                continue;
            }
            let (Some(lat), Some(lng)) = (stop.visit.lat, stop.visit.lng) else {
                continue;
            };
            let mut windows = Vec::new();
            for id in &stop.visit.order_ids {
                let Some(order) = tx.get_order(driver.scope, *id)? else {
                    continue;
                };
                let customer = match order.customer_id {
                    Some(c) => tx.get_customer(driver.scope, c)?,
                    None => None,
                };
                let open = visit_windows(&order, customer.as_ref(), stop.visit.side);
                windows.push(open.iter().map(|w| (at(w.start), at(w.end))).collect());
            }
            ahead.push(Ahead {
                stop_id: stop.id,
                point: Point::new(lng, lat),
                service_s: stop.visit.planned_work_s(),
                arrived: mine.iter().find_map(|v| v.arrived),
                windows,
                pause_before,
            });
        }
        Ok(Some(EtaInput { from, ahead }))
    })
}

/// The route's planned breaks that start from `since` to before `until`, as one pause.
fn pause_between(
    route: &Route,
    at: impl Fn(i64) -> Timestamp,
    since: Timestamp,
    until: Timestamp,
) -> Option<Pause> {
    let inside: Vec<_> = route
        .timing
        .breaks
        .iter()
        .filter(|b| (since..until).contains(&at(b.start_s)))
        .collect();
    Some(Pause {
        planned_start: at(inside.first()?.start_s),
        length_s: inside.iter().map(|b| (b.end_s - b.start_s).max(0)).sum(),
    })
}

/// The estimate of one stop ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StopEstimate {
    /// The stop.
    pub stop_id: i64,
    /// When the driver gets there.
    pub arrival: Timestamp,
    /// When service starts there (the arrival, or its window's opening): the promise.
    pub start: Timestamp,
}

/// The estimate of each stop ahead that the driver has not reached yet.
pub fn estimate(
    input: &EtaInput,
    matrix: &dyn TravelMatrix,
) -> Result<Vec<StopEstimate>, MatrixError> {
    let mut points = vec![Point::new(input.from.at.lng, input.from.at.lat)];
    points.extend(input.ahead.iter().map(|a| a.point));
    let m = matrix.matrix(&points)?;
    let mut clock = input.from.time;
    // Whether `clock` is still the position's time (the driver between stops now) rather than
    // a projected end of service.
    let mut now = true;
    let mut etas = Vec::new();
    for (i, stop) in input.ahead.iter().enumerate() {
        match stop.arrived {
            Some(arrived) => {
                let start = service_start(arrived, &stop.windows);
                clock = clock.max(start.add_millis(stop.service_s * 1000));
                now = false;
            }
            None => {
                if let Some(pause) = stop.pause_before {
                    let begin = if now {
                        pause.planned_start
                    } else {
                        clock.max(pause.planned_start)
                    };
                    clock = clock.max(begin.add_millis(pause.length_s * 1000));
                }
                now = false;
                let arrival = clock.add_millis(m.duration(i, i + 1) * 1000);
                let start = service_start(arrival, &stop.windows);
                etas.push(StopEstimate {
                    stop_id: stop.stop_id,
                    arrival,
                    start,
                });
                clock = start.add_millis(stop.service_s * 1000);
            }
        }
    }
    Ok(etas)
}

/// Whether anyone can be told the stop is near: a delivery contact, a customer or an e-mail.
fn has_contact(tx: &mut dyn StoreTx, driver: &Driver, order: &Order) -> Result<bool, ServiceError> {
    let present = |v: &Option<String>| v.as_deref().is_some_and(|s| !s.trim().is_empty());
    if present(&order.delivery.contact_number)
        || present(&order.delivery.contact_email)
        || !order.emails.is_empty()
    {
        return Ok(true);
    }
    let customer = match order.customer_id {
        Some(id) => tx.get_customer(driver.scope, id)?,
        None => None,
    };
    Ok(customer.is_some_and(|c| present(&c.phone) || present(&c.email)))
}

/// One `orders.on_delivery` that fired.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OnDelivery {
    /// The stop.
    pub stop_id: i64,
    /// The event.
    pub event: DomainEvent,
}

/// Writes the estimate: each stop's estimated arrival and service start, and the on-delivery
/// event and notification of the stops whose service start came within the window (their `eta`
/// and `time_to_arrival` count to it). Stops that changed or finished meanwhile are left alone.
pub fn apply(
    store: &dyn Store,
    driver: &Driver,
    route_id: i64,
    etas: &[StopEstimate],
    now: Timestamp,
) -> Result<Vec<OnDelivery>, ServiceError> {
    store.transaction_in(driver.scope, |tx| {
        let route: Route = owned_route(tx, driver, route_id)?;
        if route.completed_ts.is_some() {
            return Ok(Vec::new());
        }
        let settings = tx.notification_settings(driver.scope)?;
        let window = match (
            settings.on_delivery_template,
            settings.on_delivery_window_minutes,
        ) {
            (_, Some(minutes)) => Some(minutes),
            (Some(_), None) => Some(DEFAULT_WINDOW_MINUTES),
            (None, None) => None,
        };
        let zone = DepotZone::named(
            &tx.get_depot(driver.scope)?
                .map(|d| d.settings.timezone)
                .unwrap_or_default(),
        );
        let stops = tx.list_stops(driver.scope, route_id)?;
        let visits = tx.driver_visits(driver.scope, route_id)?;
        let mut fired = Vec::new();
        for estimate in etas {
            let (stop_id, eta) = (&estimate.stop_id, &estimate.start);
            let Some(stop) = stops.iter().find(|s| s.id == *stop_id) else {
                continue;
            };
            let mut mine = stop_visits(&visits, route_id, stop);
            if mine.iter().any(|v| v.outcome.is_some()) {
                continue;
            }
            let mut fired_here = false;
            let due = window.is_some_and(|w| eta.millis() - now.millis() <= i64::from(w) * 60_000);
            let already = mine.iter().any(|v| v.on_delivery.is_some());
            if due && !already {
                if let Some(order) = match stop.visit.order_ids.first() {
                    Some(id) => tx.get_order(driver.scope, *id)?,
                    None => None,
                } {
                    if has_contact(tx, driver, &order)? {
                        let event = DomainEvent::OrderOnDelivery {
                            order_id: order.id,
                            order_number: order.order_number.clone(),
                            route_id,
                            eta: zone.clock(*eta),
                            time_to_arrival: minutes_until(now, *eta),
                        };
                        tx.append_event(driver.scope, &event, now)?;
                        for id in &stop.visit.order_ids {
                            notifications::on_delivery(
                                tx,
                                driver.scope,
                                *id,
                                &zone.clock(*eta),
                                now,
                            )?;
                        }
                        for v in &mut mine {
                            v.on_delivery = Some(now);
                        }
                        fired_here = true;
                        fired.push(OnDelivery {
                            stop_id: *stop_id,
                            event,
                        });
                    }
                }
            }
            for v in &mut mine {
                if fired_here || eta_moved(v.start_eta, *eta) || eta_moved(v.eta, estimate.arrival)
                {
                    v.eta = Some(estimate.arrival);
                    v.start_eta = Some(*eta);
                    tx.put_driver_visit(driver.scope, v, now)?;
                }
            }
        }
        Ok(fired)
    })
}

/// Whether a stored ETA is worth rewriting: there is none yet, or the new estimate moved by at
/// least [`ETA_REWRITE_MS`]. A driver on schedule reports positions every few seconds and each
/// estimate lands within seconds of the last; rewriting every stop ahead on every report was
/// most of a report's writes.
fn eta_moved(stored: Option<Timestamp>, estimate: Timestamp) -> bool {
    stored.is_none_or(|s| (s.millis() - estimate.millis()).abs() >= ETA_REWRITE_MS)
}

/// Whole minutes from `now` to `eta`, rounded up, never negative.
pub fn minutes_until(now: Timestamp, eta: Timestamp) -> i64 {
    let ms = (eta.millis() - now.millis()).max(0);
    (ms + 59_999) / 60_000
}

#[cfg(test)]
#[path = "eta_tests.rs"]
mod tests;
