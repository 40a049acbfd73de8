//! `api/slides-timeline/{lang}.json`.

use super::splice::to_json_spliced;
use crate::db::{Globals, LangTree, SourceFile};
use crate::derive::published_decks;
use crate::model::DeckType;
use crate::output::{Output, json_array};
use crate::parse::deck_meta;
use crate::wire::{Fragments, SlideDeck, SlideDeckType, SlidesTimeline, to_json};
use std::sync::Arc;

#[salsa::tracked(returns(ref))]
pub fn deck_json(db: &dyn salsa::Database, file: SourceFile) -> Option<Arc<str>> {
    let meta = deck_meta(db, file).as_ref()?;
    let deck = SlideDeck {
        slug: &meta.slug,
        lang: meta.lang.into(),
        title: &meta.title,
        description: &meta.description,
        pub_date: meta.pub_date.to_string(),
        hero_image: meta.hero_image.as_deref(),
        deck_type: match meta.deck_type {
            DeckType::Internal => SlideDeckType::Internal,
            DeckType::ExternalEmbed => SlideDeckType::ExternalEmbed,
            DeckType::ExternalLink => SlideDeckType::ExternalLink,
        },
        is_draft: meta.draft && Globals::get(db).drafts(db),
        event_name: meta.event_name.as_deref(),
        event_date: meta.event_date.map(|date| date.to_string()),
        external_url: meta.external_url.as_deref(),
        provider: meta.provider.as_deref(),
    };
    Some(to_json(&deck).into())
}

#[salsa::tracked(returns(ref))]
pub fn slides_json(db: &dyn salsa::Database, tree: LangTree) -> Output {
    let fragments: Vec<Arc<str>> = published_decks(db, tree)
        .iter()
        .filter_map(|&file| deck_json(db, file).clone())
        .collect();
    let timeline = SlidesTimeline {
        lang: tree.lang(db).into(),
        total: fragments.len(),
        decks: Fragments,
    };
    Output::from_chunks(to_json_spliced(&timeline, json_array(fragments)))
}
