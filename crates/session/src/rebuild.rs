//! A rebuild: what a batch names is staged, applied to the database, and taken back file by
//! file, or all together, when it carries errors (the rules of the crate's documentation);
//! then the good state is published.

use crate::config::SiteConfig;
use crate::content::{ContentPath, FileContents};
use crate::derive::file_diagnostics;
use crate::diag::Diagnostic;
use crate::source::{self, ChangeSet};
use crate::write::WriteError;
use crate::{Outcome, RebuildError, Session, build};
use chrono::NaiveDate;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Instant;

impl Session {
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
    pub(crate) fn diagnostics_after<'a>(
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

    pub(crate) fn publish_if_clean(
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
}
