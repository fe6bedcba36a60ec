//! Depot-local time: a depot's IANA time zone (`settings.timezone`) applied to instants, so the
//! driver side can say which day is "today" at the depot and turn an estimated arrival into the
//! depot's clock time. An unknown zone name is read as UTC (the default setting).

use chrono::{NaiveTime, Offset, TimeZone};
use chrono_tz::Tz;

use super::{Date, Timestamp};

/// A depot's time zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepotZone(Tz);

impl DepotZone {
    /// The zone of that IANA name (`Europe/London`), UTC when unknown.
    pub fn named(name: &str) -> DepotZone {
        DepotZone::parse(name).unwrap_or(DepotZone(Tz::UTC))
    }

    /// The zone of that IANA name, `None` when the name is not one (where a setting is
    /// written, so a misspelt zone is refused instead of read as UTC later).
    pub fn parse(name: &str) -> Option<DepotZone> {
        name.parse().ok().map(DepotZone)
    }

    /// The depot's calendar date at instant `t`.
    pub fn date_of(self, t: Timestamp) -> Date {
        Date(t.utc().with_timezone(&self.0).date_naive())
    }

    /// The instant of local midnight starting `date` (the earliest, where a clock change
    /// repeats or skips midnight).
    pub fn midnight(self, date: Date) -> Timestamp {
        let naive = date.0.and_time(NaiveTime::MIN);
        let offset_s = self
            .0
            .offset_from_local_datetime(&naive)
            .earliest()
            .map(|o| i64::from(o.fix().local_minus_utc()))
            // Midnight skipped by a clock change: the offset an hour later.
            .or_else(|| {
                self.0
                    .offset_from_local_datetime(&(naive + chrono::Duration::hours(1)))
                    .earliest()
                    .map(|o| i64::from(o.fix().local_minus_utc()))
            })
            .unwrap_or(0);
        Timestamp((naive.and_utc().timestamp() - offset_s) * 1000)
    }

    /// Instant `t` as seconds after the local midnight starting `date` (the clock of a route
    /// on that date; negative before it, past 86 400 on the next day).
    pub fn seconds_after_midnight(self, date: Date, t: Timestamp) -> i64 {
        (t.millis() - self.midnight(date).millis()).div_euclid(1000)
    }

    /// The depot's clock time of instant `t`, `HH:mm`.
    pub fn clock(self, t: Timestamp) -> String {
        t.utc().with_timezone(&self.0).format("%H:%M").to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        Timestamp::parse(s).unwrap()
    }

    #[test]
    fn the_depot_date_and_clock_follow_its_zone() {
        let london = DepotZone::named("Europe/London");
        let t = at("2026-07-01T23:30:00.000Z");
        assert_eq!(london.date_of(t).to_string(), "2026-07-02");
        assert_eq!(london.clock(t), "00:30");
        let utc = DepotZone::named("no such zone");
        assert_eq!(utc.date_of(t).to_string(), "2026-07-01");
        assert_eq!(utc.clock(t), "23:30");
    }

    #[test]
    fn seconds_after_midnight_are_counted_from_local_midnight() {
        let berlin = DepotZone::named("Europe/Berlin");
        let day = Date::parse("2026-01-15").unwrap();
        assert_eq!(berlin.midnight(day), at("2026-01-14T23:00:00.000Z"));
        assert_eq!(
            berlin.seconds_after_midnight(day, at("2026-01-15T08:00:00.000Z")),
            9 * 3600
        );
        let summer = Date::parse("2026-07-15").unwrap();
        assert_eq!(berlin.midnight(summer), at("2026-07-14T22:00:00.000Z"));
    }
}
