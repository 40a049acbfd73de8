//! What will go live, and when: every post and deck with its state as production sees it
//! (published, scheduled for a later date, or a draft), whatever the preview flags. What
//! `content-api list` prints and the preview's landing page shows.

use crate::content::FileRole;
use crate::db::{Globals, SourceFile};
use crate::model::{Lang, Timestamp};
use crate::parse::{deck_meta, post_meta};
use chrono::NaiveDate;

/// A post's or deck's state in production.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ScheduleState {
    /// Published: not a draft, dated today or earlier.
    Published,
    /// Not a draft, dated after today: it goes live at the start of its date in the site's
    /// time zone (a watch session at its tick, CI at its daily build).
    Scheduled,
    /// `draft: true`: published only by a preview (`--drafts`), whatever its date.
    Draft,
}

impl ScheduleState {
    /// Production's view: drafts never, anything else from the UTC date of its `pubDate` on
    /// (the rule of `is_published` without a preview).
    pub fn of(draft: bool, pub_date: Timestamp, today: NaiveDate) -> ScheduleState {
        if draft {
            ScheduleState::Draft
        } else if pub_date.utc_date() > today {
            ScheduleState::Scheduled
        } else {
            ScheduleState::Published
        }
    }
}

/// One post or deck, as `list` and the landing page show it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleEntry {
    /// Draft, scheduled or published.
    pub state: ScheduleState,
    /// `post` or `deck`.
    pub kind: &'static str,
    /// The language it is written in.
    pub lang: Lang,
    /// Relative to the content folder.
    pub path: String,
    /// The date it is (or goes) live on: the UTC date of its `pubDate`.
    pub date: NaiveDate,
    /// The `title` field, to name it in the list.
    pub title: String,
}

/// Every post and deck, sorted by date, then path; a file with errors is not an entry (`check`
/// reports it) but is named in `broken`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    pub entries: Vec<ScheduleEntry>,
    /// Posts and decks that do not parse, by path.
    pub broken: Vec<String>,
}

/// The posts and decks whose state `keep` accepts (and every one that does not parse).
pub fn schedule(db: &dyn salsa::Database, keep: impl Fn(ScheduleState) -> bool) -> Schedule {
    let site = Globals::get(db);
    let today = site.today(db);
    let mut out = Vec::new();
    let mut broken = Vec::new();
    for &tree in site.trees(db).iter() {
        let lang = tree.lang(db);
        let mut push = |file: SourceFile, kind, fields: Option<(bool, Timestamp, &String)>| {
            let Some((draft, pub_date, title)) = fields else {
                broken.push(file.path(db).as_str().to_string());
                return;
            };
            let state = ScheduleState::of(draft, pub_date, today);
            // Most posts are published: their title is not copied unless asked for.
            if keep(state) {
                out.push(entry_of(db, file, state, kind, lang, pub_date, title));
            }
        };
        for &file in tree.posts(db).iter() {
            let meta = post_meta(db, file).as_ref();
            push(file, "post", meta.map(|m| (m.draft, m.pub_date, &m.title)));
        }
        for &file in tree.decks(db).iter() {
            let meta = deck_meta(db, file).as_ref();
            push(file, "deck", meta.map(|m| (m.draft, m.pub_date, &m.title)));
        }
    }
    out.sort_by(|a, b| (a.date, &a.path).cmp(&(b.date, &b.path)));
    broken.sort();
    Schedule {
        entries: out,
        broken,
    }
}

/// One post's or deck's entry (`None`: not a post or deck, or it does not parse).
pub fn schedule_entry(db: &dyn salsa::Database, file: SourceFile) -> Option<ScheduleEntry> {
    let today = Globals::get(db).today(db);
    let (kind, lang, draft, pub_date, title) = match file.role(db).clone() {
        FileRole::Post { lang, .. } => {
            let meta = post_meta(db, file).as_ref()?;
            ("post", lang, meta.draft, meta.pub_date, &meta.title)
        }
        FileRole::Deck { lang, .. } => {
            let meta = deck_meta(db, file).as_ref()?;
            ("deck", lang, meta.draft, meta.pub_date, &meta.title)
        }
        _ => return None,
    };
    let state = ScheduleState::of(draft, pub_date, today);
    Some(entry_of(db, file, state, kind, lang, pub_date, title))
}

fn entry_of(
    db: &dyn salsa::Database,
    file: SourceFile,
    state: ScheduleState,
    kind: &'static str,
    lang: Lang,
    pub_date: Timestamp,
    title: &str,
) -> ScheduleEntry {
    ScheduleEntry {
        state,
        kind,
        lang,
        path: file.path(db).as_str().to_string(),
        date: pub_date.utc_date(),
        title: title.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_is_productions_whatever_the_preview() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let date = |text: &str| Timestamp::parse(text).unwrap();
        assert_eq!(
            ScheduleState::of(false, date("2026-11-22"), today),
            ScheduleState::Published
        );
        assert_eq!(
            ScheduleState::of(false, date("2026-11-23"), today),
            ScheduleState::Scheduled
        );
        assert_eq!(
            ScheduleState::of(true, date("2020-01-01"), today),
            ScheduleState::Draft
        );
        assert_eq!(
            ScheduleState::of(true, date("2030-01-01"), today),
            ScheduleState::Draft
        );
    }
}
