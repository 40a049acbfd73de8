//! Tag timelines and series: `api/timeline/{lang}/{tag}.json`, `api/series/{lang}/{slug}.json`
//! and `api/series/{lang}/index.json`.

use super::runs::{PostList, Run};
use super::splice::to_json_spliced;
use crate::db::{Globals, LangTree, SeriesMembers, SourceFile, TagMembers};
use crate::derive::{
    first_chapter_hero, localized_series, post_series_position, series_members, series_names,
    sort_key,
};
use crate::model::Timestamp;
use crate::output::{Assembly, Chunk, Output, Part, json_array};
use crate::parse::post_meta;
use crate::wire::{
    Fragments, SeriesDetail, SeriesListing, SeriesListingEntry, TagTimeline, TimelinePost,
    around_fragments, to_json,
};
use std::sync::Arc;

/// One post as a timeline entry, serialized once for every timeline and series that lists it.
#[salsa::tracked(returns(ref))]
pub fn timeline_post_json(db: &dyn salsa::Database, file: SourceFile) -> Option<Arc<str>> {
    let meta = post_meta(db, file).as_ref()?;
    let position = post_series_position(db, file).as_ref();
    let post = TimelinePost {
        slug: &meta.slug,
        lang: meta.lang.into(),
        title: &meta.title,
        description: &meta.description,
        pub_date: meta.pub_date.to_string(),
        tags: meta.tags.iter().map(|tag| &**tag).collect(),
        hero_image: meta.hero_image.as_deref(),
        // Only preview builds publish drafts, so this is false in production.
        is_draft: meta.draft && Globals::get(db).drafts(db),
        series_slug: position.map(|p| &*p.slug),
        series_current: position.map(|p| p.current),
        series_total: position.map(|p| p.total),
        series_title: position.map(|p| p.title.as_str()),
    };
    Some(to_json(&post).into())
}

/// The timeline entries of `files` as a JSON array (shared chunks), and how many there are.
fn timeline_array(db: &dyn salsa::Database, files: &[SourceFile]) -> (Vec<Chunk>, usize) {
    let fragments: Vec<Arc<str>> = files
        .iter()
        .filter_map(|&file| timeline_post_json(db, file).clone())
        .collect();
    let total = fragments.len();
    (json_array(fragments), total)
}

/// `api/timeline/{lang}/{tag}.json`: keyed by the tag's members input, so it reads nothing
/// that an edit of a post outside the tag changes.
#[salsa::tracked(returns(ref))]
pub fn tag_timeline_json(db: &dyn salsa::Database, members: TagMembers) -> Output {
    // A primary tag lists a large share of the site: read it run by run.
    let runs: Vec<&Part> = PostList::Tag(members)
        .runs(db)
        .iter()
        .map(|&run| timeline_entries_run(db, run))
        .collect();
    let timeline = TagTimeline {
        tag: members.tag(db),
        lang: members.lang(db).into(),
        total: runs.iter().map(|run| run.items()).sum(),
        posts: Fragments,
    };
    let (before, after) = around_fragments(&timeline);
    let mut out = Assembly::default();
    out.push(before.into());
    out.push_json_array(runs);
    out.push(after.into());
    out.finish()
}

/// `api/series/{lang}/{slug}.json`, keyed by the series' members input.
#[salsa::tracked(returns(ref))]
pub fn series_detail_json(db: &dyn salsa::Database, members: SeriesMembers) -> Output {
    let (array, total) = timeline_array(db, members.files(db));
    let detail = SeriesDetail {
        series: members.name(db),
        lang: members.lang(db).into(),
        total,
        posts: Fragments,
    };
    Output::from_chunks(to_json_spliced(&detail, array))
}

/// What a series listing row needs from a series' published chapters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChapterSummary {
    count: usize,
    first_hero: Option<String>,
    last_date: Timestamp,
}

/// Keyed by the series' members input, so re-rendering a listing after an edit elsewhere reads
/// each other series' row as it was instead of every chapter's date. `None` with no chapter.
#[salsa::tracked(returns(ref))]
pub fn chapter_summary(db: &dyn salsa::Database, members: SeriesMembers) -> Option<ChapterSummary> {
    let chapters = members.files(db);
    let last_date = chapters
        .iter()
        .filter_map(|&f| sort_key(db, f).as_ref().map(|k| k.date))
        .max()?;
    Some(ChapterSummary {
        count: chapters.len(),
        first_hero: first_chapter_hero(db, chapters),
        last_date,
    })
}

/// `api/series/{lang}/index.json`: ordered by latest chapter date descending, then `order`,
/// then slug.
#[salsa::tracked(returns(ref))]
pub fn series_listing_json(db: &dyn salsa::Database, tree: LangTree) -> Output {
    let lang = tree.lang(db);
    let mut rows = Vec::new();
    for name in series_names(db, tree).iter() {
        let Some(series) = localized_series(db, tree, name.clone()).as_ref() else {
            continue;
        };
        let Some(chapters) =
            series_members(db, tree, name).and_then(|members| chapter_summary(db, members).clone())
        else {
            continue;
        };
        rows.push((
            name,
            series,
            chapters.count,
            chapters.first_hero,
            chapters.last_date,
        ));
    }
    rows.sort_by(|a, b| {
        b.4.cmp(&a.4)
            .then(a.1.order.cmp(&b.1.order))
            .then_with(|| a.0.cmp(b.0))
    });
    let series: Vec<SeriesListingEntry<'_>> = rows
        .iter()
        .map(
            |(name, series, count, first_hero, last)| SeriesListingEntry {
                slug: name,
                title: &series.title,
                description: &series.description,
                order: series.order,
                post_count: *count,
                hero_image: series.hero_image.as_deref(),
                first_post_hero: first_hero.as_deref(),
                last_post_date: last.to_string(),
            },
        )
        .collect();
    let listing = SeriesListing {
        lang: lang.into(),
        total: series.len(),
        series,
    };
    Output::new(to_json(&listing))
}

/// The timeline entries of one run.
#[salsa::tracked(returns(ref))]
pub fn timeline_entries_run<'db>(db: &'db dyn salsa::Database, run: Run<'db>) -> Part {
    Part::json(
        run.files(db)
            .iter()
            .filter_map(|&file| timeline_post_json(db, file).clone())
            .collect(),
    )
}
