//! The value formats of the v2 interface, parsed and formatted in one place:
//! dates (`YYYY-MM-DD`), times of day (`HH:mm`), timestamps (`YYYY-MM-DDTHH:mm:ss.SSSZ`)
//! and the update-time filter (either `YYYY-MM-DD hh:mm:ss` or a timestamp).

pub mod zone;

use std::fmt;

use chrono::{
    DateTime, Datelike, NaiveDate, NaiveDateTime, Timelike, Utc, Weekday as ChronoWeekday,
};

/// A calendar date, written `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(NaiveDate);

impl Date {
    /// Parses exactly `YYYY-MM-DD` (four-digit year, two-digit month and day, a real date).
    pub fn parse(s: &str) -> Option<Date> {
        let b = s.as_bytes();
        if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
            return None;
        }
        if !b
            .iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        {
            return None;
        }
        NaiveDate::parse_from_str(s, "%Y-%m-%d").ok().map(Date)
    }

    /// Builds a date from its parts; `None` when they name no real date.
    pub fn from_ymd(year: i32, month: u32, day: u32) -> Option<Date> {
        NaiveDate::from_ymd_opt(year, month, day).map(Date)
    }

    /// The day of the week this date falls on.
    pub fn weekday(self) -> Weekday {
        Weekday::from_chrono(self.0.weekday())
    }

    /// The date `days` days later (earlier when negative).
    pub fn add_days(self, days: i64) -> Date {
        Date(self.0 + chrono::Duration::days(days))
    }
}

impl fmt::Display for Date {
    /// Field by field for four-digit years (every date [`Date::parse`] reads): chrono's
    /// formatter reads its format string again for every date, two a stored order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let year = self.0.year();
        if !(0..=9999).contains(&year) {
            return write!(f, "{}", self.0.format("%Y-%m-%d"));
        }
        write!(f, "{year:04}-{:02}-{:02}", self.0.month(), self.0.day())
    }
}

/// A time of day on the 24-hour clock, written `HH:mm`, kept as minutes after midnight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimeOfDay(u16);

impl TimeOfDay {
    /// Parses exactly `HH:mm` with hour 00-23 and minute 00-59.
    pub fn parse(s: &str) -> Option<TimeOfDay> {
        let b = s.as_bytes();
        if b.len() != 5 || b[2] != b':' {
            return None;
        }
        let digit = |c: u8| c.is_ascii_digit().then(|| u16::from(c - b'0'));
        let hour = digit(b[0])? * 10 + digit(b[1])?;
        let minute = digit(b[3])? * 10 + digit(b[4])?;
        (hour < 24 && minute < 60).then_some(TimeOfDay(hour * 60 + minute))
    }

    /// A time of day from minutes after midnight; `None` past 23:59.
    pub fn from_minutes(minutes: u32) -> Option<TimeOfDay> {
        (minutes < 24 * 60).then_some(TimeOfDay(minutes as u16))
    }

    /// Minutes after midnight.
    pub fn minutes(self) -> u32 {
        u32::from(self.0)
    }
}

impl fmt::Display for TimeOfDay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02}:{:02}", self.0 / 60, self.0 % 60)
    }
}

/// An instant in UTC with millisecond precision, written `YYYY-MM-DDTHH:mm:ss.SSSZ`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(i64);

impl Timestamp {
    /// The instant `millis` milliseconds after the Unix epoch.
    pub const fn from_millis(millis: i64) -> Timestamp {
        Timestamp(millis)
    }

    /// Milliseconds after the Unix epoch.
    pub const fn millis(self) -> i64 {
        self.0
    }

    /// Parses exactly `YYYY-MM-DDTHH:mm:ss.SSSZ`.
    pub fn parse(s: &str) -> Option<Timestamp> {
        if s.len() != 24 || !s.ends_with('Z') || s.as_bytes()[10] != b'T' {
            return None;
        }
        let naive = NaiveDateTime::parse_from_str(&s[..23], "%Y-%m-%dT%H:%M:%S%.3f").ok()?;
        Some(Timestamp(naive.and_utc().timestamp_millis()))
    }

    /// The instant `ms` milliseconds later (earlier when negative).
    pub const fn add_millis(self, ms: i64) -> Timestamp {
        Timestamp(self.0 + ms)
    }

    /// The UTC calendar date of this instant.
    pub fn date(self) -> Date {
        Date(self.utc().date_naive())
    }

    fn utc(self) -> DateTime<Utc> {
        DateTime::from_timestamp_millis(self.0).unwrap_or_default()
    }
}

/// The timestamp format in chrono's notation: what [`Timestamp`]'s `Display` writes.
const TIMESTAMP_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.3fZ";

impl fmt::Display for Timestamp {
    /// Written field by field for four-digit years (every instant a clock gives): chrono's
    /// formatter parses its format string again for every value, 8 % of the CPU of listing
    /// orders (two timestamps a row). Other years as chrono writes them (`+10000`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.utc();
        if !(0..=9999).contains(&t.year()) {
            return write!(f, "{}", t.format(TIMESTAMP_FORMAT));
        }
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
            t.year(),
            t.month(),
            t.day(),
            t.hour(),
            t.minute(),
            t.second(),
            t.timestamp_subsec_millis()
        )
    }
}

