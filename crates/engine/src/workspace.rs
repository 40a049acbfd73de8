//! The one place that writes salsa inputs. Every setter is preceded by a comparison, because a
//! salsa setter always starts a new revision and invalidates readers, even when the value is
//! equal.
//!
//! It also maintains the index inputs (`index`, `members`) from the per-file summaries (so it
//! sits after `derive`): after each batch it sets the index entries of the changed posts.

mod index;
mod lists;
mod members;

use crate::config::SiteConfig;
use crate::content::{ContentPath, FileContents, FileRole, Scan, ScanProblem};
use crate::db::{Database, Globals, LangTree, Preview, SourceFile};
use crate::diag::Diagnostic;
use crate::model::Lang;
use crate::output::HistoryPaths;
use chrono::NaiveDate;
use index::{Indexes, Summary, summary};
use lists::Lists;
use rayon::prelude::*;
use salsa::{Durability, Setter};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The database plus the path → input table of the files that exist. salsa cannot delete an
/// input, and a dead input keeps its memos (parsed document, rendered fragments) until they run
/// again: a deleted file's input goes to a pool that the next new path reuses, so a session's
/// memory follows the files that exist, not every path it ever saw.
pub struct Workspace {
    db: Database,
    globals: Globals,
    files: HashMap<ContentPath, SourceFile>,
    /// What keeps the index inputs up to date as the content changes; `None` in a one-shot
    /// build, whose content never changes (the inputs hold everything its queries read, and the
    /// bookkeeping, a copy of every post's sort key per list, would only add to its peak memory).
    indexes: Option<Indexes>,
    /// The inputs created at the session's start (HIGH durability) and never edited since. The
    /// first edit of one of these gets a new input instead of a setter (see [`Workspace::put`]).
    loaded: HashSet<SourceFile>,
    /// Inputs of deleted files (edited in this session, so LOW), for new paths to reuse.
    free: Vec<SourceFile>,
    /// The inputs created in this session (LOW) of the files that exist: the indexes' copy
    /// (`Index::volatile`) is set when it changes.
    volatile: HashSet<SourceFile>,
}

/// Only a watch session changes its content: a one-shot build's workspace keeps no index
/// bookkeeping to change it with.
const ONE_SHOT: &str = "a one-shot (`Lifetime::Once`) workspace is never changed";

/// The index bookkeeping of a watch session's workspace, to update (a free function, so that
/// the database can be borrowed beside it).
fn watched(indexes: &mut Option<Indexes>) -> &mut Indexes {
    indexes.as_mut().expect(ONE_SHOT)
}

/// What one change did to the inputs.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Paths whose input changed (created, modified or deleted).
    pub changed: Vec<ContentPath>,
    /// Whether a file appeared or disappeared (the file lists changed then).
    pub structural: bool,
}

/// What `Workspace::put` did to one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staged {
    /// The same contents as before: nothing was set.
    Unchanged,
    /// New contents for a file that existed.
    Modified,
    /// The file now exists (created, or recreated after a deletion).
    Appeared,
    /// The file is gone (its input leaves the table).
    Disappeared,
}

/// How long the inputs are expected to stay as they are. salsa skips re-validating a query that
/// depends only on inputs more durable than the ones that changed, so durability is what keeps
/// an edit's cost proportional to what it affects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifetime {
    /// A one-shot build: nothing ever changes, so no dependency on an input is recorded.
    Once,
    /// A watch session: files as loaded are HIGH, the file lists MEDIUM (they change when a file
    /// is created or deleted), and a file edited during the session becomes LOW.
    Watch,
}

impl Lifetime {
    fn files(self) -> Durability {
        match self {
            Lifetime::Once => Durability::NEVER_CHANGE,
            Lifetime::Watch => Durability::HIGH,
        }
    }

    fn lists(self) -> Durability {
        match self {
            Lifetime::Once => Durability::NEVER_CHANGE,
            Lifetime::Watch => Durability::MEDIUM,
        }
    }

