//! A watch session: the workspace, the publisher, and the rules that make rebuilding safe.
//!
//! A batch of changed paths is re-read from disk and staged as *pending*. Pending changes are
//! applied to the database together; if the result has errors:
//!
//! 1. the changed files that carry errors go back to their last good version (they stay
//!    pending, and are retried with every batch);
//! 2. if errors remain (a deleted series that posts still name, a duplicate id), every pending
//!    change goes back, so the build stays at the last good state. A walk's problem at a file
//!    of step 1 (a link to a post that was renamed away) is that file's own, whatever version
//!    of it the database holds: it is not such an error, and the rest of the batch (the
//!    rename) goes through, blaming only the link, as a fresh build does.
//!
//! So the database never holds an error once the session has published, and whatever is
//! published is a fresh build of some good state of the content. When the content is valid
//! again, every pending change is accepted and the output equals a fresh `--once` build.
//! Before the first successful publish there is no good state to fall back to: errors are
//! reported and nothing is written until the content builds.
//!
//! With lanes ([`Session::use_lanes`], watch mode), a rebuild publishes the API lane (the API,
//! everything that must agree with it, the edited posts' own outputs) and leaves the large
//! aggregate documents as they were; [`Session::publish_documents`] brings them up to date
//! when the caller decides (after a pause in the edits). Every publish hands the publisher the
//! whole set of files, so the manifest is right after each lane.
//!
//! A session records nothing, but it keeps the deploy record a recorded build left in the
//! folder (`deploy::DEPLOY_RECORD_PATH`) as it is: every publish hands it back, byte for byte,
//! so a folder deployed after a watch session still carries the record of the last recorded
//! build.

// The layers below, under the names they have in every crate of the workspace.
use content_api_deploy as deploy;
use content_api_engine::{build, db, derive, parse, render, workspace};
use content_api_model::{config, content, diag, output};
use content_api_source::source;
use content_api_write as write;

pub mod load;

use crate::config::SiteConfig;
use crate::content::{ContentPath, FileContents, Scan};
use crate::db::{Database, Preview};
use crate::deploy::{HistoryError, HistoryFile};
use crate::derive::{ScheduleEntry, ScheduleState, file_diagnostics, preview_of, schedule_entry};
use crate::diag::Diagnostic;
use crate::output::Files;
use crate::render::Lane;
use crate::source::ChangeSet;
use crate::workspace::{Lifetime, Workspace};
use crate::write::{Publisher, Report, Stop, WriteError};
use chrono::NaiveDate;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The output folder could not be opened or written.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// The publishing history could not be read.
    #[error(transparent)]
    History(#[from] HistoryError),
}

/// Why a rebuild did not publish.
#[derive(Debug, thiserror::Error)]
pub enum RebuildError {
    /// The output folder could not be written; the tick retries the publish.
    #[error(transparent)]
    Write(#[from] WriteError),
    /// Publishing now would remove every output: an empty site is never the answer to a
    /// content folder that vanished (a sync tool, `rm -rf content && git restore`).
    #[error(
        "the content folder {} is gone: the last good output stays published until it is back",
        .0.display()
    )]
    ContentFolderGone(PathBuf),
}

/// The effect of one rebuild.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Content paths whose new version the build now uses.
    pub accepted: Vec<ContentPath>,
    /// Content paths whose new version has errors: their last good version stays published.
    pub held_back: Vec<ContentPath>,
    /// Diagnostics to print: those not shown before (each is printed once while it persists),
    /// and every diagnostic of a file the batch named (its author saved it again).
    pub new_diagnostics: Vec<Diagnostic>,
    /// Files whose errors were shown and are gone now: fixed (or fixed by another file).
    pub fixed: Vec<String>,
    /// Files whose errors were shown, deleted before they ever built: their errors went
    /// with them.
    pub gone: Vec<String>,
    /// Errors in the current content (shown or not).
    pub errors: usize,
    /// What was written; `None` when nothing was published (no good state yet, or the write
    /// failed).
    pub report: Option<Report>,
    /// The content built but the first publish could not be written (reported already); the
    /// one-second tick retries it.
    pub write_failed: bool,
    /// From the start of the rebuild to the last write.
    pub took: Duration,
    /// The lane the publish brought up to date; `None` when it published both (the first
    /// build, a session without lanes).
    pub lane: Option<Lane>,
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
            && self.fixed.is_empty()
            && self.gone.is_empty()
            && self.report.as_ref().is_some_and(Report::is_empty)
    }
}

