//! Customer tracking: each order gets a random token when it is first dispatched, and the
//! public page behind it shows that order's status, its ETA window and, once delivered, the
//! proof-of-delivery time — nothing about other stops, the driver or the route.

use super::{promise, ServiceError};
use crate::model::organisation::DepotScope;
use crate::ports::store::{Store, StoreError, StoreTx};
use crate::ports::tracking::TrackingLinks;
use crate::status::{DELIVERED, OPEN, ROUTED};
use crate::time::{Date, Timestamp};

/// Half the width of the ETA window shown to customers, in seconds.
pub const ETA_HALF_WINDOW_S: i64 = 30 * 60;
/// Window bounds are rounded outwards to this many seconds.
const ROUNDING_S: i64 = 15 * 60;

/// The order's tracking link, made (with a fresh token) when it has none: called by dispatch
/// for every order it routes.
pub fn issue_link(
    tx: &mut dyn StoreTx,
    scope: DepotScope,
    order_id: i64,
    links: &dyn TrackingLinks,
    now: Timestamp,
) -> Result<String, StoreError> {
    let token = tx.ensure_tracking_token(scope, order_id, &links.new_token(), now)?;
    Ok(links.link(&token))
}

/// When the customer can expect the visit: a window around the expected service start (the
/// live estimate kept current by the driver's position reports or, before there is one, the
/// planned service start; see [`super::promise`]), in the depot's local time of day. It always
/// contains that start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EtaWindow {
    /// The day.
    pub date: Date,
    /// Start, seconds after midnight.
    pub from_s: i64,
    /// End, seconds after midnight.
    pub to_s: i64,
}

impl EtaWindow {
    /// The window of [`ETA_HALF_WINDOW_S`] either side of `start_s`, rounded outwards to a
    /// quarter hour and kept within the day.
    pub fn around(date: Date, start_s: i64) -> EtaWindow {
        let from = (start_s - ETA_HALF_WINDOW_S).div_euclid(ROUNDING_S) * ROUNDING_S;
        let to = (start_s + ETA_HALF_WINDOW_S + ROUNDING_S - 1).div_euclid(ROUNDING_S) * ROUNDING_S;
        EtaWindow {
            date,
            from_s: from.max(0),
            to_s: to.min(24 * 3600 - 60),
        }
    }
}

/// Where the order stands, in the customer's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// Received, not yet on a dispatched route.
    Received,
    /// On a dispatched route.
    Scheduled,
    /// The route has started.
    OnItsWay,
    /// Delivered (in full or part).
    Delivered,
    /// Attempted and not delivered.
    NotDelivered,
}

/// Everything the tracking page shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackingPage {
    /// The order number (the customer's reference).
    pub order_number: String,
    /// The order's status value.
    pub status: String,
    /// The status in the customer's terms.
    pub progress: Progress,
    /// The ETA window while the visit is ahead (around the expected service start: the live
    /// estimate once the driver reports positions, the planned service start before).
    pub eta: Option<EtaWindow>,
    /// The route runs late: the window moved past the planned service start (the page says so).
    pub running_late: bool,
    /// When the delivery was completed (the driver's completion of the visit; else the
    /// signature's time).
    pub delivered_at: Option<Timestamp>,
    /// The depot of the order (for the request log; never shown on the page).
    pub depot_id: i64,
}

fn progress(status: &str, started: bool) -> Progress {
    match status {
        OPEN => Progress::Received,
        ROUTED if started => Progress::OnItsWay,
        ROUTED => Progress::Scheduled,
        DELIVERED | "PARTIALLY_DELIVERED" => Progress::Delivered,
        "UNDELIVERED" | "PARTIALLY_UNDELIVERED" => Progress::NotDelivered,
        _ if status.starts_with("PARTIALLY_") => Progress::Delivered,
        _ => Progress::Scheduled,
    }
}

/// The page of `token`; `None` for an unknown token or an order deleted since.
pub fn page(store: &dyn Store, token: &str) -> Result<Option<TrackingPage>, ServiceError> {
    // Tokens are letters, digits, `-` and `_`: anything else (a NUL, which PostgreSQL text
    // cannot hold; a slash; a space) names no page on any store and is not looked up.
    let token_byte = |b: u8| b.is_ascii_alphanumeric() || b == b'-' || b == b'_';
    if token.is_empty() || token.len() > 128 || !token.bytes().all(token_byte) {
        return Ok(None);
    }
    Ok(store.read(|tx| {
        let Some((scope, order_id)) = tx.find_tracking_token(token)? else {
            return Ok::<_, StoreError>(None);
        };
        let Some(order) = tx.get_order(scope, order_id)? else {
            return Ok(None);
        };
        let visit = promise::dispatched_stop(tx, scope, order_id)?;
        let status = order.status.as_str().to_owned();
        let started = visit.as_ref().is_some_and(|(_, r)| r.started_ts.is_some());
        let progress = progress(&status, started);
        // What the driver reported for this order on that route: the completion time.
        let reported = match &visit {
            Some((stop, _)) => tx
                .driver_visits(scope, stop.route_id)?
                .into_iter()
                .find(|v| v.order_id == order_id),
            None => None,
        };
        let delivered_at = match (&visit, progress) {
            (Some((stop, _)), Progress::Delivered) => {
                match reported
                    .as_ref()
                    .and_then(|v| v.completed)
                    .or(stop.actual_completed_ts)
                {
                    Some(t) => Some(t),
                    None => tx
                        .signature_of_visit(scope, stop.route_id, order_id)?
                        .map(|s| s.created),
                }
            }
            _ => None,
        };
        let promised = match (&visit, progress) {
            (Some((stop, _)), Progress::Scheduled | Progress::OnItsWay) => {
                Some(promise::of_stop(tx, scope, order_id, stop)?)
            }
            _ => None,
        };
        let eta = promised.map(|p| EtaWindow::around(p.date, p.start_s));
        let running_late = promised.is_some_and(|p| p.running_late());
        Ok(Some(TrackingPage {
            order_number: order.order_number,
            status,
            progress,
            eta,
            running_late,
            delivered_at,
            depot_id: scope.depot_id,
        }))
    })?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eta_window_is_an_hour_around_the_arrival_rounded_to_quarters() {
        let d = Date::parse("2026-11-24").unwrap();
        let w = EtaWindow::around(d, 10 * 3600 + 7 * 60);
        assert_eq!(
            (w.from_s, w.to_s),
            (9 * 3600 + 30 * 60, 10 * 3600 + 45 * 60)
        );
        let w = EtaWindow::around(d, 10 * 3600);
        assert_eq!(
            (w.from_s, w.to_s),
            (9 * 3600 + 30 * 60, 10 * 3600 + 30 * 60)
        );
        let early = EtaWindow::around(d, 10 * 60);
        assert_eq!(early.from_s, 0);
        let late = EtaWindow::around(d, 23 * 3600 + 50 * 60);
        assert_eq!(late.to_s, 23 * 3600 + 59 * 60);
    }

    #[test]
    fn statuses_read_in_the_customers_terms() {
        assert_eq!(progress("OPEN", false), Progress::Received);
        assert_eq!(progress("ROUTED", false), Progress::Scheduled);
        assert_eq!(progress("ROUTED", true), Progress::OnItsWay);
        assert_eq!(progress("DELIVERED", true), Progress::Delivered);
        assert_eq!(progress("PARTIALLY_DELIVERED", true), Progress::Delivered);
        assert_eq!(progress("UNDELIVERED", true), Progress::NotDelivered);
    }
}