    /// The post lists (each language's post files, the published lists, a tag's posts): set by
    /// a file's first edit, so LOW (see `index::LIST_DURABILITY`).
    fn post_lists(self) -> Durability {
        match self {
            Lifetime::Once => Durability::NEVER_CHANGE,
            Lifetime::Watch => index::LIST_DURABILITY,
        }
    }

    fn settings(self) -> Durability {
        match self {
            Lifetime::Once => Durability::NEVER_CHANGE,
            Lifetime::Watch => Durability::HIGH,
        }
    }
}

impl Workspace {
    /// A workspace holding `scan`, the result of walking the content folder.
    pub fn new(
        config: Arc<SiteConfig>,
        today: NaiveDate,
        preview: impl Into<Preview>,
        scan: Scan,
        lifetime: Lifetime,
        published: HistoryPaths,
    ) -> Workspace {
        Workspace::with_database(
            Database::default(),
            config,
            today,
            preview,
            scan,
            lifetime,
            published,
        )
    }

    /// Like [`Workspace::new`], on a given database (tests pass a recording one).
    pub fn with_database(
        db: Database,
        config: Arc<SiteConfig>,
        today: NaiveDate,
        preview: impl Into<Preview>,
        scan: Scan,
        lifetime: Lifetime,
        published: HistoryPaths,
    ) -> Workspace {
        let mut files = HashMap::with_capacity(scan.files.len());
        let mut lists = Lists::new(&config.languages);
        // The scan is sorted by path, so the lists come out sorted.
        for scanned in scan.files {
            if scanned.contents != FileContents::Missing {
                let file = SourceFile::builder(
                    scanned.path.clone(),
                    scanned.role.clone(),
                    scanned.contents,
                )
                .durability(lifetime.files())
                .new(&db);
                lists.push(&scanned.path, &scanned.role, file);
                files.insert(scanned.path, file);
            }
        }
        let unread = lists.unread_languages(&config.languages);
        // Every input is created with its final value: no setter, so no new revision.
        let trees = lang_trees(&db, &mut lists, lifetime);
        let problems: Arc<[Diagnostic]> = scan.problems.iter().map(scan_problem).collect();
        let preview = preview.into();
        let site = Globals::builder(
            config,
            today,
            preview.drafts,
            preview.future,
            trees,
            lists.tags.into(),
            lists.series.into(),
            lists.skills.into(),
            problems,
            unread,
            published,
        )
        .durability(lifetime.lists())
        // The tag, series and skill files change like settings, not like the post lists: every
        // post's entry reads the tag tiers and every series chapter its series. At MEDIUM, the
        // first edit of any post (which sets the post lists) would make salsa re-validate
        // every post's outputs through them.
        .tags_durability(lifetime.settings())
        .series_durability(lifetime.settings())
        .skills_durability(lifetime.settings())
        .config_durability(lifetime.settings())
        .trees_durability(lifetime.settings())
        .today_durability(lifetime.settings())
        .drafts_durability(lifetime.settings())
        .future_durability(lifetime.settings())
        .new(&db);
        // The indexes are set on an edit's first touch of a file (they hold its input), so they
        // are as durable as the lists (the post lists LOW, the name maps MEDIUM), not as the files.
        let indexes = build_indexes(&db, site, lifetime);
        let indexes = (lifetime == Lifetime::Watch).then_some(indexes);
        let loaded = match lifetime {
            Lifetime::Once => HashSet::new(),
            Lifetime::Watch => files.values().copied().collect(),
        };
        Workspace {
            db,
            globals: site,
            files,
            indexes,
            loaded,
            free: Vec::new(),
            volatile: HashSet::new(),
        }
    }

    /// The index bookkeeping of a watch session's workspace.
    fn indexes(&self) -> &Indexes {
        self.indexes.as_ref().expect(ONE_SHOT)
    }

    /// The database, for evaluating queries.
    pub fn db(&self) -> &Database {
        &self.db
    }

    /// The global input (configuration, date, file lists, history).
    pub fn globals(&self) -> Globals {
        self.globals
    }

    /// The input for `path`, if the file exists.
    pub fn file(&self, path: &ContentPath) -> Option<SourceFile> {
        self.files.get(path).copied()
    }

