//! Stops: the visits of a route, in order. Start, end and break points are not stops. A stop
//! serves one order end (or both orders of an exchange pair at one location); its address and
//! contact are the served end's at planning time.

use crate::model::order::{Order, Side};
use crate::time::{Date, Timestamp};

/// One visit of a route.
#[derive(Debug, Clone, PartialEq)]
pub struct Stop {
    /// Identifier.
    pub id: i64,
    /// The route.
    pub route_id: i64,
    /// Position on the route, from 0.
    pub sequence: u32,
    /// What is planned there.
    pub visit: StopVisit,
    /// When the driver completed it.
    pub actual_completed_ts: Option<Timestamp>,
    /// Creation instant.
    pub created: Timestamp,
}

/// The planned part of a stop: what a route's stop list is written from.
#[derive(Debug, Clone, PartialEq)]
pub struct StopVisit {
    /// Orders served here, in the order they are handled.
    pub order_ids: Vec<i64>,
    /// Which end of the orders this visit serves.
    pub side: Side,
    /// Latitude.
    pub lat: Option<f64>,
    /// Longitude.
    pub lng: Option<f64>,
    /// Address text of the served end.
    pub address: Option<String>,
    /// Postcode of the served end.
    pub postcode: Option<String>,
    /// Contact number of the served end.
    pub phone: Option<String>,
    /// Date of the planned arrival.
    pub arrival_date: Date,
    /// Planned arrival, seconds after midnight of `arrival_date` (depot time zone).
    pub arrival_s: i64,
    /// Planned wait after arriving before service starts (a time window not open yet), seconds:
    /// the planned service start, which customers are promised, is arrival plus wait.
    pub wait_s: i64,
    /// Date of the planned departure.
    pub departure_date: Date,
    /// Planned departure, seconds after midnight of `departure_date`.
    pub departure_s: i64,
    /// Driving distance from the previous point (the start or the previous stop), in metres.
    pub planned_distance_m: i64,
}

impl StopVisit {
    /// Takes the address, postcode and contact number of `first`'s end that this visit serves.
    /// A stop shared by several orders shows those of its first order, so a stop that loses
    /// orders takes them from the first one left.
    pub fn show_contact_of(&mut self, first: &Order) {
        let end = first.endpoint(self.side);
        self.address = end.address.clone();
        self.postcode = end.postcode.clone();
        self.phone = end.contact_number.clone();
    }

    /// The planned time from arrival to departure, seconds (the wait included): departure minus
    /// arrival, counting the days between their dates (a visit planned across midnight departs
    /// "earlier" in the day than it arrives). Never negative.
    pub fn planned_service_s(&self) -> i64 {
        // A visit spans midnight at most a few times; count the days between its dates.
        let days = (0..7)
            .find(|d| self.arrival_date.add_days(*d) >= self.departure_date)
            .unwrap_or(0);
        (days * 86_400 + self.departure_s - self.arrival_s).max(0)
    }

    /// The planned service start: the day and seconds after its midnight (arrival plus wait).
    pub fn service_start(&self) -> (Date, i64) {
        let at = self.arrival_s + self.wait_s.max(0);
        (
            self.arrival_date.add_days(at.div_euclid(86_400)),
            at.rem_euclid(86_400),
        )
    }

    /// The planned service itself, seconds: from the service start to departure.
    pub fn planned_work_s(&self) -> i64 {
        (self.planned_service_s() - self.wait_s.max(0)).max(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn visit(arrival: (&str, i64), departure: (&str, i64)) -> StopVisit {
        StopVisit {
            order_ids: vec![1],
            side: Side::Delivery,
            lat: None,
            lng: None,
            address: None,
            postcode: None,
            phone: None,
            arrival_date: Date::parse(arrival.0).unwrap(),
            arrival_s: arrival.1,
            wait_s: 0,
            departure_date: Date::parse(departure.0).unwrap(),
            departure_s: departure.1,
            planned_distance_m: 0,
        }
    }

    #[test]
    fn planned_service_counts_the_days_of_a_visit_across_midnight() {
        let same_day = visit(("2026-11-24", 9 * 3600), ("2026-11-24", 9 * 3600 + 300));
        assert_eq!(same_day.planned_service_s(), 300);
        // Arrives 23:57, leaves 00:02 the next day: five minutes, not minus a day.
        let midnight = visit(("2026-11-24", 86_400 - 180), ("2026-11-25", 120));
        assert_eq!(midnight.planned_service_s(), 300);
        let month_end = visit(("2026-11-30", 86_000), ("2026-12-01", 400));
        assert_eq!(month_end.planned_service_s(), 800);
    }

    #[test]
    fn service_starts_after_the_wait_and_may_fall_on_the_next_day() {
        // Arrives 13:31, waits for a 14:30 window, serves 10 minutes.
        let mut early = visit(
            ("2026-11-24", 13 * 3600 + 31 * 60),
            ("2026-11-24", 14 * 3600 + 40 * 60),
        );
        early.wait_s = 59 * 60;
        assert_eq!(
            early.service_start(),
            (Date::parse("2026-11-24").unwrap(), 14 * 3600 + 30 * 60)
        );
        assert_eq!(early.planned_work_s(), 600);
        let mut late = visit(("2026-11-24", 86_400 - 60), ("2026-11-25", 900));
        late.wait_s = 300;
        assert_eq!(
            late.service_start(),
            (Date::parse("2026-11-25").unwrap(), 240)
        );
    }
}
