//! Derived values: which posts and decks are published, where each post sorts and what it links
//! to, series positions, the taxonomy, and every diagnostic. Every query here is tracked and
//! works from the per-file `*_meta` queries, never from text.
//!
//! A post's `SortKey` (date, id) and its `PostLinks` (series, tags) are separate queries,
//! so a title edit changes neither. The indexes built from them over all posts (publication
//! order, tag and series membership) are not queries but inputs, maintained by `workspace`;
//! this module only reads them (`published_posts`, `tag_members`, `series_members`).

mod checks;
mod keys;
mod posts;
mod schedule;
mod series;
mod slides;
mod taxonomy;

pub use checks::{TreeCheck, all_diagnostics, file_diagnostics, post_diagnostics, tree_checks};
pub use posts::{post_links, preview_of, published_posts, sort_key, tag_members, tag_names};
pub use schedule::{ScheduleEntry, ScheduleState, schedule, schedule_entry};
pub use series::{
    first_chapter_hero, localized_series, post_series_position, series_chapters, series_members,
    series_names,
};
pub use slides::published_decks;
pub use taxonomy::{tag_definitions, tag_display_name, tag_display_names, tag_tiers};

use crate::content::FileRole;
use crate::db::{Globals, LangTree, SourceFile};

/// The language tree a post or deck file belongs to.
pub fn tree_of(db: &dyn salsa::Database, file: SourceFile) -> Option<LangTree> {
    let lang = match file.role(db).clone() {
        FileRole::Post { lang, .. } | FileRole::Deck { lang, .. } => lang,
        _ => return None,
    };
    Some(Globals::get(db).tree(db, lang))
}
