//! The builds: the one-shot build's sequence ([`one_shot`]: `content-api build`, `check`),
//! its loading of the content ([`load`]), the settings it must not publish as they are
//! ([`placeholders`]), and the watch session ([`Session`]): the workspace,
//! the publisher, and the rules that make rebuilding safe.
//!
//! A batch of changed paths is re-read from disk and staged as *pending* (`staging`).
//! Pending changes are applied to the database together (`rebuild`); if the result has
//! errors:
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
//! reported and nothing is written until the content builds. What the author is told of it
//! is `shown`'s.
//!
//! With lanes ([`Session::use_lanes`], watch mode; `lanes`), a rebuild publishes the API
//! lane (the API, everything that must agree with it, the edited posts' own outputs) and
//! leaves the large aggregate documents as they were; [`Session::publish_documents`] brings
//! them up to date when the caller decides (after a pause in the edits). Every publish hands
//! the publisher the whole set of files, so the manifest is right after each lane.
//!
//! A session records nothing, but it keeps the deploy record a recorded build left in the
//! folder (`deploy::DEPLOY_RECORD_PATH`) as it is: every publish hands it back, byte for byte,
//! so a folder deployed after a watch session still carries the record of the last recorded
//! build.

// The layers below, under the names they have in every crate of the workspace.
use content_api_deploy as deploy;
use content_api_engine::{build, db, derive, parse, render, workspace};
use content_api_model::{config, content, diag, output};
use content_api_source::{source, watch_toml};
use content_api_write as write;

mod lanes;
pub mod load;
pub mod one_shot;
pub mod placeholders;
mod rebuild;
mod shown;
mod staging;

use crate::config::SiteConfig;
use crate::content::{ContentPath, FileContents};
use crate::db::{Database, Preview};
use crate::deploy::{HistoryError, HistoryFile};
use crate::derive::{ScheduleEntry, ScheduleState, preview_of, schedule_entry};
use crate::diag::Diagnostic;
use crate::output::Files;
use crate::render::Lane;
use crate::workspace::{Lifetime, Workspace};
use crate::write::{Publisher, Report, WriteError};
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

/// A watch-mode build that lives across changes: each [`ChangeSet`](source::ChangeSet) the watcher reports becomes
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

    /// Every file the session's publisher owns in the output folder (for the purge list).
    pub fn output_paths(&self) -> impl Iterator<Item = &str> {
        self.publisher.owned_paths()
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

/// The documents lane is behind the API lane (see [`Session::documents_due`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DocumentsDue {
    /// The first API-lane publish the documents lane has not followed.
    pub since: Instant,
    /// The latest one.
    pub latest: Instant,
}
