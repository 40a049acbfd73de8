//! Published slide decks per language.

use super::posts::{is_published, preview_of};
use crate::db::{Globals, LangTree, SourceFile};
use crate::model::SortKey;
use crate::parse::deck_meta;
use std::sync::Arc;

/// The published decks of one language, newest first.
#[salsa::tracked(returns(ref))]
pub fn published_decks(db: &dyn salsa::Database, tree: LangTree) -> Arc<[SourceFile]> {
    let site = Globals::get(db);
    let (today, preview) = (site.today(db), preview_of(db));
    let mut decks: Vec<(SortKey, SourceFile)> = tree
        .decks(db)
        .iter()
        .filter_map(|&file| {
            let meta = deck_meta(db, file).as_ref()?;
            is_published(meta.draft, meta.pub_date, today, preview).then(|| {
                let key = SortKey {
                    date: meta.pub_date,
                    id: meta.id.clone(),
                };
                (key, file)
            })
        })
        .collect();
    decks.sort_by(|a, b| SortKey::newest_first(&a.0, &b.0));
    decks.into_iter().map(|(_, file)| file).collect()
}
