//! Publication timestamps: parsed from the spellings front matter uses, written in one format.

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, SecondsFormat, Utc};
use std::fmt;

/// An instant in UTC with millisecond precision, as the API writes every date.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// Parses the spellings CONTENT_FORMAT.md accepts: a date (`2024-05-01`), a date-time with
    /// `Z` or an offset (`-05:00` or `-0500`, a space before it allowed, seconds optional), a
    /// date-time without zone (read as UTC, seconds optional), and a date written with the
    /// month's name as Astro's templates write it (`Jul 08 2022`, `July 8, 2022`). A space may
    /// stand for `T`.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let text = text.trim();
        if let Ok(date) = NaiveDate::parse_from_str(text, "%Y-%m-%d") {
            return Some(Timestamp::from_date(date));
        }
        if let Ok(with_zone) = DateTime::parse_from_rfc3339(text) {
            return Some(Timestamp(with_zone.with_timezone(&Utc)).truncated());
        }
        let with_t = normalized(text);
        if let Ok(with_zone) = DateTime::parse_from_rfc3339(&with_t) {
            return Some(Timestamp(with_zone.with_timezone(&Utc)).truncated());
        }
        for format in ["%Y-%m-%dT%H:%M:%S%.f%z", "%Y-%m-%dT%H:%M%z"] {
            if let Ok(with_zone) = DateTime::parse_from_str(&with_t, format) {
                return Some(Timestamp(with_zone.with_timezone(&Utc)).truncated());
            }
        }
        for format in ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"] {
            if let Ok(naive) = NaiveDateTime::parse_from_str(&with_t, format) {
                return Some(Timestamp(naive.and_utc()).truncated());
            }
        }
        month_name_date(text).map(Timestamp::from_date)
    }

    /// Midnight UTC of `date`: what a date without a time means.
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

/// `Jul 08 2022`, `Jul 8, 2022`, `July 8, 2022`: an English month's name or its first three
/// letters, a day of one or two digits (a comma after it allowed), a year of four digits.
/// chrono's `%b %d %Y` would read `Jul 2022` as the year 22, so the tokens are checked here.
fn month_name_date(text: &str) -> Option<NaiveDate> {
    const MONTHS: [&str; 12] = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    let mut words = text.split_whitespace();
    let (month, day, year) = (words.next()?, words.next()?, words.next()?);
    if words.next().is_some() {
        return None;
    }
    let month = month.to_ascii_lowercase();
    let number = MONTHS
        .iter()
        .position(|name| month == *name || (month.len() == 3 && name.starts_with(&month)))?;
    let day = day.strip_suffix(',').unwrap_or(day);
    let digits =
        |s: &str, lens: &[usize]| lens.contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(day, &[1, 2]) || !digits(year, &[4]) {
        return None;
    }
    NaiveDate::from_ymd_opt(year.parse().ok()?, number as u32 + 1, day.parse().ok()?)
}

/// What every accepted spelling is shown as when a date cannot be read.
pub const DATE_FORMS: &str = "2024-05-01, 2024-05-01T09:30:00Z, 2024-05-01T09:30-05:00, 2024-05-01 09:30:00 +0200, 2024-05-01T09:30 (UTC), Jul 08 2022 or July 8, 2022";

/// A date-time's `T` for its first space, and no space before a `Z` or an offset: the forms
/// `2024-05-01 09:30:00 +0200` (Jekyll) and `2024-05-01T09:30Z` read as RFC 3339 spells them.
fn normalized(text: &str) -> String {
    let mut out = text.replacen(' ', "T", 1);
    if let Some(at) = out.rfind(' ') {
        let zone = &out[at + 1..];
        if zone == "Z" || zone.starts_with(['+', '-']) {
            out.remove(at);
        }
    }
    // `09:30Z`: without seconds, RFC 3339 wants them; `%z` reads no `Z`.
    if let Some(stripped) = out.strip_suffix('Z')
        && stripped.len() == "2024-05-01T09:30".len()
    {
        out = format!("{stripped}:00Z");
    }
    out
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
    fn offsets_without_seconds_and_month_names_are_read() {
        assert_eq!(iso("2024-05-01T09:30-05:00"), "2024-05-01T14:30:00.000Z");
        assert_eq!(iso("2024-05-01T09:30Z"), "2024-05-01T09:30:00.000Z");
        assert_eq!(iso("2024-05-01 09:30 +02:00"), "2024-05-01T07:30:00.000Z");
        assert_eq!(iso("2024-05-01 09:30:00 +0200"), "2024-05-01T07:30:00.000Z");
        assert_eq!(iso("2024-05-01T09:30:00-0500"), "2024-05-01T14:30:00.000Z");
        assert_eq!(iso("Jul 08 2022"), "2022-07-08T00:00:00.000Z");
        assert_eq!(iso("Jul 8 2022"), "2022-07-08T00:00:00.000Z");
        assert_eq!(iso("July 8, 2022"), "2022-07-08T00:00:00.000Z");
        assert_eq!(iso("December 31, 2023"), "2023-12-31T00:00:00.000Z");
    }

    #[test]
    fn ambiguous_or_impossible_spellings_are_refused() {
        for bad in [
            "05/01/2024",
            "01.05.2024",
            "Feb 30 2024",
            "Jul 2022",
            "8 July",
            "2024-05-01T09",
            "2024-05-01T09:30 +02",
            "2024-05-01 09:30 PST",
            "Jul 08 2022 09:30",
            "Juli 8, 2022",
        ] {
            assert!(Timestamp::parse(bad).is_none(), "{bad:?}");
        }
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