    /// The current text of `path`, for rendering a diagnostic's source line (of a post whose
    /// body was left on disk, the text up to its body: where every diagnostic of a post is).
    pub fn text_of(&self, path: &str) -> Option<&str> {
        let path = ContentPath::new(path)?;
        self.files
            .get(&path)?
            .contents(&self.db)
            .parsed_text()
            .map(|text| text.as_str())
    }

    /// The xxh3-64 hash of the whole file at `path` as this workspace read it.
    pub fn file_digest(&self, path: &str) -> Option<u64> {
        let path = ContentPath::new(path)?;
        self.files.get(&path)?.contents(&self.db).file_digest()
    }

    /// The contents salsa holds for `path` (`Missing` for a file that does not exist).
    pub fn contents_of(&self, path: &ContentPath) -> FileContents {
        self.files.get(path).map_or(FileContents::Missing, |file| {
            file.contents(&self.db).clone()
        })
    }

    /// Every path that currently exists, in no particular order.
    pub fn existing_paths(&self) -> impl Iterator<Item = &ContentPath> {
        self.files.keys()
    }

    /// Moves the site's date. Every post's visibility may change, so every summary is read
    /// again (the unchanged ones leave the indexes as they are).
    pub fn set_today(&mut self, today: NaiveDate) -> bool {
        if self.globals.today(&self.db) == today {
            return false;
        }
        self.globals
            .set_today(&mut self.db)
            .with_durability(Durability::HIGH)
            .to(today);
        let posts: Vec<(Lang, SourceFile)> = self
            .globals
            .trees(&self.db)
            .iter()
            .flat_map(|&tree| {
                let lang = tree.lang(&self.db);
                tree.posts(&self.db)
                    .iter()
                    .map(move |file| (lang, *file))
                    .collect::<Vec<_>>()
            })
            .chain(self.indexes().published_files(&self.db))
            .collect();
        watched(&mut self.indexes).update(&mut self.db, posts, []);
        true
    }

