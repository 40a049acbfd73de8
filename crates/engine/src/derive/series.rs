//! Series: their localized definitions, their chapters in reading order, and each chapter's
//! position.

use super::posts::post_links;
use super::tree_of;
use crate::content::FileRole;
use crate::db::{Globals, Index, LangTree, SeriesMembers, SourceFile};
use crate::parse::{parse_post, post_meta, post_reading, series_meta};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Series name → its definition file, for every series file whose name is valid (whether or
/// not its front matter is). Used to tell "unknown series" from "broken series file".
#[salsa::tracked(returns(ref))]
pub fn series_by_name(db: &dyn salsa::Database) -> Arc<BTreeMap<Arc<str>, SourceFile>> {
    let files = Globals::get(db).series(db);
    Arc::new(
        files
            .iter()
            .filter_map(|&file| match file.role(db).clone() {
                FileRole::Series { name } => Some((name, file)),
                _ => None,
            })
            .collect(),
    )
}

/// A series as one language shows it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct LocalizedSeries {
    pub title: String,
    pub description: String,
    pub hero_image: Option<String>,
    pub order: i64,
}

/// A series in one language: its file's fields, or, in a site whose layout has no series
/// folder, what its published chapters give ([`unfiled_series`]).
#[salsa::tracked(returns(ref))]
pub fn localized_series(
    db: &dyn salsa::Database,
    tree: LangTree,
    name: Arc<str>,
) -> Option<LocalizedSeries> {
    if post_reading(db).series_unfiled {
        return unfiled_series(db, tree, &name);
    }
    let file = *series_by_name(db).get(&name)?;
    let def = series_meta(db, file).as_ref()?;
    let lang = tree.lang(db);
    Some(LocalizedSeries {
        title: def.localized("title", lang).unwrap_or_default().to_string(),
        description: def
            .localized("description", lang)
            .unwrap_or_default()
            .to_string(),
        hero_image: def.localized("heroImage", lang).map(str::to_string),
        order: def.order,
    })
}

/// A series that exists through its chapters alone (no series folder in the site's layout),
/// with nothing invented: its title is its name as first written (its published chapters in
/// the language taken in path order), its description that of its first chapter in reading
/// order, its `order` 0 (listings fall back to their tie-breaks), and no hero image of its own
/// (`firstPostHero` gives the first chapter's). `None` without a published chapter.
fn unfiled_series(db: &dyn salsa::Database, tree: LangTree, name: &str) -> Option<LocalizedSeries> {
    let chapters = series_chapters(db, tree, name);
    let first = *chapters.first()?;
    let description = post_meta(db, first).as_ref()?.description.clone();
    let mut by_path: Vec<SourceFile> = chapters.to_vec();
    by_path.sort_by(|a, b| a.path(db).cmp(b.path(db)));
    let title = by_path
        .iter()
        .find_map(|&file| parse_post(db, file).series_text.clone())
        .map_or_else(|| name.to_string(), |text| text.to_string());
    Some(LocalizedSeries {
        title,
        description,
        hero_image: None,
        order: 0,
    })
}

/// The members input of series `name` in the language, if it has published chapters there.
pub fn series_members(
    db: &dyn salsa::Database,
    tree: LangTree,
    name: &str,
) -> Option<SeriesMembers> {
    Index::get(db)
        .lang(db, tree.lang(db))
        .series(db)
        .get(name)
        .copied()
}

/// The published chapters of one series, in reading order (an index input).
pub fn series_chapters(db: &dyn salsa::Database, tree: LangTree, name: &str) -> Arc<[SourceFile]> {
    series_members(db, tree, name)
        .map_or_else(|| Arc::from([]), |members| members.files(db).clone())
}

/// Where a published post stands in its series.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SeriesPosition {
    pub slug: Arc<str>,
    /// The front matter's `seriesOrder`, when given.
    pub order: Option<i64>,
    /// 1-based position among the published chapters of its language.
    pub current: usize,
    pub total: usize,
    /// The localized series title.
    pub title: String,
}

/// Where a published post stands in its series; `None` when it is in none (or not published).
#[salsa::tracked(returns(ref))]
pub fn post_series_position(db: &dyn salsa::Database, file: SourceFile) -> Option<SeriesPosition> {
    let (name, order) = post_links(db, file).as_ref()?.series.clone()?;
    let tree = tree_of(db, file)?;
    let series = localized_series(db, tree, name.clone()).as_ref()?;
    // The paths, not the files: see `SeriesMembers::paths`.
    let chapters = series_members(db, tree, &name)?.paths(db);
    let path = file.path(db);
    let index = chapters.iter().position(|chapter| chapter == path)?;
    Some(SeriesPosition {
        slug: name,
        order,
        current: index + 1,
        total: chapters.len(),
        title: series.title.clone(),
    })
}

/// The hero image of the first chapter in reading order, if it has one.
pub fn first_chapter_hero(db: &dyn salsa::Database, chapters: &[SourceFile]) -> Option<String> {
    let first = *chapters.first()?;
    post_meta(db, first).as_ref()?.hero_image.clone()
}

/// The series with at least one published chapter (and a valid definition) in the language,
/// sorted: the series files that exist.
#[salsa::tracked(returns(ref))]
pub fn series_names(db: &dyn salsa::Database, tree: LangTree) -> Arc<[Arc<str>]> {
    Index::get(db)
        .lang(db, tree.lang(db))
        .series(db)
        .keys()
        .filter(|name| localized_series(db, tree, (*name).clone()).is_some())
        .cloned()
        .collect()
}
