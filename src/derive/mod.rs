//! Derived indexes: which posts and decks are published, in what order, and how posts group
//! into tags and series. Every query here is tracked and works from the per-file `*_meta`
//! queries, never from text.
//!
//! The queries are layered so that an edit invalidates as little as possible: a post's
//! [`SortKey`] (date, id) and its [`PostLinks`] (series, tags) are separate, so a title edit
//! changes neither, a tag edit does not re-sort, and per-tag and per-series projections
//! backdate for every tag and series the edit did not touch.

mod checks;
mod posts;
mod series;
mod slides;
mod taxonomy;

pub use checks::{all_diagnostics, file_diagnostics, post_diagnostics};
pub use posts::{
    PostLinks, SortKey, is_published, post_links, published_posts, sort_key, tag_members,
    tag_names, tag_posts,
};
pub use series::{
    LocalizedSeries, SeriesPosition, first_chapter_hero, localized_series, post_series_position,
    series_by_name, series_chapters, series_members, series_names,
};
pub use slides::published_decks;
pub use taxonomy::{tag_definitions, tag_tiers};

use crate::db::{LangTree, Site, SourceFile};
use crate::source::{FileRole, classify};

/// The language tree a post or deck file belongs to.
pub fn tree_of(db: &dyn salsa::Database, file: SourceFile) -> Option<LangTree> {
    let lang = match classify(file.path(db)) {
        FileRole::Post { lang, .. } | FileRole::Deck { lang, .. } => lang,
        _ => return None,
    };
    Some(Site::get(db).tree(db, lang))
}
