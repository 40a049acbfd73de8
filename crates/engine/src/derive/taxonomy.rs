//! The tag taxonomy.

use crate::db::{Globals, LangTree};
use crate::model::{Lang, TagDef, Tier};
use crate::parse::{parse_post, tag_meta};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Every valid tag definition by name.
#[salsa::tracked(returns(ref))]
pub fn tag_definitions(db: &dyn salsa::Database) -> Arc<BTreeMap<Arc<str>, TagDef>> {
    let tags = Globals::get(db).tags(db);
    Arc::new(
        tags.iter()
            .filter_map(|&file| tag_meta(db, file).clone())
            .map(|tag| (tag.name.clone(), tag))
            .collect(),
    )
}

/// Tag name → tier. Separate from the definitions so that editing a tag's description does not
/// invalidate every post's index entry.
#[salsa::tracked(returns(ref))]
pub fn tag_tiers(db: &dyn salsa::Database) -> Arc<BTreeMap<Arc<str>, Tier>> {
    Arc::new(
        tag_definitions(db)
            .iter()
            .map(|(name, tag)| (name.clone(), tag.tier))
            .collect(),
    )
}

/// Each tag's display name in one language, by its slug, when the site reads tags as written
/// (`tags_as_written`): the text as first written, the language's posts taken in path order
/// (empty otherwise; a text equal to its slug is not kept). What a human-facing document shows
/// for the tag; the API keeps the slug.
#[salsa::tracked(returns(ref))]
pub fn tag_display_names(
    db: &dyn salsa::Database,
    tree: LangTree,
) -> Arc<BTreeMap<Arc<str>, Arc<str>>> {
    if !Globals::get(db).config(db).front_matter.tags_as_written {
        return Arc::default();
    }
    let mut files: Vec<_> = tree.posts(db).to_vec();
    files.sort_by(|a, b| a.path(db).cmp(b.path(db)));
    let mut names: BTreeMap<Arc<str>, Arc<str>> = BTreeMap::new();
    for file in files {
        for (slug, text) in &parse_post(db, file).tag_texts {
            if **slug != **text {
                names.entry(slug.clone()).or_insert_with(|| text.clone());
            }
        }
    }
    Arc::new(names)
}

/// How a human-facing document in `lang` names `tag`: its display name, else the tag itself.
pub fn tag_display_name<'a>(db: &'a dyn salsa::Database, lang: Lang, tag: &'a str) -> &'a str {
    Globals::get(db)
        .trees(db)
        .iter()
        .find(|tree| tree.lang(db) == lang)
        .and_then(|&tree| tag_display_names(db, tree).get(tag))
        .map_or(tag, |name| &**name)
}
