//! The per-kind file lists (`LangTree::posts`/`decks`, `Site::tags`/`series`/`skills`) as
//! [`Lists`]: made equal to the path table after a file appeared or disappeared, and given a
//! file's new input at its first edit. Set only when a list differs: the post lists at LOW
//! ([`LIST_DURABILITY`]), the deck lists at MEDIUM, the tag, series and skill lists at HIGH (see
//! `Workspace::new`).

use super::index::LIST_DURABILITY;
use crate::content::{ContentPath, FileContents, FileRole, classify};
use crate::db::{Database, Site, SourceFile};
use crate::model::Lang;
use salsa::{Durability, Setter};
use std::collections::HashMap;
use std::sync::Arc;

/// The existing content files by kind, each list sorted by path: what the `LangTree`s and
/// `Site` hold.
#[derive(Default)]
pub(super) struct Lists {
    pub(super) en_posts: Vec<SourceFile>,
    pub(super) es_posts: Vec<SourceFile>,
    pub(super) en_decks: Vec<SourceFile>,
    pub(super) es_decks: Vec<SourceFile>,
    pub(super) tags: Vec<SourceFile>,
    pub(super) series: Vec<SourceFile>,
    pub(super) skills: Vec<SourceFile>,
}

impl Lists {
    /// The existing files of `files`, sorted by path, split by kind.
    pub(super) fn collect(db: &Database, files: &HashMap<ContentPath, SourceFile>) -> Lists {
        let mut existing: Vec<(&ContentPath, SourceFile)> = files
            .iter()
            .filter(|(_, file)| *file.contents(db) != FileContents::Missing)
            .map(|(path, file)| (path, *file))
            .collect();
        existing.sort_by(|a, b| a.0.cmp(b.0));
        let mut lists = Lists::default();
        for (path, file) in existing {
            lists.push(path, file);
        }
        lists
    }

    /// Appends `file` to the list of its kind (callers push in path order).
    pub(super) fn push(&mut self, path: &ContentPath, file: SourceFile) {
        match classify(path) {
            FileRole::Post { lang: Lang::En, .. } => self.en_posts.push(file),
            FileRole::Post { lang: Lang::Es, .. } => self.es_posts.push(file),
            FileRole::Deck { lang: Lang::En, .. } => self.en_decks.push(file),
            FileRole::Deck { lang: Lang::Es, .. } => self.es_decks.push(file),
            FileRole::Tag { .. } => self.tags.push(file),
            FileRole::Series { .. } => self.series.push(file),
            FileRole::Skill { .. } => self.skills.push(file),
            FileRole::Misplaced { .. } | FileRole::Ignored => {}
        }
    }

    /// Puts the new inputs of `replaced` (old → new) where the file lists of `site` hold the old
    /// ones. The paths are the same, so the lists stay sorted; only the lists that hold one are
    /// set.
    pub(super) fn replace_inputs(
        db: &mut Database,
        site: Site,
        replaced: &HashMap<SourceFile, SourceFile>,
    ) {
        let swap = |list: &Arc<[SourceFile]>| -> Option<Arc<[SourceFile]>> {
            list.iter()
                .any(|file| replaced.contains_key(file))
                .then(|| {
                    list.iter()
                        .map(|file| *replaced.get(file).unwrap_or(file))
                        .collect()
                })
        };
        let (en, es) = (site.en(db), site.es(db));
        let (medium, high) = (Durability::MEDIUM, Durability::HIGH);
        for tree in [en, es] {
            if let Some(posts) = swap(tree.posts(db)) {
                tree.set_posts(db)
                    .with_durability(LIST_DURABILITY)
                    .to(posts);
            }
            if let Some(decks) = swap(tree.decks(db)) {
                tree.set_decks(db).with_durability(medium).to(decks);
            }
        }
        if let Some(tags) = swap(site.tags(db)) {
            site.set_tags(db).with_durability(high).to(tags);
        }
        if let Some(series) = swap(site.series(db)) {
            site.set_series(db).with_durability(high).to(series);
        }
        if let Some(skills) = swap(site.skills(db)) {
            site.set_skills(db).with_durability(high).to(skills);
        }
    }

    /// Sets the file lists of `site` that differ from these.
    pub(super) fn set_where_different(self, db: &mut Database, site: Site) {
        let (en, es) = (site.en(db), site.es(db));
        if **en.posts(db) != *self.en_posts {
            en.set_posts(db)
                .with_durability(LIST_DURABILITY)
                .to(self.en_posts.into());
        }
        if **es.posts(db) != *self.es_posts {
            es.set_posts(db)
                .with_durability(LIST_DURABILITY)
                .to(self.es_posts.into());
        }
        if **en.decks(db) != *self.en_decks {
            en.set_decks(db)
                .with_durability(Durability::MEDIUM)
                .to(self.en_decks.into());
        }
        if **es.decks(db) != *self.es_decks {
            es.set_decks(db)
                .with_durability(Durability::MEDIUM)
                .to(self.es_decks.into());
        }
        if **site.tags(db) != *self.tags {
            site.set_tags(db)
                .with_durability(Durability::HIGH)
                .to(self.tags.into());
        }
        if **site.series(db) != *self.series {
            site.set_series(db)
                .with_durability(Durability::HIGH)
                .to(self.series.into());
        }
        if **site.skills(db) != *self.skills {
            site.set_skills(db)
                .with_durability(Durability::HIGH)
                .to(self.skills.into());
        }
    }
}
