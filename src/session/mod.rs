//! A watch session: the workspace, the publisher, and the rules that make rebuilding safe.
//!
//! A batch of changed paths is re-read from disk and staged as *pending*. Pending changes are
//! applied to the database together; if the result has errors:
//!
//! 1. the changed files that carry errors go back to their last good version (they stay
//!    pending, and are retried with every batch);
//! 2. if errors remain (a deleted series that posts still name, a duplicate id), every pending
//!    change goes back, so the build stays at the last good state.
//!
//! So the database never holds an error once the session has published, and whatever is
//! published is a fresh build of some good state of the content. When the content is valid
//! again, every pending change is accepted and the output equals a fresh `--once` build.
//! Before the first successful publish there is no good state to fall back to: errors are
//! reported and nothing is written until the content builds.

use crate::build;
use crate::config::SiteConfig;
use crate::db::Database;
use crate::derive::file_diagnostics;
use crate::diag::Diagnostic;
use crate::source::{self, ContentPath, FileContents, FileRole, Scan, classify};
use crate::workspace::{Lifetime, Workspace};
use crate::write::{Publisher, Report, WriteError};
use chrono::NaiveDate;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the watcher reports: paths relative to the content folder, or "resynchronise".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// `/`-separated paths below the content folder (files or folders, existing or not).
    pub paths: BTreeSet<String>,
    /// The watcher lost events (queue overflow, or it says so): compare everything with disk.
    pub rescan: bool,
}

/// The effect of one rebuild.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Content paths whose new version the build now uses.
    pub accepted: Vec<ContentPath>,
    /// Content paths whose new version has errors: their last good version stays published.
    pub held_back: Vec<ContentPath>,
    /// Diagnostics not shown before (each is printed once while it persists).
    pub new_diagnostics: Vec<Diagnostic>,
    /// Errors in the current content (shown or not).
    pub errors: usize,
    /// What was written; `None` when nothing was published (no good state yet).
    pub report: Option<Report>,
    /// From the start of the rebuild to the last write.
    pub took: Duration,
}

impl Outcome {
    /// A rebuild that found nothing to do.
    fn unchanged(published: bool) -> Outcome {
        Outcome {
            report: published.then(Report::default),
            ..Outcome::default()
        }
    }

    /// True when nothing was accepted, held back, reported or written.
    pub fn is_noop(&self) -> bool {
        self.accepted.is_empty()
            && self.held_back.is_empty()
            && self.new_diagnostics.is_empty()
            && self.report.as_ref().is_some_and(Report::is_empty)
    }
}

pub struct Session {
    workspace: Workspace,
    publisher: Publisher,
    content_dir: PathBuf,
    /// Disk versions the database does not hold yet (see the module documentation).
    pending: BTreeMap<ContentPath, FileContents>,
    /// Diagnostics already shown, so that each is printed once while it persists.
    shown: HashSet<Diagnostic>,
    /// Whether a good state was ever published in this session.
    has_published: bool,
    /// Whether a rebuild ran since memory was last handed back (see [`Session::release_memory`]).
    freed_since_trim: bool,
}

impl Session {
    /// Scans the content folder and makes the first build.
    pub fn start(
        config: Arc<SiteConfig>,
        today: NaiveDate,
        drafts: bool,
    ) -> Result<(Session, Outcome), WriteError> {
        Session::start_with_database(Database::default(), config, today, drafts)
    }

    /// Like [`Session::start`] on a given database (tests pass a recording one).
    pub fn start_with_database(
        db: Database,
        config: Arc<SiteConfig>,
        today: NaiveDate,
        drafts: bool,
    ) -> Result<(Session, Outcome), WriteError> {
        let started = Instant::now();
        let content_dir = config.content_dir.as_std_path().to_owned();
        let publisher = Publisher::open(&config.out_dir)?;
        let scan = source::scan(&content_dir);
        let published = publisher.published();
        let workspace =
            Workspace::with_database(db, config, today, drafts, scan, Lifetime::Watch, published);
        let mut session = Session {
            workspace,
            publisher,
            content_dir,
            pending: BTreeMap::new(),
            shown: HashSet::new(),
            has_published: false,
            freed_since_trim: false,
        };
        let diagnostics = build::diagnostics(session.workspace.db());
        let mut outcome = session.publish_if_clean(&diagnostics, started)?;
        outcome.new_diagnostics = session.remember_shown(&diagnostics);
        release_freed_memory();
        Ok((session, outcome))
    }

