//! Whether a post is published, its sort key and links (per file), and readers of the indexes
//! the workspace maintains from them (publication order, tag membership).

use crate::db::{Globals, Index, LangTree, Preview, SourceFile, TagMembers};
use crate::model::{SortKey, Timestamp};
use crate::parse::post_meta;
use chrono::NaiveDate;
use std::sync::Arc;

/// Published means: not a draft (unless previewing drafts), and not scheduled (the UTC calendar
/// date of `pubDate` is not after today), unless previewing scheduled content.
pub fn is_published(draft: bool, pub_date: Timestamp, today: NaiveDate, preview: Preview) -> bool {
    (!draft || preview.drafts) && (preview.future || pub_date.utc_date() <= today)
}

/// The preview mode of the database (`--drafts`, `--future`).
pub fn preview_of(db: &dyn salsa::Database) -> Preview {
    let site = Globals::get(db);
    Preview {
        drafts: site.drafts(db),
        future: site.future(db),
    }
}

/// A published post's sort key; `None` when the post is not published (or broken).
#[salsa::tracked(returns(ref))]
pub fn sort_key(db: &dyn salsa::Database, file: SourceFile) -> Option<SortKey> {
    let meta = post_meta(db, file).as_ref()?;
    let site = Globals::get(db);
    is_published(meta.draft, meta.pub_date, site.today(db), preview_of(db)).then(|| SortKey {
        date: meta.pub_date,
        id: meta.id.clone(),
    })
}

/// What ties a published post to other outputs: its series and its tags.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PostLinks {
    pub series: Option<(Arc<str>, Option<i64>)>,
    pub tags: Vec<Arc<str>>,
}

/// The series and tags of a published post; `None` when it is not published.
#[salsa::tracked(returns(ref))]
pub fn post_links(db: &dyn salsa::Database, file: SourceFile) -> Option<PostLinks> {
    sort_key(db, file).as_ref()?;
    let meta = post_meta(db, file).as_ref()?;
    Some(PostLinks {
        series: meta.series.clone().map(|name| (name, meta.series_order)),
        tags: meta.tags.clone(),
    })
}

/// The published posts of one language, newest first, with their sort keys (an index input).
pub fn published_posts(db: &dyn salsa::Database, tree: LangTree) -> &Arc<[(SortKey, SourceFile)]> {
    Index::get(db).lang(db, tree.lang(db)).published(db)
}

/// The members input of `tag` in the language, if the tag has published posts there.
pub fn tag_members(db: &dyn salsa::Database, tree: LangTree, tag: &str) -> Option<TagMembers> {
    Index::get(db)
        .lang(db, tree.lang(db))
        .tags(db)
        .get(tag)
        .copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn date(text: &str) -> Timestamp {
        Timestamp::parse(text).unwrap()
    }

    #[test]
    fn scheduled_and_draft_posts_are_not_published() {
        let today = NaiveDate::from_ymd_opt(2026, 11, 22).unwrap();
        let none = Preview::default();
        let drafts = Preview::from(true);
        let future = Preview {
            drafts: false,
            future: true,
        };
        let both = Preview {
            drafts: true,
            future: true,
        };
        assert!(is_published(
            false,
            date("2026-11-22T23:59:00Z"),
            today,
            none
        ));
        assert!(!is_published(false, date("2026-11-23"), today, none));
        assert!(!is_published(true, date("2020-01-01"), today, none));
        assert!(is_published(true, date("2020-01-01"), today, drafts));
        assert!(!is_published(true, date("2027-01-01"), today, drafts));
        // --future: scheduled content before its date, and drafts still only with --drafts.
        assert!(is_published(false, date("2027-01-01"), today, future));
        assert!(!is_published(true, date("2027-01-01"), today, future));
        assert!(is_published(true, date("2027-01-01"), today, both));
    }

    #[test]
    fn newest_first_breaks_ties_by_id_bytes() {
        let key = |d: &str, id: &str| SortKey {
            date: date(d),
            id: id.into(),
        };
        let mut keys = [
            key("2024-01-01", "en/b"),
            key("2024-01-02", "en/z"),
            key("2024-01-01", "en/a"),
            key("2024-01-01", "en/B"),
        ];
        keys.sort_by(SortKey::newest_first);
        let ids: Vec<_> = keys.iter().map(|k| &*k.id).collect();
        assert_eq!(ids, ["en/z", "en/B", "en/a", "en/b"]);
    }
}

/// The tags with at least one published post in the language, sorted: the timeline files that
/// exist. Backdates unless a tag appeared or disappeared.
#[salsa::tracked(returns(ref))]
pub fn tag_names(db: &dyn salsa::Database, tree: LangTree) -> Arc<[Arc<str>]> {
    Index::get(db)
        .lang(db, tree.lang(db))
        .tags(db)
        .keys()
        .cloned()
        .collect()
}
