//! Publication timestamps: parsed from the spellings front matter uses, written in one format.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, SecondsFormat, Utc};
use std::fmt;

/// An instant in UTC with millisecond precision, as the API writes every date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// Parses the spellings CONTENT_FORMAT.md accepts: a date (`2024-05-01`), a date-time with
    /// `Z` or an offset, and a date-time without zone (read as UTC). A space may stand for `T`.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let text = text.trim();
        if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            return Some(Timestamp::from_date(date));
        }
        if let Ok(with_zone) = DateTime::parse_from_rfc3339(text) {
            return Some(Timestamp(with_zone.with_timezone(&Utc)).truncated());
        }
        let with_t = text.replacen(' ', "T", 1);
        if let Ok(with_zone) = DateTime::parse_from_rfc3339(&with_t) {
            return Some(Timestamp(with_zone.with_timezone(&Utc)).truncated());
        }
        for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"] {
            if let Ok(naive) = NaiveDateTime::parse_from_str(&with_t, format) {
                return Some(Timestamp(naive.and_utc()).truncated());
            }
        }
        None
    }

    pub fn from_date(date: NaiveDate) -> Timestamp {
        Timestamp(date.and_time(NaiveTime::MIN).and_utc())
    }

    /// The UTC calendar date, which is what visibility compares with today.
    pub fn utc_date(self) -> NaiveDate {
        self.0.date_naive()
    }

    /// The API keeps milliseconds; anything finer would make equal dates compare unequal.
    fn truncated(self) -> Timestamp {
        let millis = self.0.timestamp_millis();
        Timestamp(DateTime::from_timestamp_millis(millis).expect("millis round-trip"))
    }
}

impl fmt::Display for Timestamp {
    /// `YYYY-MM-DDTHH:MM:SS.sssZ`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Millis, true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(text: &str) -> String {
        Timestamp::parse(text)
            .unwrap_or_else(|| panic!("{text} should parse"))
            .to_string()
    }

    #[test]
    fn every_accepted_spelling_is_written_in_the_api_format() {
        assert_eq!(iso("2024-05-01"), "2024-05-01T00:00:00.000Z");
        assert_eq!(iso("2024-05-01T09:30:00"), "2024-05-01T09:30:00.000Z");
        assert_eq!(iso("2024-05-01T09:30:00Z"), "2024-05-01T09:30:00.000Z");
        assert_eq!(iso("2024-05-01T09:30:00-05:00"), "2024-05-01T14:30:00.000Z");
        assert_eq!(iso("2024-05-01 09:30:00"), "2024-05-01T09:30:00.000Z");
        assert_eq!(iso("2024-05-01T09:30:00.1234Z"), "2024-05-01T09:30:00.123Z");
        assert_eq!(iso("2024-05-01T09:30"), "2024-05-01T09:30:00.000Z");
    }

    #[test]
    fn an_offset_can_move_the_utc_calendar_date() {
        let late = Timestamp::parse("2024-05-01T22:00:00-05:00").unwrap();
        assert_eq!(
            late.utc_date(),
            NaiveDate::from_ymd_opt(2024, 5, 2).unwrap()
        );
    }

    #[test]
    fn impossible_dates_are_rejected() {
        for bad in ["2024-02-30", "2024-13-01", "yesterday", "2024/05/01", ""] {
            assert!(Timestamp::parse(bad).is_none(), "{bad:?}");
        }
    }
}