    /// Hands the memory that rebuilds since the last call freed back to the OS. The daemon
    /// calls it when idle, so the cost stays out of the time from a save to its outputs.
    pub fn release_memory(&mut self) {
        if std::mem::take(&mut self.freed_since_trim) {
            release_freed_memory();
        }
    }

    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// For tests that record which queries execute.
    pub fn database(&self) -> &Database {
        self.workspace.db()
    }

    pub fn config(&self) -> &SiteConfig {
        self.workspace.site().config(self.workspace.db())
    }

    /// Re-reads what `batch` names and rebuilds. A batch that changes nothing (the disk holds
    /// what the build already uses) does no work and returns an empty outcome.
    pub fn apply(&mut self, batch: &Batch) -> Result<Outcome, WriteError> {
        let started = Instant::now();
        if batch.rescan {
            self.stage_scan(source::scan(&self.content_dir));
        } else {
            for path in &batch.paths {
                self.stage_path(path);
            }
        }
        if self.pending.is_empty() && !batch.rescan {
            return Ok(Outcome::unchanged(self.has_published));
        }
        self.rebuild(started)
    }

    /// Moves the site's date (scheduled posts go live) and rebuilds.
    pub fn set_today(&mut self, today: NaiveDate) -> Result<Outcome, WriteError> {
        let started = Instant::now();
        self.workspace.set_today(today);
        self.rebuild(started)
    }

    /// Applies a reloaded configuration (same content and output folders) and rebuilds.
    pub fn set_config(&mut self, config: Arc<SiteConfig>) -> Result<Outcome, WriteError> {
        let started = Instant::now();
        self.workspace.set_config(config);
        self.rebuild(started)
    }

    /// Rebuilds if the output folder lost its manifest (someone deleted the folder).
    pub fn repair_output(&mut self) -> Result<Option<Outcome>, WriteError> {
        if self.publisher.is_intact() {
            return Ok(None);
        }
        self.rebuild(Instant::now()).map(Some)
    }

    /// Records the disk version of `path` (a file or a folder, existing or not).
    fn stage_path(&mut self, relative: &str) {
        let disk_path = self.content_dir.join(relative);
        if disk_path.is_dir() {
            let scan = source::scan_under(&self.content_dir, relative);
            let found: HashSet<ContentPath> = scan.files.iter().map(|f| f.path.clone()).collect();
            for file in scan.files {
                self.stage(file.path, file.contents);
            }
            self.stage_missing_under(relative, &found);
            return;
        }
        if let Some(path) = ContentPath::new(relative)
            && !matches!(
                classify(&path),
                FileRole::Ignored | FileRole::Misplaced { .. }
            )
        {
            let contents = source::read_content(&self.content_dir, relative);
            self.stage(path, contents);
        }
        // Gone from disk: it may have been a folder (deleted or moved away), and every file
        // known below it is gone too. (A path that is a file has nothing below it.)
        if std::fs::symlink_metadata(&disk_path).is_err() {
            self.stage_missing_under(relative, &HashSet::new());
        }
    }

    /// Stages every known file below `folder` that is not in `found` as deleted.
    fn stage_missing_under(&mut self, folder: &str, found: &HashSet<ContentPath>) {
        let prefix = format!("{}/", folder.trim_end_matches('/'));
        let gone: Vec<ContentPath> = self
            .known_paths()
            .filter(|path| path.as_str().starts_with(&prefix) && !found.contains(path))
            .collect();
        for path in gone {
            self.stage(path, FileContents::Missing);
        }
    }