    /// Brings the indexes up to date with the posts at `paths` and the deleted posts of `gone`
    /// (after a batch of changes; paths that are not posts are ignored).
    fn refresh_indexes<'a>(
        &mut self,
        paths: impl IntoIterator<Item = &'a ContentPath>,
        gone: &[(ContentPath, SourceFile)],
    ) {
        let db = &self.db;
        let lang_of = |file: SourceFile| match file.role(db) {
            FileRole::Post { lang, .. } => Some(*lang),
            _ => None,
        };
        let posts: Vec<(Lang, SourceFile)> = paths
            .into_iter()
            .filter_map(|path| {
                let file = *self.files.get(path)?;
                Some((lang_of(file)?, file))
            })
            .collect();
        let deleted: Vec<(Lang, SourceFile)> = gone
            .iter()
            .filter_map(|(_, file)| Some((lang_of(*file)?, *file)))
            .collect();
        if !posts.is_empty() || !deleted.is_empty() {
            watched(&mut self.indexes).update(&mut self.db, posts, deleted);
        }
    }

    /// Sets the configuration; false (and nothing set) when it is equal to the current one. A
    /// change of the site's languages gives each language its tree and index anew, as a build
    /// would have made them.
    pub fn set_config(&mut self, config: Arc<SiteConfig>) -> bool {
        let current = self.globals.config(&self.db).clone();
        if *current == *config {
            return false;
        }
        let languages_changed = current.languages != config.languages;
        let roles_changed = languages_changed || current.layout != config.layout;
        self.globals
            .set_config(&mut self.db)
            .with_durability(Durability::HIGH)
            .to(config.clone());
        if roles_changed {
            // A suffix (`post.fr.md`) is a language only on a site that has it.
            for (path, file) in &self.files {
                let role = config.classify(path);
                if *file.role(&self.db) != role {
                    file.set_role(&mut self.db)
                        .with_durability(Durability::HIGH)
                        .to(role);
                }
            }
        }
        if roles_changed {
            let mut lists = Lists::collect(&self.db, &self.files, &config.languages);
            self.set_unread_languages(lists.unread_languages(&config.languages));
            let trees = lang_trees(&self.db, &mut lists, Lifetime::Watch);
            self.globals
                .set_trees(&mut self.db)
                .with_durability(Durability::HIGH)
                .to(trees);
            if let Some(indexes) = &mut self.indexes {
                let summaries = summaries(&self.db, self.globals);
                indexes.rebuild(&mut self.db, summaries);
            }
        }
        true
    }

    fn set_unread_languages(&mut self, unread: Arc<[Diagnostic]>) {
        if **self.globals.unread_languages(&self.db) != *unread {
            self.globals
                .set_unread_languages(&mut self.db)
                .with_durability(Durability::MEDIUM)
                .to(unread);
        }
    }

    /// Sets the API paths published so far (after each publish, from `write::Report`). Only a
    /// different set reaches salsa, so `_redirects` re-renders only when the history grows.
    pub fn set_history_paths(&mut self, published: HistoryPaths) -> bool {
        let current = self.globals.history_paths(&self.db);
        // The publisher hands back the same list while the history does not grow.
        if Arc::ptr_eq(current, &published) || **current == *published {
            return false;
        }
        self.globals
            .set_history_paths(&mut self.db)
            .with_durability(Durability::MEDIUM)
            .to(published);
        true
    }

    /// The problems found while walking the content folder, and their setter (a full scan
    /// replaces them all; staging a path, those at the path).
    pub fn scan_problems(&self) -> Arc<[Diagnostic]> {
        self.globals.scan_problems(&self.db).clone()
    }
    /// Replaces the walk's problems; an equal list changes nothing, so no query reruns.
    pub fn set_scan_problems(&mut self, problems: Arc<[Diagnostic]>) {
        if **self.globals.scan_problems(&self.db) != *problems {
            self.globals
                .set_scan_problems(&mut self.db)
                .with_durability(Durability::MEDIUM)
                .to(problems);
        }
    }

    /// Sets the contents of every path of `changes`, then brings the file lists (when a file
    /// appeared or disappeared) and the indexes up to date. This is how watch mode changes the
    /// content: one call per batch, so the lists and indexes are recomputed once.
    pub fn apply(
        &mut self,
        changes: impl IntoIterator<Item = (ContentPath, FileContents)>,
    ) -> Applied {
        let mut applied = Applied::default();
        let mut replaced = HashMap::new();
        let mut gone = Vec::new();
        for (path, contents) in changes {
            match self.put(path.clone(), contents, &mut replaced, &mut gone) {
                Staged::Unchanged => continue,
                Staged::Appeared | Staged::Disappeared => applied.structural = true,
                Staged::Modified => {}
            }
            applied.changed.push(path);
        }
        if !replaced.is_empty() {
            Lists::replace_inputs(&mut self.db, self.globals, &replaced);
            watched(&mut self.indexes).replace(&mut self.db, &replaced);
        }
        if applied.structural {
            let languages = self.globals.config(&self.db).languages.clone();
            let lists = Lists::collect(&self.db, &self.files, &languages);
            self.set_unread_languages(lists.unread_languages(&languages));
            lists.set_where_different(&mut self.db, self.globals);
        }
        self.refresh_indexes(applied.changed.clone().iter(), &gone);
        // An input joins the set when created (a first edit, a new path) and leaves it when its
        // file is deleted: the set can only have changed then.
        if !replaced.is_empty() || applied.structural {
            watched(&mut self.indexes).set_volatile(&mut self.db, &self.volatile);
        }
        // Out of every list and index now: free for the next new path. An input loaded at the
        // start stays out of the pool, because setting it would lower its HIGH durability.
        self.free.extend(
            gone.into_iter()
                .map(|(_, file)| file)
                .filter(|file| !self.loaded.remove(file)),
        );
        applied
    }

    /// Sets one path's contents (creating its input on first sight) at LOW durability: a file
    /// being edited is likely to change again. The lists and indexes are left to the caller
    /// ([`Workspace::apply`]).
    ///
    /// The first edit of a file loaded at the start gets a new input (recorded in `replaced`,
    /// old → new) rather than a setter. Setting a HIGH input makes salsa treat every HIGH
    /// value as possibly stale, so the next rebuild would re-validate every memo of every file
    /// of the corpus. A new input starts no revision at all; the caller then swaps it into the
    /// lists and indexes that held the old one, which are MEDIUM, so only what reads those is
    /// re-validated, and every other file's values are verified by durability.
    ///
    /// A deleted file's input leaves the table untouched (into `gone`): nothing reads it once
    /// the lists and indexes drop it, and [`Workspace::apply`] then pools it for reuse.
    fn put(
        &mut self,
        path: ContentPath,
        contents: FileContents,
        replaced: &mut HashMap<SourceFile, SourceFile>,
        gone: &mut Vec<(ContentPath, SourceFile)>,
    ) -> Staged {
        let missing = FileContents::Missing;
        match self.files.get(&path) {
            Some(&file) if contents == missing => {
                self.files.remove(&path);
                self.volatile.remove(&file);
                gone.push((path, file));
                Staged::Disappeared
            }
            Some(&file) => {
                if *file.contents(&self.db) == contents {
                    return Staged::Unchanged;
                }
                let staged = Staged::Modified;
                if self.loaded.remove(&file) {
                    let role = file.role(&self.db).clone();
                    let new = SourceFile::builder(path.clone(), role, contents)
                        .durability(Durability::LOW)
                        .new(&self.db);
                    self.files.insert(path, new);
                    self.volatile.insert(new);
                    replaced.insert(file, new);
                } else {
                    file.set_contents(&mut self.db)
                        .with_durability(Durability::LOW)
                        .to(contents);
                }
                staged
            }
            None if contents == missing => Staged::Unchanged,
            None => {
                let role = self.globals.config(&self.db).classify(&path);
                let file = match self.free.pop() {
                    Some(file) => {
                        let db = &mut self.db;
                        file.set_path(db)
                            .with_durability(Durability::LOW)
                            .to(path.clone());
                        file.set_role(db).with_durability(Durability::LOW).to(role);
                        file.set_contents(db)
                            .with_durability(Durability::LOW)
                            .to(contents);
                        file
                    }
                    None => SourceFile::builder(path.clone(), role, contents)
                        .durability(Durability::LOW)
                        .new(&self.db),
                };
                self.files.insert(path, file);
                self.volatile.insert(file);
                Staged::Appeared
            }
        }
    }
}