/// A watch-mode build that lives across changes: each [`ChangeSet`] the watcher reports becomes
/// one rebuild, published only when the content it would publish has no errors.
pub struct Session {
    workspace: Workspace,
    publisher: Publisher,
    content_dir: PathBuf,
    /// Disk versions the database does not hold yet (see the module documentation).
    pending: BTreeMap<ContentPath, FileContents>,
    /// Diagnostics already shown, so that each is printed once while it persists.
    shown: HashSet<Diagnostic>,
    /// The paths (files or folders) the batch being applied names: diagnostics of files below
    /// them are shown again in full, as the author just saved them.
    saved: BTreeSet<String>,
    /// Whether a good state was ever published in this session.
    has_published: bool,
    /// Whether a rebuild ran since memory was last handed back (see [`Session::release_memory`]).
    freed_since_trim: bool,
    /// Rebuilds publish the API lane only (see [`Session::use_lanes`]).
    lanes: bool,
    /// The documents lane's groups as last handed to the publisher. The API lane hands them
    /// again, the very same lists, so the publisher keeps those files as they are (and lists
    /// them in the manifest). `None` until both lanes were published once.
    documents: Option<Vec<Files>>,
    /// The API lane published since the documents lane last did.
    documents_due: Option<DocumentsDue>,
    /// The deploy record a recorded build left in the folder, as found at the start (see the
    /// module documentation), handed to every publish as it is; `None` without one.
    kept: Option<Files>,
}

impl Session {
    /// Scans the content folder and makes the first build.
    pub fn start(
        config: Arc<SiteConfig>,
        today: NaiveDate,
        preview: impl Into<Preview>,
    ) -> Result<(Session, Outcome), StartError> {
        Session::start_with_database(Database::default(), config, today, preview)
    }

