//! The per-kind file lists (`LangTree::posts`/`decks`, `Globals::tags`/`series`/`skills`) as
//! [`Lists`]: made equal to the path table after a file appeared or disappeared, and given a
//! file's new input at its first edit. Set only when a list differs: the post lists at LOW
//! ([`LIST_DURABILITY`]), the deck lists at MEDIUM, the tag, series and skill lists at HIGH (see
//! `Workspace::new`).

use super::index::LIST_DURABILITY;
use crate::content::{ContentPath, FileContents, FileRole};
use crate::db::{Database, Globals, SourceFile};
use crate::diag::Diagnostic;
use crate::model::{Lang, Languages};
use salsa::{Durability, Setter};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The existing content files by kind, each list sorted by path: what the `LangTree`s and
/// `Globals` hold. Posts and decks in a language the site does not have are in no list (the
/// workspace reports them, `unread_languages`).
pub(super) struct Lists {
    /// Per language of the site, in the configuration's order: its posts and its decks.
    pub(super) langs: Vec<(Lang, Vec<SourceFile>, Vec<SourceFile>)>,
    pub(super) tags: Vec<SourceFile>,
    pub(super) series: Vec<SourceFile>,
    pub(super) skills: Vec<SourceFile>,
    /// The posts and decks in languages the site does not have, by folder (`blog/fr`).
    pub(super) unread: BTreeMap<String, (Lang, usize)>,
}

impl Lists {
    /// Empty lists for the site's languages.
    pub(super) fn new(languages: &Languages) -> Lists {
        Lists {
            langs: languages
                .all()
                .iter()
                .map(|&lang| (lang, Vec::new(), Vec::new()))
                .collect(),
            tags: Vec::new(),
            series: Vec::new(),
            skills: Vec::new(),
            unread: BTreeMap::new(),
        }
    }

    /// The existing files of `files`, sorted by path, split by kind.
    pub(super) fn collect(
        db: &Database,
        files: &HashMap<ContentPath, SourceFile>,
        languages: &Languages,
    ) -> Lists {
        let mut existing: Vec<(&ContentPath, SourceFile)> = files
            .iter()
            .filter(|(_, file)| *file.contents(db) != FileContents::Missing)
            .map(|(path, file)| (path, *file))
            .collect();
        existing.sort_by(|a, b| a.0.cmp(b.0));
        let mut lists = Lists::new(languages);
        for (path, file) in existing {
            lists.push(path, file.role(db), file);
        }
        lists
    }

    /// Appends `file` to the list of its kind (callers push in path order).
    pub(super) fn push(&mut self, path: &ContentPath, role: &FileRole, file: SourceFile) {
        match role {
            FileRole::Post { lang, .. } => self.push_in(*lang, path, file, true),
            FileRole::Deck { lang, .. } => self.push_in(*lang, path, file, false),
            FileRole::Tag { .. } => self.tags.push(file),
            FileRole::Series { .. } => self.series.push(file),
            FileRole::Skill { .. } => self.skills.push(file),
            FileRole::Misplaced { .. } | FileRole::Ignored => {}
        }
    }

    /// Appends a post (`is_post`) or a deck of `lang` to that language's list, or counts it
    /// among the files of a language the site does not have.
    fn push_in(&mut self, lang: Lang, path: &ContentPath, file: SourceFile, is_post: bool) {
        match self.langs.iter_mut().find(|(l, ..)| *l == lang) {
            Some((_, posts, _)) if is_post => posts.push(file),
            Some((_, _, decks)) => decks.push(file),
            None => {
                let folder = path.as_str().rsplit_once('/').map_or("", |(dir, _)| dir);
                self.unread.entry(folder.to_string()).or_insert((lang, 0)).1 += 1;
            }
        }
    }

    /// One warning per folder of a language the site does not have: its files are not read.
    pub(super) fn unread_languages(&self, languages: &Languages) -> Arc<[Diagnostic]> {
        self.unread
            .iter()
            .map(|(folder, (lang, count))| {
                let files = if *count == 1 { "file" } else { "files" };
                Diagnostic::warning(
                    format!("{folder}/"),
                    format!(
                        "{count} {files} in `{lang}`, which is not one of the site's languages ({}): not read",
                        languages.quoted()
                    ),
                )
                .help(format!(
                    "add \"{lang}\" to `languages` in watch.toml to publish them, or move them to a folder the site reads"
                ))
            })
            .collect()
    }

    /// Puts the new inputs of `replaced` (old → new) where the file lists of `site` hold the old
    /// ones. The paths are the same, so the lists stay sorted; only the lists that hold one are
    /// set.
    pub(super) fn replace_inputs(
        db: &mut Database,
        site: Globals,
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
        let (medium, high) = (Durability::MEDIUM, Durability::HIGH);
        for tree in site.trees(db).clone().iter().copied() {
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

    /// Sets the file lists of `site` that differ from these (whose languages are the site's).
    pub(super) fn set_where_different(self, db: &mut Database, site: Globals) {
        let trees = site.trees(db).clone();
        for (tree, (lang, posts, decks)) in trees.iter().copied().zip(self.langs) {
            debug_assert_eq!(tree.lang(db), lang);
            if **tree.posts(db) != *posts {
                tree.set_posts(db)
                    .with_durability(LIST_DURABILITY)
                    .to(posts.into());
            }
            if **tree.decks(db) != *decks {
                tree.set_decks(db)
                    .with_durability(Durability::MEDIUM)
                    .to(decks.into());
            }
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
