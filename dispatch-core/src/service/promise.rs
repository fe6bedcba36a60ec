//! The customer promise of a dispatched order: when its service starts.
//!
//! Every customer-facing time — the tracking page, the `{eta}` of planned-start and on-delivery
//! notifications, `orders.on_delivery`'s `eta` and `time_to_arrival` — counts to the visit's
//! *service start*, never to an early arrival: a van that arrives at 13:31 for a 14:30-15:00
//! window serves at 14:30, and that is what the customer is told. Before the driver reports
//! positions it is the planned service start (arrival plus planned wait); afterwards it is the
//! re-estimated one kept by the driver's position reports ([`super::driver::eta`]). A stop's
//! `estimated_arrival_time` stays the planned arrival.
//!
//! A re-estimate later than the plan by [`LATE_NOTICE_S`] or more is a late-running route: the
//! promise moves with it and says so ([`Promise::running_late`]).

use crate::model::organisation::DepotScope;
use crate::model::route::Route;
use crate::model::stop::Stop;
use crate::ports::store::{StoreError, StoreTx};
use crate::time::zone::DepotZone;
use crate::time::{Date, Timestamp};

/// A re-estimate this much later than the planned service start makes the route late.
pub const LATE_NOTICE_S: i64 = 5 * 60;

/// When the customer's visit is expected to start, in the depot's local time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Promise {
    /// The day of the expected service start.
    pub date: Date,
    /// The expected service start, seconds after midnight of `date`.
    pub start_s: i64,
    /// The expected service start as an instant.
    pub start: Timestamp,
    /// How much later than planned the expected start is (0 or negative when on time).
    pub late_by_s: i64,
}

impl Promise {
    /// The expected service start, `HH:mm` (the `{eta}` placeholder).
    pub fn eta_text(&self) -> String {
        let m = self.start_s.rem_euclid(86_400) / 60;
        format!("{:02}:{:02}", m / 60, m % 60)
    }

    /// Whether the route runs late enough that the customer is told the time moved.
    pub fn running_late(&self) -> bool {
        self.late_by_s >= LATE_NOTICE_S
    }
}

/// The visit that counts for an order: its stop on its latest dispatched route.
pub fn dispatched_stop(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order_id: i64,
) -> Result<Option<(Stop, Route)>, StoreError> {
    let mut visit = None;
    for route in tx.routes_of_order(scope, order_id)? {
        if !route.dispatched {
            continue;
        }
        for stop in tx.list_stops(scope, route.id)? {
            if stop.visit.order_ids.contains(&order_id) {
                visit = Some((stop, route.clone()));
            }
        }
    }
    Ok(visit)
}

/// The promise of `order_id` on `stop`: the driver's live estimate for it while the visit has
/// no outcome, else the planned service start.
pub fn of_stop(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order_id: i64,
    stop: &Stop,
) -> Result<Promise, StoreError> {
    let zone = DepotZone::named(
        &tx.get_depot(scope)?
            .map(|d| d.settings.timezone)
            .unwrap_or_default(),
    );
    let (date, start_s) = stop.visit.service_start();
    let planned = zone.midnight(date).add_millis(start_s * 1000);
    let live = tx
        .driver_visits(scope, stop.route_id)?
        .into_iter()
        .find(|v| v.order_id == order_id)
        .filter(|v| v.outcome.is_none())
        .and_then(|v| v.start_eta.or(v.eta));
    Ok(match live {
        Some(start) => {
            let date = zone.date_of(start);
            Promise {
                date,
                start_s: zone.seconds_after_midnight(date, start),
                start,
                late_by_s: (start.millis() - planned.millis()).div_euclid(1000),
            }
        }
        None => Promise {
            date,
            start_s,
            start: planned,
            late_by_s: 0,
        },
    })
}

/// The promise of a dispatched order; `None` while it is on no dispatched route.
pub fn of_order(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order_id: i64,
) -> Result<Option<Promise>, StoreError> {
    match dispatched_stop(tx, scope, order_id)? {
        Some((stop, _)) => of_stop(tx, scope, order_id, &stop).map(Some),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_text_is_the_service_start_and_lateness_needs_five_minutes() {
        let p = Promise {
            date: Date::parse("2026-11-24").unwrap(),
            start_s: 14 * 3600 + 30 * 60,
            start: Timestamp::from_millis(0),
            late_by_s: LATE_NOTICE_S - 1,
        };
        assert_eq!(p.eta_text(), "14:30");
        assert!(!p.running_late());
        assert!(Promise {
            late_by_s: LATE_NOTICE_S,
            ..p
        }
        .running_late());
    }
}
