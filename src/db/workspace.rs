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

impl Workspace {
    /// A workspace for a watch session: its inputs change as files do. `published` is the
    /// output folder's history (`write::History::load(out_dir).published()`).
    pub fn new(
        config: Arc<SiteConfig>,
        today: NaiveDate,
        drafts: bool,
        scan: Scan,
        published: Published,
    ) -> Workspace {
        Workspace::with_database(
            Database::default(),
            config,
            today,
            drafts,
            scan,
            published,
            Durability::LOW,
        )
    }

    /// A workspace for a one-shot build. Its inputs never change, so salsa does not record
    /// dependencies on them (less time and memory); setting one would panic.
    pub fn frozen(
        config: Arc<SiteConfig>,
        today: NaiveDate,
        drafts: bool,
        scan: Scan,
        published: Published,
    ) -> Workspace {
        Workspace::with_database(
            Database::default(),
            config,
            today,
            drafts,
            scan,
            published,
            Durability::NEVER_CHANGE,
        )
    }

    /// A workspace on a given database (tests pass a recording one), with every input created
    /// at `durability`.
    pub fn with_database(
        db: Database,
        config: Arc<SiteConfig>,
        today: NaiveDate,
        drafts: bool,
        scan: Scan,
        published: Published,
        durability: Durability,
    ) -> Workspace {
        let mut files = HashMap::with_capacity(scan.files.len());
        let mut lists = Lists::default();
        // The scan is sorted by path, so the lists come out sorted.
        for scanned in scan.files {
            if scanned.contents != FileContents::Missing {
                let file = SourceFile::builder(scanned.path.clone(), scanned.contents)
                    .durability(durability)
                    .new(&db);
                lists.push(&scanned.path, file);
                files.insert(scanned.path, file);
            }
        }
        // Every input is created with its final value: no setter, so no new revision.
        let en = LangTree::builder(Lang::En, lists.en_posts.into(), lists.en_decks.into())
            .durability(durability)
            .new(&db);
        let es = LangTree::builder(Lang::Es, lists.es_posts.into(), lists.es_decks.into())
            .durability(durability)
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
        .durability(durability)
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

    pub fn set_today(&mut self, today: NaiveDate) -> bool {
        if self.site.today(&self.db) == today {
            return false;
        }
        self.site.set_today(&mut self.db).to(today);
        true
    }

    pub fn set_config(&mut self, config: Arc<SiteConfig>) -> bool {
        if **self.site.config(&self.db) == *config {
            return false;
        }
        self.site.set_config(&mut self.db).to(config);
        true
    }

    /// Sets the API paths published so far (after each publish, from `write::Report`). Only a
    /// different set reaches salsa, so `_redirects` re-renders only when the history grows.
    pub fn set_published(&mut self, published: Published) -> bool {
        if **self.site.published(&self.db) == *published {
            return false;
        }
        self.site.set_published(&mut self.db).to(published);
        true
    }

    /// Makes the inputs equal to a full scan of the content folder: the initial load, and the
    /// resynchronisation after a watcher rescan. Only differences reach salsa.
    pub fn sync_scan(&mut self, scan: Scan) -> Applied {
        let mut applied = Applied::default();
        let mut seen = std::collections::HashSet::with_capacity(scan.files.len());
        for scanned in scan.files {
            seen.insert(scanned.path.clone());
            if self.put(scanned.path.clone(), scanned.contents) {
                applied.changed.push(scanned.path);
            }
        }
        let gone: Vec<ContentPath> = self
            .files
            .iter()
            .filter(|(path, file)| {
                !seen.contains(*path) && *file.contents(&self.db) != FileContents::Missing
            })
            .map(|(path, _)| path.clone())
            .collect();
        for path in gone {
            self.put(path.clone(), FileContents::Missing);
            applied.changed.push(path);
        }
        let problems: Arc<[Diagnostic]> = scan.problems.iter().map(scan_problem).collect();
        if **self.site.scan_problems(&self.db) != *problems {
            self.site.set_scan_problems(&mut self.db).to(problems);
        }
        self.sync_lists();
        applied.changed.sort();
        applied
    }

    /// Sets one path's contents (creating its input on first sight). Returns whether anything
    /// changed. File lists are not updated: call [`Workspace::sync_lists`] after a batch.
    pub fn put(&mut self, path: ContentPath, contents: FileContents) -> bool {
        match self.files.get(&path) {
            Some(&file) => {
                if *file.contents(&self.db) == contents {
                    return false;
                }
                file.set_contents(&mut self.db).to(contents);
                true
            }
            None if contents == FileContents::Missing => false,
            None => {
                let file = SourceFile::new(&self.db, path.clone(), contents);
                self.files.insert(path, file);
                true
            }
        }
    }

    /// Recomputes the per-kind file lists from the table (existing files only, sorted by path)
    /// and sets the ones that differ.
    pub fn sync_lists(&mut self) {
        let lists = Lists::collect(&self.db, &self.files);
        let (en, es) = (self.site.en(&self.db), self.site.es(&self.db));
        set_if_changed(
            &mut self.db,
            lists.en_posts,
            |db| en.posts(db),
            |db, v| {
                en.set_posts(db).to(v);
            },
        );
        set_if_changed(
            &mut self.db,
            lists.es_posts,
            |db| es.posts(db),
            |db, v| {
                es.set_posts(db).to(v);
            },
        );
        set_if_changed(
            &mut self.db,
            lists.en_decks,
            |db| en.decks(db),
            |db, v| {
                en.set_decks(db).to(v);
            },
        );
        set_if_changed(
            &mut self.db,
            lists.es_decks,
            |db| es.decks(db),
            |db, v| {
                es.set_decks(db).to(v);
            },
        );
        let site = self.site;
        set_if_changed(
            &mut self.db,
            lists.tags,
            |db| site.tags(db),
            |db, v| {
                site.set_tags(db).to(v);
            },
        );
        set_if_changed(
            &mut self.db,
            lists.series,
            |db| site.series(db),
            |db, v| {
                site.set_series(db).to(v);
            },
        );
        set_if_changed(
            &mut self.db,
            lists.skills,
            |db| site.skills(db),
            |db, v| {
                site.set_skills(db).to(v);
            },
        );
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

fn set_if_changed(
    db: &mut Database,
    new: Vec<SourceFile>,
    get: impl Fn(&Database) -> &Arc<[SourceFile]>,
    set: impl FnOnce(&mut Database, Arc<[SourceFile]>),
) {
    if **get(db) != *new {
        set(db, new.into());
    }
}

fn scan_problem(problem: &ScanProblem) -> Diagnostic {
    let diagnostic = if problem.is_error {
        Diagnostic::error(problem.path.clone(), problem.message.clone())
    } else {
        Diagnostic::warning(problem.path.clone(), problem.message.clone())
    };
    diagnostic.help(problem.help.clone())
}