/// A walk problem as a diagnostic.
pub fn scan_problem(problem: &ScanProblem) -> Diagnostic {
    let diagnostic = if problem.is_error {
        Diagnostic::error(problem.path.clone(), problem.message.clone())
    } else {
        Diagnostic::warning(problem.path.clone(), problem.message.clone())
    };
    diagnostic.help(problem.help.clone())
}

/// One tree input per language of `lists`, in their order, holding (and emptying) its lists.
fn lang_trees(db: &Database, lists: &mut Lists, lifetime: Lifetime) -> Arc<[LangTree]> {
    lists
        .langs
        .iter_mut()
        .map(|(lang, posts, decks)| {
            let (posts, decks) = (std::mem::take(posts), std::mem::take(decks));
            LangTree::builder(*lang, posts.into(), decks.into())
                .durability(lifetime.lists())
                .posts_durability(lifetime.post_lists())
                .new(db)
        })
        .collect()
}

/// Every language's published posts with their summaries (read in parallel), in the site's
/// order.
fn summaries(db: &Database, site: Globals) -> Vec<(Lang, Vec<(SourceFile, Summary)>)> {
    site.trees(db)
        .iter()
        .map(|tree| {
            let posts = tree
                .posts(db)
                .par_iter()
                .with_min_len(64)
                .map_with(db.clone(), |db, &file| summary(db, file).map(|s| (file, s)))
                .flatten()
                .collect::<Vec<_>>();
            (tree.lang(db), posts)
        })
        .collect()
}

/// Reads every post's summary (in parallel) and builds the indexes.
fn build_indexes(db: &Database, site: Globals, lifetime: Lifetime) -> Indexes {
    Indexes::build(
        db,
        summaries(db, site),
        lifetime.post_lists(),
        lifetime.lists(),
    )
}