    /// Like [`Session::start`] on a given database (tests pass a recording one).
    pub fn start_with_database(
        db: Database,
        config: Arc<SiteConfig>,
        today: NaiveDate,
        preview: impl Into<Preview>,
    ) -> Result<(Session, Outcome), StartError> {
        let started = Instant::now();
        let content_dir = config.content_dir.as_std_path().to_owned();
        let publisher = Publisher::open(&config.out_dir)?.taking_over(&config.hosting.take_over);
        let kept = kept_deploy_record(&publisher);
        // A watch session reads the publishing history and never records into it: what it
        // publishes is a preview, and nothing that was never deployed may answer 410.
        let mut history = HistoryFile::load(&config)?;
        let owned: HashSet<&str> = publisher.owned_paths().collect();
        history.set_aside_site_files(&config.out_dir, |path| owned.contains(path));
        drop(owned);
        for warning in &history.warnings {
            tracing::warn!("{warning}");
        }
        let scan = source::scan(&content_dir, &config);
        let published = history.history_paths();
        let workspace =
            Workspace::with_database(db, config, today, preview, scan, Lifetime::Watch, published);
        let mut session = Session {
            workspace,
            publisher,
            content_dir,
            pending: BTreeMap::new(),
            shown: HashSet::new(),
            saved: BTreeSet::new(),
            has_published: false,
            freed_since_trim: false,
            lanes: false,
            documents: None,
            documents_due: None,
            kept,
        };
        let diagnostics = build::diagnostics(session.workspace.db());
        let mut outcome = match session.publish_if_clean(&diagnostics, started) {
            Ok(outcome) => outcome,
            // Another writer owns the folder: nothing to retry, the author must choose.
            Err(err @ WriteError::Locked { .. }) => return Err(err.into()),
            // A shutdown stopped it: the daemon ends before reporting anything.
            Err(WriteError::Stopped) => Outcome {
                write_failed: true,
                took: started.elapsed(),
                ..Outcome::default()
            },
            // A full disk, a permission, a file in the way: the daemon keeps running, and the
            // tick retries (a failed publish leaves the publisher not intact) until it succeeds.
            Err(err) => {
                tracing::error!("{err}; retrying every second");
                Outcome {
                    write_failed: true,
                    took: started.elapsed(),
                    ..Outcome::default()
                }
            }
        };
        (outcome.new_diagnostics, outcome.fixed) = session.remember_shown(&diagnostics);
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

    /// The workspace holding the session's inputs (what the build uses now).
    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// For tests that record which queries execute.
    pub fn database(&self) -> &Database {
        self.workspace.db()
    }

    /// The posts and decks among `paths` that this session does not publish: drafts (unless
    /// `--drafts`) and scheduled ones (unless `--future`). What a rebuild that wrote nothing for
    /// them says they are.
    pub fn unpublished(&self, paths: &[ContentPath]) -> Vec<ScheduleEntry> {
        let db = self.workspace.db();
        let preview = preview_of(db);
        paths
            .iter()
            .filter_map(|path| self.workspace.file(path))
            .filter_map(|file| schedule_entry(db, file))
            .filter(|entry| match entry.state {
                ScheduleState::Draft => !preview.drafts,
                ScheduleState::Scheduled => !preview.future,
                ScheduleState::Published => false,
            })
            .collect()
    }

    /// The configuration in force (it changes when `watch.toml` is reloaded).
    pub fn config(&self) -> &SiteConfig {
        self.workspace.globals().config(self.workspace.db())
    }

    /// Re-reads what `batch` names and rebuilds. A batch that changes nothing (the disk holds
    /// what the build already uses) does no work and returns an empty outcome.
    ///
    /// After the paths, every folder of `changes.folders` is listed, and the files the session
    /// holds there are made to equal the listing: whatever the watcher could not be sure of (a
    /// rename with one half missing, a chain of renames in one quiet period, a lost event) is
    /// found that way. When the content folder is gone, nothing is staged or published.
    pub fn apply(&mut self, changes: &ChangeSet) -> Result<Outcome, RebuildError> {
        let started = Instant::now();
        self.check_content_folder()?;
        if changes.rescan {
            let scan = source::scan(&self.content_dir, self.config());
            self.stage_scan(scan);
        } else {
            for path in &changes.paths {
                self.stage_path(path);
            }
            for folder in &changes.folders {
                self.stage_listing(folder);
            }
        }
        // It may have vanished while being read: what was read then is not the content.
        if let Err(gone) = self.check_content_folder() {
            self.pending.clear();
            return Err(gone);
        }
        self.saved = changes.paths.clone();
        if self.pending.is_empty() && !changes.rescan {
            let mut outcome = Outcome::unchanged(self.has_published);
            (outcome.fixed, outcome.gone) = self.restored();
            self.saved.clear();
            return Ok(outcome);
        }
        let outcome = self.rebuild(started);
        self.saved.clear();
        Ok(outcome?)
    }

    fn check_content_folder(&self) -> Result<(), RebuildError> {
        if self.content_dir.is_dir() {
            Ok(())
        } else {
            Err(RebuildError::ContentFolderGone(self.content_dir.clone()))
        }
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
            (outcome.new_diagnostics, outcome.fixed) = self.remember_shown(&diagnostics);
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
            // A walk's problem at a held-back path (a link whose target was renamed away) stays
            // whatever version of the file the database holds: it is that file's own, carried
            // by it, and must not take the batch's other changes back with it (nor blame them).
            let walk = self.workspace.scan_problems();
            let held_walk_problem = |d: &Diagnostic| {
                held_back.iter().any(|path| path.as_str() == d.path) && walk.contains(d)
            };
            // 2. Errors that no changed file carries: go back to the last good state entirely.
            if remaining
                .iter()
                .any(|d| d.is_error() && !held_walk_problem(d))
            {
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
        let (report, lane) = self.publish()?;
        let (new_diagnostics, fixed) =
            self.remember_shown_for(&diagnostics, structural, attempt.keys());
        Ok(Outcome {
            accepted,
            held_back,
            errors: diagnostics.iter().filter(|d| d.is_error()).count(),
            new_diagnostics,
            fixed,
            gone: Vec::new(),
            report: Some(report),
            write_failed: false,
            took: started.elapsed(),
            lane,
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
        let (report, lane) = if errors == 0 {
            self.has_published = true;
            let (report, lane) = self.publish()?;
            (Some(report), lane)
        } else {
            (None, None)
        };
        Ok(Outcome {
            errors,
            report,
            took: started.elapsed(),
            lane,
            ..Outcome::default()
        })
    }

    /// Every file the session's publisher owns in the output folder (for the purge list).
    pub fn output_paths(&self) -> impl Iterator<Item = &str> {
        self.publisher.owned_paths()
    }

    // ---- Staging: what a batch's paths and folders hold on disk now, recorded as pending
    // changes. Nothing here touches the database; `apply` does. ----

    /// Records the disk version of `path` (a file or a folder, existing or not).
    fn stage_path(&mut self, relative: &str) {
        let disk_path = self.content_dir.join(relative);
        if disk_path.is_dir() {
            let scan = source::scan_under(&self.content_dir, self.config(), relative);
            let found: HashSet<ContentPath> = scan.files.iter().map(|f| f.path.clone()).collect();
            let problems = scan.problems.iter().map(crate::workspace::scan_problem);
            self.replace_scan_problems(|path| is_at_or_below(path, relative), problems);
            for file in scan.files {
                self.stage(file.path, file.contents);
            }
            self.stage_missing_under(relative, &found);
            return;
        }
        if let Some(path) = ContentPath::new(relative)
            && self.config().classify(&path).is_content()
        {
            let contents = source::read_content(&self.content_dir, relative);
            self.stage(path, contents);
        }
        // Gone from disk: it may have been a folder (deleted or moved away), and every file
        // known below it is gone too. (A path that is a file has nothing below it.)
        if std::fs::symlink_metadata(&disk_path).is_err() {
            self.stage_missing_under(relative, &HashSet::new());
        }
        if !disk_path.is_dir() {
            // What a fresh walk reports at this path now (a link whose target is missing, a
            // FIFO) replaces what an earlier one did: a problem mended since goes.
            let problems = source::problems_at(&self.content_dir, self.config(), relative);
            let problems = problems.iter().map(crate::workspace::scan_problem);
            self.replace_scan_problems(|path| path == relative, problems);
        }
    }

    /// Replaces the walk's problems at the paths `replaced` names with `found`.
    fn replace_scan_problems(
        &mut self,
        replaced: impl Fn(&str) -> bool,
        found: impl IntoIterator<Item = Diagnostic>,
    ) {
        let before = self.workspace.scan_problems();
        let mut problems: Vec<Diagnostic> = before
            .iter()
            .filter(|problem| !replaced(&problem.path))
            .cloned()
            .chain(found)
            .collect();
        // In path order, as a full scan lists them.
        problems.sort_by(|a, b| a.path.cmp(&b.path));
        if *problems != *before {
            self.workspace.set_scan_problems(problems.into());
        }
    }

    /// Makes the files held directly in `folder` equal its listing on disk: files the session
    /// does not hold are read, held files that are not listed are deleted, and a folder that
    /// is gone takes everything known below it along.
    fn stage_listing(&mut self, folder: &str) {
        let Some(listed) = source::list_folder(&self.content_dir, self.config(), folder) else {
            if std::fs::symlink_metadata(self.content_dir.join(folder)).is_err() {
                self.stage_missing_under(folder, &HashSet::new());
            }
            return;
        };
        let prefix = format!("{folder}/");
        let held: HashSet<ContentPath> = self
            .known_paths()
            .filter(|path| {
                path.as_str()
                    .strip_prefix(&prefix)
                    .is_some_and(|name| !name.contains('/'))
            })
            .collect();
        for path in listed.iter().filter(|path| !held.contains(*path)) {
            let contents = source::read_content(&self.content_dir, path.as_str());
            self.stage(path.clone(), contents);
        }
        let listed: HashSet<&ContentPath> = listed.iter().collect();
        for path in held.into_iter().filter(|path| !listed.contains(path)) {
            self.stage(path, FileContents::Missing);
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

    // ---- What the author is told: each diagnostic once while it persists, again in full when
    // its file is saved again, a line when a file is fixed; what the preview's landing page
    // shows. ----

    /// Replaces the shown set with `current`; returns what to print (see
    /// [`Outcome::new_diagnostics`]) and the files fixed since.
    fn remember_shown(&mut self, current: &[Diagnostic]) -> (Vec<Diagnostic>, Vec<String>) {
        let to_print = self.to_print(current);
        let fixed = self.fixed(current, |_| true);
        self.shown = current.iter().cloned().collect();
        (to_print, fixed)
    }

    /// Like [`Session::remember_shown`], when `current` only covers the `changed` files (unless
    /// `structural`): what is known about other files stays.
    fn remember_shown_for<'a>(
        &mut self,
        current: &[Diagnostic],
        structural: bool,
        changed: impl Iterator<Item = &'a ContentPath>,
    ) -> (Vec<Diagnostic>, Vec<String>) {
        if structural {
            return self.remember_shown(current);
        }
        let changed: HashSet<&str> = changed.map(ContentPath::as_str).collect();
        let to_print = self.to_print(current);
        let fixed = self.fixed(current, |path| changed.contains(path));
        self.shown.retain(|d| !changed.contains(d.path.as_str()));
        self.shown.extend(current.iter().cloned());
        (to_print, fixed)
    }

    /// Files of the batch put back to the version the build holds (a broken file restored to
    /// its last good text, or a new broken file deleted): nothing to rebuild, but the errors
    /// shown for them are gone. The files fixed, and those gone with their errors.
    fn restored(&mut self) -> (Vec<String>, Vec<String>) {
        let paths: BTreeSet<ContentPath> = self
            .shown
            .iter()
            .filter(|d| self.was_saved(&d.path))
            .filter_map(|d| ContentPath::new(&d.path))
            .collect();
        if paths.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let current = self.diagnostics_after(false, paths.iter());
        let fixed = self.remember_shown_for(&current, false, paths.iter()).1;
        let gone = paths
            .iter()
            .map(ContentPath::as_str)
            .filter(|path| self.workspace.text_of(path).is_none())
            .filter(|path| !self.shown.iter().any(|d| d.path == *path))
            .map(str::to_owned)
            .collect();
        (fixed, gone)
    }

    /// The diagnostics of `current` not shown before, or in a file the batch named.
    fn to_print(&self, current: &[Diagnostic]) -> Vec<Diagnostic> {
        current
            .iter()
            .filter(|d| !self.shown.contains(*d) || self.was_saved(&d.path))
            .cloned()
            .collect()
    }

    /// True when the batch names `path` or a folder above it.
    fn was_saved(&self, path: &str) -> bool {
        self.saved.iter().any(|saved| {
            path == saved
                || path
                    .strip_prefix(saved.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        })
    }

    /// Files (among those `in_scope`) that had errors shown and have none in `current`, and
    /// still exist (a deleted file is not "fixed").
    fn fixed(&self, current: &[Diagnostic], in_scope: impl Fn(&str) -> bool) -> Vec<String> {
        let still_broken: HashSet<&str> = current
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.path.as_str())
            .collect();
        let fixed: BTreeSet<&str> = self
            .shown
            .iter()
            .filter(|d| d.is_error())
            .map(|d| d.path.as_str())
            .filter(|path| in_scope(path) && !still_broken.contains(path))
            .filter(|path| self.workspace.text_of(path).is_some())
            .collect();
        fixed.into_iter().map(str::to_owned).collect()
    }

    /// Renders a diagnostic with the text of its file when the database has it.
    pub fn render(&self, diagnostic: &Diagnostic, color: bool) -> String {
        let pending_text = ContentPath::new(&diagnostic.path)
            .and_then(|path| self.pending.get(&path))
            .and_then(FileContents::text);
        let text = pending_text.or_else(|| self.workspace.text_of(&diagnostic.path));
        diagnostic.render(text, color)
    }

    /// Every diagnostic of the content as it is on disk now (held-back files included), by
    /// path and position: what the preview's landing page shows.
    pub fn current_diagnostics(&self) -> Vec<&Diagnostic> {
        let mut current: Vec<&Diagnostic> = self.shown.iter().collect();
        current.sort_by_key(|d| {
            let (line, column) = d.location.as_ref().map_or((0, 0), |l| (l.line, l.column));
            (&d.path, line, column, &d.message)
        });
        current
    }

    // ---- The two lanes: the API lane published by every rebuild, the documents lane
    // (`render::DOCUMENTS_LANE_FILES`) when the caller says. ----

    /// From now on, a rebuild publishes the API lane only, and the documents lane waits for
    /// [`Session::publish_documents`]. Without this call every publish holds both lanes.
    pub fn use_lanes(&mut self) {
        self.lanes = true;
    }

    /// Whether the documents lane is behind, since when, and since the latest API publish.
    pub fn documents_due(&self) -> Option<DocumentsDue> {
        self.documents_due
    }

    /// Publishes the documents lane (and the API lane with it, which salsa returns unchanged
    /// when nothing was applied since it was published). The output then equals a fresh build
    /// of the content the session holds. A failed write keeps the lane due.
    pub fn publish_documents(&mut self) -> Result<Outcome, WriteError> {
        self.publish_documents_until(&|| false)
    }

    /// [`Session::publish_documents`], giving way to a newer change: once `stop` says so (asked
    /// before each file and each block written), it ends with [`WriteError::Stopped`], the
    /// lane still due and the API lane's next publish holding the documents as they are on
    /// disk. The daemon stops it for an edit that arrives meanwhile, so the edit does not wait
    /// for `llms-full.txt` to be written.
    pub fn publish_documents_until(&mut self, stop: &Stop<'_>) -> Result<Outcome, WriteError> {
        let started = Instant::now();
        let Some(due) = self.documents_due.take() else {
            return Ok(Outcome {
                lane: Some(Lane::Documents),
                ..Outcome::unchanged(self.has_published)
            });
        };
        self.freed_since_trim = true;
        let report = self.publish_both(stop).inspect_err(|_| {
            self.documents_due = Some(due);
        })?;
        Ok(Outcome {
            report: Some(report),
            took: started.elapsed(),
            lane: Some(Lane::Documents),
            ..Outcome::default()
        })
    }

    /// Publishes the API lane with the documents lane as it was last published, or both lanes
    /// when there are no lanes (or no documents lane was published yet). Says which.
    fn publish(&mut self) -> Result<(Report, Option<Lane>), WriteError> {
        let Some(documents) = self.documents.as_ref().filter(|_| self.lanes) else {
            return Ok((self.publish_both(&|| false)?, None));
        };
        let started = Instant::now();
        // Files removed behind the publisher's back are written again by this publish.
        self.publisher.notice_damage();
        let mut groups = build::refresh_lane(self.workspace.db(), Lane::Api);
        let api_groups = groups.len();
        groups.extend(documents.iter().cloned());
        groups.extend(self.kept.clone());
        let rendered = started.elapsed();
        // Due even when the write fails: the retry publishes the API lane again, then this one.
        let now = Instant::now();
        let due = self.documents_due.get_or_insert(DocumentsDue {
            since: now,
            latest: now,
        });
        due.latest = now;
        let report = self.publisher.publish_groups(&groups);
        tracing::debug!(
            "rendered {api_groups} output groups of the api lane in {rendered:?}, published in {:?}",
            started.elapsed() - rendered
        );
        Ok((report?, Some(Lane::Api)))
    }

    /// Renders and publishes every group of both lanes, until `stop` says so.
    fn publish_both(&mut self, stop: &Stop<'_>) -> Result<Report, WriteError> {
        let started = Instant::now();
        self.publisher.notice_damage();
        let db = self.workspace.db();
        let mut groups = build::refresh_lane(db, Lane::Api);
        let documents = build::refresh_lane(db, Lane::Documents);
        groups.extend(documents.iter().cloned());
        let rendered = started.elapsed();
        // Remembered even when the write fails: the retry hands them again, and the publisher
        // compares them with what it managed to write. Not when it stopped for an edit: the
        // API lane's publish then holds the documents last published, so that it writes none
        // of the files this one did not reach (`llms-full.txt` stays off the edit's path).
        groups.extend(self.kept.clone());
        let published = self.documents.replace(documents);
        self.documents_due = None;
        let report = self.publisher.publish_groups_until(&groups, stop);
        if matches!(report, Err(WriteError::Stopped)) {
            self.documents = published;
        }
        tracing::debug!(
            "rendered {} output groups in {rendered:?}, published in {:?}",
            groups.len(),
            started.elapsed() - rendered
        );
        report
    }
}

/// The deploy record a recorded build wrote into the folder (the manifest lists it), as its
/// bytes are, for every publish of the session to keep; `None` when there is none, or it
/// cannot be read.
fn kept_deploy_record(publisher: &Publisher) -> Option<Files> {
    if !publisher.manifest_lists(deploy::DEPLOY_RECORD_PATH) {
        return None;
    }
    let bytes =
        publisher.read_state(deploy::DEPLOY_RECORD_PATH, deploy::MAX_DEPLOY_RECORD_BYTES)?;
    let text = String::from_utf8(bytes).ok()?;
    let record = (
        Arc::from(deploy::DEPLOY_RECORD_PATH),
        output::Output::new(text),
    );
    Some(Files::from(vec![record]))
}

/// Hands the memory a full build freed (read buffers, per-worker database clones, transient
/// vectors) back to the operating system now. The allocator returns freed pages on its own, but
/// only as later allocations and frees pass by: an idle daemon would otherwise keep its first
/// build's peak resident size until the next edit.
fn release_freed_memory() {
    // Each thread allocates from a heap of its own, and a collect frees the caller's: ask the
    // build's worker threads too.
    // SAFETY: mi_collect only frees pages that hold no live allocation.
    rayon::broadcast(|_| unsafe { libmimalloc_sys::mi_collect(true) });
    unsafe { libmimalloc_sys::mi_collect(true) }
}

/// Whether the content path `path` is `folder` or inside it.
fn is_at_or_below(path: &str, folder: &str) -> bool {
    path.strip_prefix(folder)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// The documents lane is behind the API lane (see [`Session::documents_due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocumentsDue {
    /// The first API-lane publish the documents lane has not followed.
    pub since: Instant,
    /// The latest one.
    pub latest: Instant,
}