/// The `updated_at_min` filter: `YYYY-MM-DD hh:mm:ss` (UTC) or a full timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UpdatedAtMin(pub Timestamp);

impl UpdatedAtMin {
    /// Parses either accepted form; `None` for anything else (callers decide whether to ignore it).
    pub fn parse(s: &str) -> Option<UpdatedAtMin> {
        if let Some(ts) = Timestamp::parse(s) {
            return Some(UpdatedAtMin(ts));
        }
        if s.len() != 19 || s.as_bytes()[10] != b' ' {
            return None;
        }
        let naive = NaiveDateTime::parse_from_str(s, "%Y-%m-%d %H:%M:%S").ok()?;
        Some(UpdatedAtMin(Timestamp(naive.and_utc().timestamp_millis())))
    }
}

/// Day of the week, as the spec's weekday enum (`MONDAY` ... `SUNDAY`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Weekday {
    /// MONDAY
    Monday,
    /// TUESDAY
    Tuesday,
    /// WEDNESDAY
    Wednesday,
    /// THURSDAY
    Thursday,
    /// FRIDAY
    Friday,
    /// SATURDAY
    Saturday,
    /// SUNDAY
    Sunday,
}

impl Weekday {
    /// All seven days, Monday first.
    pub const ALL: [Weekday; 7] = [
        Weekday::Monday,
        Weekday::Tuesday,
        Weekday::Wednesday,
        Weekday::Thursday,
        Weekday::Friday,
        Weekday::Saturday,
        Weekday::Sunday,
    ];

    /// The enum spelling, e.g. `MONDAY`.
    pub fn as_str(self) -> &'static str {
        match self {
            Weekday::Monday => "MONDAY",
            Weekday::Tuesday => "TUESDAY",
            Weekday::Wednesday => "WEDNESDAY",
            Weekday::Thursday => "THURSDAY",
            Weekday::Friday => "FRIDAY",
            Weekday::Saturday => "SATURDAY",
            Weekday::Sunday => "SUNDAY",
        }
    }

    /// Parses the enum spelling exactly (upper case).
    pub fn parse(s: &str) -> Option<Weekday> {
        Weekday::ALL.into_iter().find(|d| d.as_str() == s)
    }

    fn from_chrono(d: ChronoWeekday) -> Weekday {
        Weekday::ALL[d.num_days_from_monday() as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_accepts_only_the_exact_format_of_real_dates() {
        assert_eq!(Date::parse("2026-11-22").unwrap().to_string(), "2026-11-22");
        assert_eq!(Date::parse("0999-01-05").unwrap().to_string(), "0999-01-05");
        let far = Date(NaiveDate::from_ymd_opt(12345, 6, 7).unwrap());
        assert_eq!(far.to_string(), far.0.format("%Y-%m-%d").to_string());
        for bad in [
            "2026-2-01",
            "2026-02-30",
            "26-02-01",
            "2026/02/01",
            "2026-02-01T00",
            "",
        ] {
            assert!(Date::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(
            Date::parse("2026-11-22").unwrap().weekday(),
            Weekday::Sunday
        );
    }

    #[test]
    fn time_of_day_is_24_hour_hh_mm() {
        assert_eq!(TimeOfDay::parse("08:05").unwrap().minutes(), 485);
        assert_eq!(TimeOfDay::parse("23:59").unwrap().to_string(), "23:59");
        for bad in ["24:00", "8:05", "08:60", "08-05", "08:05:00", ""] {
            assert!(TimeOfDay::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn timestamps_are_written_as_chrono_formats_them_in_every_year() {
        let year_10000 = 253_402_300_800_000;
        for ms in [
            0,
            1,
            999,
            1_795_334_400_123,
            4_102_444_799_999,
            year_10000 - 1,
            year_10000,
            year_10000 + 86_400_123,
            -1,
            -62_167_219_200_000,
            -62_167_219_200_001,
            -100_000_000_000_000,
        ] {
            let t = Timestamp::from_millis(ms);
            assert_eq!(
                t.to_string(),
                t.utc().format(TIMESTAMP_FORMAT).to_string(),
                "{ms}"
            );
        }
        assert_eq!(
            Timestamp::from_millis(year_10000).to_string(),
            "+10000-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn timestamps_round_trip_with_milliseconds_and_z() {
        let s = "2026-11-22T07:41:10.123Z";
        assert_eq!(Timestamp::parse(s).unwrap().to_string(), s);
        assert_eq!(
            Timestamp::from_millis(0).to_string(),
            "1970-01-01T00:00:00.000Z"
        );
        assert!(Timestamp::parse("2026-11-22T07:41:10Z").is_none());
    }

    #[test]
    fn update_time_filter_takes_both_forms_and_rejects_others() {
        let a = UpdatedAtMin::parse("2026-11-22 07:41:10").unwrap();
        let b = UpdatedAtMin::parse("2026-11-22T07:41:10.000Z").unwrap();
        assert_eq!(a, b);
        assert!(UpdatedAtMin::parse("yesterday").is_none());
        assert!(UpdatedAtMin::parse("2026-11-22").is_none());
    }
}
