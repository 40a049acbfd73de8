//! The post indexes: `api/posts.json`, `api/posts-en.json`, `api/posts-es.json`.

use super::runs::{PostList, Run};
use crate::db::{Index, LangTree, SourceFile};
use crate::derive::{post_series_position, tag_tiers};
use crate::model::Tier;
use crate::output::Assembly;
use crate::output::Output;
use crate::output::Part;
use crate::parse::post_meta;
use crate::wire::{PostIndexEntry, to_json};
use std::sync::Arc;

/// One post's index entry, serialized once and reused by every index that lists it.
#[salsa::tracked(returns(ref))]
pub fn post_entry_json(db: &dyn salsa::Database, file: SourceFile) -> Option<Arc<str>> {
    let meta = post_meta(db, file).as_ref()?;
    let tiers = tag_tiers(db);
    // Tags missing from the taxonomy count as primary (and are warned about elsewhere).
    let tier_of = |tag: &Arc<str>| tiers.get(tag).copied().unwrap_or(Tier::Primary);
    let with_tiers = |wanted: &[Tier]| -> Vec<&str> {
        meta.tags
            .iter()
            .filter(|tag| wanted.contains(&tier_of(tag)))
            .map(|tag| &**tag)
            .collect()
    };
    let position = post_series_position(db, file).as_ref();
    let entry = PostIndexEntry {
        id: &meta.id,
        slug: &meta.slug,
        lang: meta.lang.into(),
        title: &meta.title,
        description: &meta.description,
        pub_date: meta.pub_date.to_string(),
        tags: with_tiers(&[Tier::Primary]),
        topics: with_tiers(&[Tier::Secondary, Tier::Subtopic]),
        subtopics: with_tiers(&[Tier::Subtopic]),
        hero_image: meta.hero_image.as_deref(),
        series: position.map(|p| &*p.slug),
        series_order: position.and_then(|p| p.order),
        series_current: position.map(|p| p.current),
        series_total: position.map(|p| p.total),
        series_title: position.map(|p| p.title.as_str()),
    };
    Some(to_json(&entry).into())
}

/// `api/posts-{lang}.json`.
#[salsa::tracked(returns(ref))]
pub fn posts_json(db: &dyn salsa::Database, tree: LangTree) -> Output {
    let list = PostList::Lang(Index::get(db).lang(db, tree.lang(db)));
    post_index(db, list)
}

/// `api/posts.json`: both languages merged newest first (ties by id, so `en/` before `es/`).
#[salsa::tracked(returns(ref))]
pub fn all_posts_json(db: &dyn salsa::Database) -> Output {
    post_index(db, PostList::All(Index::get(db)))
}

/// A post index: the entries of `list`, read run by run.
fn post_index(db: &dyn salsa::Database, list: PostList) -> Output {
    let mut out = Assembly::default();
    out.push_json_array(list.runs(db).iter().map(|&run| post_entries_run(db, run)));
    out.finish()
}

/// The `api/posts*.json` entries of one run.
#[salsa::tracked(returns(ref))]
pub fn post_entries_run<'db>(db: &'db dyn salsa::Database, run: Run<'db>) -> Part {
    Part::json(
        run.files(db)
            .iter()
            .filter_map(|&file| post_entry_json(db, file).clone())
            .collect(),
    )
}
