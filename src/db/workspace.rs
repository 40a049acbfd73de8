//! The one place that writes salsa inputs. Every setter is preceded by a comparison, because a
//! salsa setter always starts a new revision and invalidates readers, even when the value is
//! equal.

use super::Database;
use super::inputs::{LangTree, Published, Site, SourceFile};
use crate::config::SiteConfig;
use crate::diag::Diagnostic;
use crate::model::Lang;
use crate::source::{ContentPath, FileContents, FileRole, Scan, ScanProblem, classify};
use chrono::NaiveDate;
use salsa::{Durability, Setter};
use std::collections::HashMap;
use std::sync::Arc;

/// The database plus the path → input table. Paths that were deleted keep their input (with
/// `FileContents::Missing`), so recreating a file reuses it.
pub struct Workspace {
    db: Database,
    site: Site,
    files: HashMap<ContentPath, SourceFile>,
}

/// What one change did to the inputs.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Applied {
    /// Paths whose input changed (created, modified or deleted).
    pub changed: Vec<ContentPath>,
}

/// What [`Workspace::put`] did to one path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staged {
    Unchanged,
    Modified,
    /// The file now exists (created, or recreated after a deletion).
    Appeared,
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
        drafts: bool,
        scan: Scan,
        lifetime: Lifetime,
        published: Published,
    ) -> Workspace {
        Workspace::with_database(
            Database::default(),
            config,
            today,
            drafts,
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
        drafts: bool,
        scan: Scan,
        lifetime: Lifetime,
        published: Published,
    ) -> Workspace {
        let mut files = HashMap::with_capacity(scan.files.len());
        let mut lists = Lists::default();
        // The scan is sorted by path, so the lists come out sorted.
        for scanned in scan.files {
            if scanned.contents != FileContents::Missing {
                let file = SourceFile::builder(scanned.path.clone(), scanned.contents)
                    .durability(lifetime.files())
                    .new(&db);
                lists.push(&scanned.path, file);
                files.insert(scanned.path, file);
            }
        }
        // Every input is created with its final value: no setter, so no new revision.
        let en = LangTree::builder(Lang::En, lists.en_posts.into(), lists.en_decks.into())
            .durability(lifetime.lists())
            .new(&db);
        let es = LangTree::builder(Lang::Es, lists.es_posts.into(), lists.es_decks.into())
            .durability(lifetime.lists())
            .new(&db);
        let problems: Arc<[Diagnostic]> = scan.problems.iter().map(scan_problem).collect();
        let site = Site::builder(
            config,
            today,
            drafts,
            en,
            es,
            lists.tags.into(),
            lists.series.into(),
            lists.skills.into(),
            problems,
            published,
        )
        .durability(lifetime.lists())
        .config_durability(lifetime.settings())
        .today_durability(lifetime.settings())
        .drafts_durability(lifetime.settings())
        .new(&db);
        Workspace { db, site, files }
    }

    pub fn db(&self) -> &Database {
        &self.db
    }

    /// For tests that assert which queries re-ran.
    pub fn db_mut(&mut self) -> &mut Database {
        &mut self.db
    }

    pub fn site(&self) -> Site {
        self.site
    }

    /// The input for `path`, if the path was ever seen.
    pub fn file(&self, path: &ContentPath) -> Option<SourceFile> {
        self.files.get(path).copied()
    }

    /// The current text of `path`, for rendering a diagnostic's source line.
    pub fn text_of(&self, path: &str) -> Option<&str> {
        let path = ContentPath::new(path)?;
        self.files.get(&path)?.contents(&self.db).text()
    }

    /// The contents salsa holds for `path` (`Missing` for a path never seen).
    pub fn contents_of(&self, path: &ContentPath) -> FileContents {
        self.files.get(path).map_or(FileContents::Missing, |file| {
            file.contents(&self.db).clone()
        })
    }

    /// Every path that currently exists, in no particular order.
    pub fn existing_paths(&self) -> impl Iterator<Item = &ContentPath> {
        self.files
            .iter()
            .filter(|(_, file)| *file.contents(&self.db) != FileContents::Missing)
            .map(|(path, _)| path)
    }

    pub fn set_today(&mut self, today: NaiveDate) -> bool {
        if self.site.today(&self.db) == today {
            return false;
        }
        self.site
            .set_today(&mut self.db)
            .with_durability(Durability::HIGH)
            .to(today);
        true
    }

    pub fn set_config(&mut self, config: Arc<SiteConfig>) -> bool {
        if **self.site.config(&self.db) == *config {
            return false;
        }
        self.site
            .set_config(&mut self.db)
            .with_durability(Durability::HIGH)
            .to(config);
        true
    }

    /// Sets the API paths published so far (after each publish, from `write::Report`). Only a
    /// different set reaches salsa, so `_redirects` re-renders only when the history grows.
    pub fn set_published(&mut self, published: Published) -> bool {
        if **self.site.published(&self.db) == *published {
            return false;
        }
        self.site
            .set_published(&mut self.db)
            .with_durability(Durability::MEDIUM)
            .to(published);
        true
    }

    /// Makes the inputs equal to a full scan of the content folder: the resynchronisation after
    /// a watcher rescan. Only differences reach salsa.
    pub fn sync_scan(&mut self, scan: Scan) -> Applied {
        let mut applied = Applied::default();
        let mut seen = std::collections::HashSet::with_capacity(scan.files.len());
        for scanned in scan.files {
            seen.insert(scanned.path.clone());
            if self.put(scanned.path.clone(), scanned.contents) != Staged::Unchanged {
                applied.changed.push(scanned.path);
            }
        }
        let gone: Vec<ContentPath> = self
            .existing_paths()
            .filter(|path| !seen.contains(*path))
            .cloned()
            .collect();
        for path in gone {
            self.put(path.clone(), FileContents::Missing);
            applied.changed.push(path);
        }
        let problems: Arc<[Diagnostic]> = scan.problems.iter().map(scan_problem).collect();
        self.set_scan_problems(problems);
        self.sync_lists();
        applied.changed.sort();
        applied
    }

    /// Replaces the problems found while walking (set by a full scan).
    pub fn set_scan_problems(&mut self, problems: Arc<[Diagnostic]>) {
        if **self.site.scan_problems(&self.db) != *problems {
            self.site
                .set_scan_problems(&mut self.db)
                .with_durability(Durability::MEDIUM)
                .to(problems);
        }
    }

    /// Sets one path's contents (creating its input on first sight) at LOW durability: a file
    /// being edited is likely to change again. File lists are not updated here: call
    /// [`Workspace::sync_lists`] after a batch in which a file appeared or disappeared.
    pub fn put(&mut self, path: ContentPath, contents: FileContents) -> Staged {
        let missing = FileContents::Missing;
        match self.files.get(&path) {
            Some(&file) => {
                let old = file.contents(&self.db);
                if *old == contents {
                    return Staged::Unchanged;
                }
                let staged = match (*old == missing, contents == missing) {
                    (true, false) => Staged::Appeared,
                    (false, true) => Staged::Disappeared,
                    _ => Staged::Modified,
                };
                file.set_contents(&mut self.db)
                    .with_durability(Durability::LOW)
                    .to(contents);
                staged
            }
            None if contents == missing => Staged::Unchanged,
            None => {
                let file = SourceFile::builder(path.clone(), contents)
                    .durability(Durability::LOW)
                    .new(&self.db);
                self.files.insert(path, file);
                Staged::Appeared
            }
        }
    }

    /// Recomputes the per-kind file lists from the table (existing files only, sorted by path)
    /// and sets the ones that differ, at MEDIUM durability.
    pub fn sync_lists(&mut self) {
        let lists = Lists::collect(&self.db, &self.files);
        let (en, es, site) = (self.site.en(&self.db), self.site.es(&self.db), self.site);
        let db = &mut self.db;
        if **en.posts(db) != *lists.en_posts {
            en.set_posts(db)
                .with_durability(Durability::MEDIUM)
                .to(lists.en_posts.into());
        }
        if **es.posts(db) != *lists.es_posts {
            es.set_posts(db)
                .with_durability(Durability::MEDIUM)
                .to(lists.es_posts.into());
        }
        if **en.decks(db) != *lists.en_decks {
            en.set_decks(db)
                .with_durability(Durability::MEDIUM)
                .to(lists.en_decks.into());
        }
        if **es.decks(db) != *lists.es_decks {
            es.set_decks(db)
                .with_durability(Durability::MEDIUM)
                .to(lists.es_decks.into());
        }
        if **site.tags(db) != *lists.tags {
            site.set_tags(db)
                .with_durability(Durability::MEDIUM)
                .to(lists.tags.into());
        }
        if **site.series(db) != *lists.series {
            site.set_series(db)
                .with_durability(Durability::MEDIUM)
                .to(lists.series.into());
        }
        if **site.skills(db) != *lists.skills {
            site.set_skills(db)
                .with_durability(Durability::MEDIUM)
                .to(lists.skills.into());
        }
    }
}

#[derive(Default)]
struct Lists {
    en_posts: Vec<SourceFile>,
    es_posts: Vec<SourceFile>,
    en_decks: Vec<SourceFile>,
    es_decks: Vec<SourceFile>,
    tags: Vec<SourceFile>,
    series: Vec<SourceFile>,
    skills: Vec<SourceFile>,
}

impl Lists {
    /// The existing files of `files`, sorted by path, split by kind.
    fn collect(db: &Database, files: &HashMap<ContentPath, SourceFile>) -> Lists {
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
    fn push(&mut self, path: &ContentPath, file: SourceFile) {
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
