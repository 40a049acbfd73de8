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
//!
//! With lanes ([`Session::use_lanes`], watch mode), a rebuild publishes the API lane (the API,
//! everything that must agree with it, the edited posts' own outputs) and leaves the large
//! aggregate documents as they were; [`Session::publish_documents`] brings them up to date
//! when the caller decides (after a pause in the edits). Every publish hands the publisher the
//! whole set of files, so the manifest is right after each lane.

// The layers below, under the names they have in every crate of the workspace.
use content_api_engine::{build, db, derive, render, workspace};
use content_api_model::diag;
use content_api_source::{config, source};
use content_api_write as write;

use crate::config::SiteConfig;
use crate::db::{Database, Preview};
use crate::derive::{ScheduleEntry, ScheduleState, file_diagnostics, preview_of, schedule_entry};
use crate::diag::Diagnostic;
use crate::render::{Files, Lane};
use crate::source::{ContentPath, FileContents};
use crate::workspace::{Lifetime, Workspace};
use crate::write::{HistoryFile, Publisher, Report, WriteError};
use chrono::NaiveDate;
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

mod lanes;
mod shown;
mod staging;

pub use lanes::DocumentsDue;

/// What the watcher reports: paths relative to the content folder, or "resynchronise".
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// `/`-separated paths below the content folder (files or folders, existing or not).
    pub paths: BTreeSet<String>,
    /// Folders whose listing may have changed: the content files the session holds in each
    /// are made to equal what the folder has on disk (see [`Session::apply`]).
    pub folders: BTreeSet<String>,
    /// The watcher lost events (queue overflow, or it says so): compare everything with disk.
    pub rescan: bool,
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
            && self.report.as_ref().is_some_and(Report::is_empty)
    }
}

/// A watch-mode build that lives across changes: each [`Batch`] the watcher reports becomes
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
}

impl Session {
    /// Scans the content folder and makes the first build.
    pub fn start(
        config: Arc<SiteConfig>,
        today: NaiveDate,
        preview: impl Into<Preview>,
    ) -> Result<(Session, Outcome), WriteError> {
        Session::start_with_database(Database::default(), config, today, preview)
    }

    /// Like [`Session::start`] on a given database (tests pass a recording one).
    pub fn start_with_database(
        db: Database,
        config: Arc<SiteConfig>,
        today: NaiveDate,
        preview: impl Into<Preview>,
    ) -> Result<(Session, Outcome), WriteError> {
        let started = Instant::now();
        let content_dir = config.content_dir.as_std_path().to_owned();
        let publisher = Publisher::open(&config.out_dir)?.taking_over(&config.hosting.take_over);
        // A watch session reads the publishing history and never records into it: what it
        // publishes is a preview, and nothing that was never deployed may answer 410.
        let history = HistoryFile::load(&config)?;
        for warning in &history.warnings {
            tracing::warn!("{warning}");
        }
        let scan = source::scan(&content_dir);
        let published = history.published();
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
        };
        let diagnostics = build::diagnostics(session.workspace.db());
        let mut outcome = match session.publish_if_clean(&diagnostics, started) {
            Ok(outcome) => outcome,
            // Another writer owns the folder: nothing to retry, the author must choose.
            Err(err @ WriteError::Locked { .. }) => return Err(err),
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
        self.workspace.site().config(self.workspace.db())
    }

    /// Re-reads what `batch` names and rebuilds. A batch that changes nothing (the disk holds
    /// what the build already uses) does no work and returns an empty outcome.
    ///
    /// After the paths, every folder of `batch.folders` is listed, and the files the session
    /// holds there are made to equal the listing: whatever the watcher could not be sure of (a
    /// rename with one half missing, a chain of renames in one quiet period, a lost event) is
    /// found that way. When the content folder is gone, nothing is staged or published.
    pub fn apply(&mut self, batch: &Batch) -> Result<Outcome, RebuildError> {
        let started = Instant::now();
        self.check_content_folder()?;
        if batch.rescan {
            self.stage_scan(source::scan(&self.content_dir));
        } else {
            for path in &batch.paths {
                self.stage_path(path);
            }
            for folder in &batch.folders {
                self.stage_listing(folder);
            }
        }
        // It may have vanished while being read: what was read then is not the content.
        if let Err(gone) = self.check_content_folder() {
            self.pending.clear();
            return Err(gone);
        }
        self.saved = batch.paths.clone();
        if self.pending.is_empty() && !batch.rescan {
            let mut outcome = Outcome::unchanged(self.has_published);
            outcome.fixed = self.restored();
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
        let (report, lane) = self.publish()?;
        let (new_diagnostics, fixed) =
            self.remember_shown_for(&diagnostics, structural, attempt.keys());
        Ok(Outcome {
            accepted,
            held_back,
            errors: diagnostics.iter().filter(|d| d.is_error()).count(),
            new_diagnostics,
            fixed,
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