    /// Stages every difference between a full scan and what the session knows.
    fn stage_scan(&mut self, scan: Scan) {
        let found: HashSet<ContentPath> = scan.files.iter().map(|f| f.path.clone()).collect();
        let problems: Arc<[Diagnostic]> = scan
            .problems
            .iter()
            .map(crate::workspace::scan_problem)
            .collect();
        self.workspace.set_scan_problems(problems);
        for file in scan.files {
            self.stage(file.path, file.contents);
        }
        let gone: Vec<ContentPath> = self
            .known_paths()
            .filter(|path| !found.contains(path))
            .collect();
        for path in gone {
            self.stage(path, FileContents::Missing);
        }
    }

    /// Paths that exist in the database or are pending creation (a path may come twice).
    fn known_paths(&self) -> impl Iterator<Item = ContentPath> + '_ {
        let existing = self.workspace.existing_paths().cloned();
        let pending = self
            .pending
            .iter()
            .filter(|(_, contents)| **contents != FileContents::Missing)
            .map(|(path, _)| path.clone());
        existing.chain(pending)
    }

    fn stage(&mut self, path: ContentPath, contents: FileContents) {
        if self.workspace.contents_of(&path) == contents {
            self.pending.remove(&path);
        } else {
            self.pending.insert(path, contents);
        }
    }

    /// Applies the pending changes under the rules of the module documentation, then publishes.
    fn rebuild(&mut self, started: Instant) -> Result<Outcome, WriteError> {
        self.freed_since_trim = true;
        if !self.has_published {
            // No good state to fall back to: take everything, publish once it is clean.
            let pending = std::mem::take(&mut self.pending);
            let accepted: Vec<ContentPath> = pending.keys().cloned().collect();
            self.put_all(pending);
            let diagnostics = build::diagnostics(self.workspace.db());
            let mut outcome = self.publish_if_clean(&diagnostics, started)?;
            outcome.new_diagnostics = self.remember_shown(&diagnostics);
            outcome.accepted = accepted;
            return Ok(outcome);
        }
        let previous: BTreeMap<ContentPath, FileContents> = self
            .pending
            .keys()
            .map(|path| (path.clone(), self.workspace.contents_of(path)))
            .collect();
        let attempt = self.pending.clone();
        let structural = self.put_all(attempt.clone());
        let diagnostics = self.diagnostics_after(structural, attempt.keys());
        let broken: BTreeSet<&str> = diagnostics
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.path.as_str())
            .collect();
        let mut held_back: Vec<ContentPath> = Vec::new();
        if !broken.is_empty() {
            // 1. The changed files that carry errors go back to their last good version.
            let own: BTreeMap<ContentPath, FileContents> = previous
                .iter()
                .filter(|(path, _)| broken.contains(path.as_str()))
                .map(|(path, contents)| (path.clone(), contents.clone()))
                .collect();
            held_back.extend(own.keys().cloned());
            // Still structural if the attempt was: a deletion that stays in can break others.
            let still_structural = self.put_all(own) || structural;
            let rest: Vec<&ContentPath> =
                attempt.keys().filter(|p| !held_back.contains(p)).collect();
            let remaining = self.diagnostics_after(still_structural, rest.into_iter());
            // 2. Errors that no changed file carries: go back to the last good state entirely.
            if remaining.iter().any(Diagnostic::is_error) {
                let rest: BTreeMap<ContentPath, FileContents> = previous
                    .into_iter()
                    .filter(|(path, _)| !held_back.contains(path))
                    .collect();
                held_back.extend(rest.keys().cloned());
                self.put_all(rest);
            }
        }
        let accepted: Vec<ContentPath> = attempt
            .keys()
            .filter(|p| !held_back.contains(p))
            .cloned()
            .collect();
        for path in &accepted {
            self.pending.remove(path);
        }
        held_back.sort();
        tracing::debug!(
            "applied and checked {} changes in {:?}",
            attempt.len(),
            started.elapsed()
        );
        let report = self.publish()?;
        let new_diagnostics = self.remember_shown_for(&diagnostics, structural, attempt.keys());
        Ok(Outcome {
            accepted,
            held_back,
            errors: diagnostics.iter().filter(|d| d.is_error()).count(),
            new_diagnostics,
            report: Some(report),
            took: started.elapsed(),
        })
    }

    /// Puts every entry into the database; true when a file appeared or disappeared (the file
    /// lists were updated then).
    fn put_all(&mut self, changes: BTreeMap<ContentPath, FileContents>) -> bool {
        self.workspace.apply(changes).structural
    }

    /// The diagnostics that can have changed: every file's when files appeared or disappeared,
    /// else only the changed files' (editing contents cannot create an error elsewhere).
    fn diagnostics_after<'a>(
        &self,
        structural: bool,
        changed: impl Iterator<Item = &'a ContentPath>,
    ) -> Vec<Diagnostic> {
        if structural {
            return build::diagnostics(self.workspace.db()).to_vec();
        }
        let db = self.workspace.db();
        changed
            .filter_map(|path| self.workspace.file(path))
            .flat_map(|file| file_diagnostics(db, file))
            .collect()
    }

    fn publish_if_clean(
        &mut self,
        diagnostics: &[Diagnostic],
        started: Instant,
    ) -> Result<Outcome, WriteError> {
        let errors = diagnostics.iter().filter(|d| d.is_error()).count();
        let report = if errors == 0 {
            self.has_published = true;
            Some(self.publish()?)
        } else {
            None
        };
        Ok(Outcome {
            errors,
            report,
            took: started.elapsed(),
            ..Outcome::default()
        })
    }

    fn publish(&mut self) -> Result<Report, WriteError> {
        let started = Instant::now();
        let groups = build::refresh_groups(self.workspace.db());
        let rendered = started.elapsed();
        let report = self.publisher.publish_groups(&groups);
        // The history of published API paths grows; `_redirects` reads it at the next rebuild
        // (as a `--once` run on this folder would).
        if let Ok(report) = &report {
            self.workspace.set_published(report.published.clone());
        }
        tracing::debug!(
            "rendered {} output groups in {rendered:?}, published in {:?}",
            groups.len(),
            started.elapsed() - rendered
        );
        report
    }

    /// Replaces the shown set with `current` and returns what was not shown before.
    fn remember_shown(&mut self, current: &[Diagnostic]) -> Vec<Diagnostic> {
        let fresh: Vec<Diagnostic> = current
            .iter()
            .filter(|d| !self.shown.contains(*d))
            .cloned()
            .collect();
        self.shown = current.iter().cloned().collect();
        fresh
    }

    /// Like [`Session::remember_shown`], when `current` only covers the `changed` files (unless
    /// `structural`): what is known about other files stays.
    fn remember_shown_for<'a>(
        &mut self,
        current: &[Diagnostic],
        structural: bool,
        changed: impl Iterator<Item = &'a ContentPath>,
    ) -> Vec<Diagnostic> {
        if structural {
            return self.remember_shown(current);
        }
        let changed: HashSet<&str> = changed.map(ContentPath::as_str).collect();
        let fresh: Vec<Diagnostic> = current
            .iter()
            .filter(|d| !self.shown.contains(*d))
            .cloned()
            .collect();
        self.shown.retain(|d| !changed.contains(d.path.as_str()));
        self.shown.extend(current.iter().cloned());
        fresh
    }

    /// Renders a diagnostic with the text of its file when the database has it.
    pub fn render(&self, diagnostic: &Diagnostic, color: bool) -> String {
        let pending_text = ContentPath::new(&diagnostic.path)
            .and_then(|path| self.pending.get(&path))
            .and_then(FileContents::text);
        let text = pending_text.or_else(|| self.workspace.text_of(&diagnostic.path));
        diagnostic.render(text, color)
    }

    /// Paths whose disk version is not in the build yet (broken, or held back with a batch).
    pub fn pending_paths(&self) -> impl Iterator<Item = &ContentPath> {
        self.pending.keys()
    }
}

/// Hands the memory a full build freed (read buffers, per-worker database clones, transient
/// vectors) back to the operating system. glibc keeps freed heap for reuse, so without this a
/// daemon stays at its first build's peak resident size for its whole life.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's own heap to the OS.
    unsafe {
        libc::malloc_trim(0);
    }
}
