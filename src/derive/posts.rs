//! Published posts per language, their order, and tag membership.

use crate::db::{LangTree, Site, SourceFile};
use crate::model::Timestamp;
use crate::parse::post_meta;
use chrono::NaiveDate;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Published means: not a draft (unless previewing drafts), and not scheduled (the UTC calendar
/// date of `pubDate` is not after today).
pub fn is_published(
    draft: bool,
    pub_date: Timestamp,
    today: NaiveDate,
    preview_drafts: bool,
) -> bool {
    (!draft || preview_drafts) && pub_date.utc_date() <= today
}

/// Where a published post sorts: newest first is date descending, then id ascending.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SortKey {
    pub date: Timestamp,
    pub id: Arc<str>,
}

impl SortKey {
    /// The "newest first" order of the contract.
    pub fn newest_first(a: &SortKey, b: &SortKey) -> std::cmp::Ordering {
        b.date
            .cmp(&a.date)
            .then_with(|| a.id.as_bytes().cmp(b.id.as_bytes()))
    }
}

/// A published post's sort key; `None` when the post is not published (or broken).
#[salsa::tracked(returns(ref))]
pub fn sort_key(db: &dyn salsa::Database, file: SourceFile) -> Option<SortKey> {
    let meta = post_meta(db, file).as_ref()?;
    let site = Site::get(db);
    is_published(meta.draft, meta.pub_date, site.today(db), site.drafts(db)).then(|| SortKey {
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

#[salsa::tracked(returns(ref))]
pub fn post_links(db: &dyn salsa::Database, file: SourceFile) -> Option<PostLinks> {
    sort_key(db, file).as_ref()?;
    let meta = post_meta(db, file).as_ref()?;
    Some(PostLinks {
        series: meta.series.clone().map(|name| (name, meta.series_order)),
        tags: meta.tags.clone(),
    })
}

/// The published posts of one language, newest first, with their sort keys.
#[salsa::tracked(returns(ref))]
pub fn published_posts(db: &dyn salsa::Database, tree: LangTree) -> Arc<[(SortKey, SourceFile)]> {
    let mut posts: Vec<(SortKey, SourceFile)> = tree
        .posts(db)
        .iter()
        .filter_map(|&file| sort_key(db, file).clone().map(|key| (key, file)))
        .collect();
    posts.sort_by(|a, b| SortKey::newest_first(&a.0, &b.0));
    posts.into()
}

/// Tag name → the published posts carrying it, newest first. One pass over the posts, so a
/// timeline never scans all posts per tag.
#[salsa::tracked(returns(ref))]
pub fn tag_members(
    db: &dyn salsa::Database,
    tree: LangTree,
) -> Arc<BTreeMap<Arc<str>, Arc<[SourceFile]>>> {
    let mut members: BTreeMap<Arc<str>, Vec<SourceFile>> = BTreeMap::new();
    for &(_, file) in published_posts(db, tree).iter() {
        if let Some(links) = post_links(db, file) {
            for tag in &links.tags {
                members.entry(tag.clone()).or_default().push(file);
            }
        }
    }
    Arc::new(
        members
            .into_iter()
            .map(|(tag, files)| (tag, files.into()))
            .collect(),
    )
}

/// The posts of one tag: a projection that stays equal (and so does not invalidate the tag's
/// timeline) when an edit touched other tags.
#[salsa::tracked(returns(ref))]
pub fn tag_posts(db: &dyn salsa::Database, tree: LangTree, tag: Arc<str>) -> Arc<[SourceFile]> {
    tag_members(db, tree)
        .get(&tag)
        .cloned()
        .unwrap_or_else(|| Arc::from([]))
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
        assert!(is_published(
            false,
            date("2026-11-22T23:59:00Z"),
            today,
            false
        ));
        assert!(!is_published(false, date("2026-11-23"), today, false));
        assert!(!is_published(true, date("2020-01-01"), today, false));
        assert!(is_published(true, date("2020-01-01"), today, true));
        assert!(!is_published(true, date("2027-01-01"), today, true));
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
    tag_members(db, tree).keys().cloned().collect()
}
